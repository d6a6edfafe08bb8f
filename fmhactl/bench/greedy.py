"""Greedy decoding with transformers' KV cache, sdpa vs fmhactl (a section of `fmhactl bench --model`).

After a prompt, each implementation runs `tokens` cached decode forwards, one token each, with
its own DynamicCache (the prefill is not timed); decode tokens/s = batch * tokens / median
seconds over `repeats` rounds (_interleaved_round: the implementations' steps alternate). Logits: both implementations are then fed sdpa's greedy tokens (so one
argmax flip cannot make the sequences diverge) and every step's last-position logits are checked
under FlashAttention's rule against the same weights in fp32: max|fmhactl - fp32| <=
2 * max|sdpa - fp32| + atol. `decode_calls` counts the op calls that the split-KV decode kernels
served during fmhactl's timed runs (proves the path ran).
"""

from __future__ import annotations

import statistics

ATOL = 1e-3


def _generate(model, ids, tokens: int, forced=None):
    """(seconds of `tokens` cached decode forwards, the tokens fed (batch, tokens + 1), logits per
    forward, the prefill's last position first). forced: feed these tokens instead of the argmax."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def pick(out, index: int):
        return out.logits[:, -1:].argmax(-1) if forced is None else forced[:, index:index + 1]

    with torch.inference_mode():
        out = model(ids, use_cache=True)
        cache = out.past_key_values
        logits = [out.logits[:, -1].float()]
        nxt = pick(out, 0)
        fed = [nxt]
        torch.cuda.synchronize()
        start.record()
        for step in range(tokens):
            out = model(nxt, past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            logits.append(out.logits[:, -1].float())
            nxt = pick(out, step + 1)
            fed.append(nxt)
        end.record()
        torch.cuda.synchronize()
    return start.elapsed_time(end) * 1e-3, torch.cat(fed, dim=1), logits


def _interleaved_round(models: dict, ids, tokens: int, round_index: int) -> dict[str, float]:
    """One round: every implementation prefills (not timed), then their `tokens` greedy steps
    alternate, one step of each in turn, the order reversed every step; each one's CUDA-event
    seconds summed over its steps. The small models' steps are host-bound and the host's speed
    drifts by tens of percent within seconds (session 20: whole runs of one implementation, even
    interleaved run by run, gave round ratios of 0.96-1.47 in one call); steps side by side see
    the same host."""
    import torch

    from fmhactl.bench.interleave import time_side_by_side

    state: dict = {}

    def step(name: str) -> None:
        cache, nxt = state[name]
        out = models[name](nxt, past_key_values=cache, use_cache=True)
        state[name] = (out.past_key_values, out.logits[:, -1:].argmax(-1))

    with torch.inference_mode():
        for name in models:
            out = models[name](ids, use_cache=True)
            state[name] = (out.past_key_values, out.logits[:, -1:].argmax(-1))
        torch.cuda.synchronize()
        ms = time_side_by_side({name: (lambda name=name: step(name)) for name in models}, tokens, round_index)
    return {name: 1e-3 * sum(steps) for name, steps in ms.items()}


def greedy_entry(models: dict, ref32_model, ids, tokens: int, repeats: int = 7) -> dict:
    """Decode tokens/s of every implementation and the logits rule; ids: (batch, prompt). Each
    round steps the implementations side by side (_interleaved_round). A first round of full
    length is kept apart (`first_pass`): SDPA's default backend on the H200 (cuDNN) builds a plan
    for every KV length it has not seen, about 40 ms each against 0.14 ms for a length seen
    (session 20, scripts/device/sdpa_new_length_probe.py), so a process's first pass over the
    lengths says what a fresh process pays, and the rounds after it the steady state."""
    import torch

    from fmhactl.bench.interleave import round_ratios
    from fmhactl.torch import decode

    batch = ids.shape[0]
    entry: dict = {"prompt_length": int(ids.shape[1]), "new_tokens": tokens, "batch": batch}
    names = list(models)
    first = _interleaved_round(models, ids, tokens, 0)  # also the warm-up: plans, kernels, allocator
    if first["fmhactl"] > 0:
        entry["first_pass"] = {"sdpa_s": first["sdpa"], "fmhactl_s": first["fmhactl"],
                               "ratio_tokens_per_s": first["sdpa"] / first["fmhactl"]}
    times: dict[str, list[float]] = {name: [] for name in names}
    before = decode.launches()  # only fmhactl's steps launch the decode kernels
    for r in range(repeats):
        for name, seconds in _interleaved_round(models, ids, tokens, r).items():
            times[name].append(seconds)
    for name in names:
        median = statistics.median(times[name])
        entry[name] = {"median_s": median, "tokens_per_s": batch * tokens / median if median > 0 else 0.0}
    if "fmhactl" in models:
        entry["decode_calls"] = decode.launches() - before
    entry["ratio_tokens_per_s"] = entry["fmhactl"]["tokens_per_s"] / entry["sdpa"]["tokens_per_s"]
    entry["ratio_per_round"] = round_ratios({name: [[t] for t in runs] for name, runs in times.items()})  # one run a round
    _, forced, low = _generate(models["sdpa"], ids, tokens)
    _, _, ours = _generate(models["fmhactl"], ids, tokens, forced=forced)
    _, _, ref32 = _generate(ref32_model, ids, tokens, forced=forced)
    ours_t, low_t, ref_t = (torch.stack(x) for x in (ours, low, ref32))
    err = float((ours_t - ref_t).abs().max().item())
    low_err = float((low_t - ref_t).abs().max().item())
    entry["logits"] = {"max_abs_err_vs_fp32": err, "sdpa_err_vs_fp32": low_err, "tolerance": 2 * low_err + ATOL,
                       "max_abs_diff_vs_sdpa": float((ours_t - low_t).abs().max().item()),
                       "passed": err <= 2 * low_err + ATOL and not bool(torch.isnan(ours_t).any())}
    return entry
