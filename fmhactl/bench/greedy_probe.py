"""Where a greedy decode step's time goes, sdpa vs fmhactl (issue 24: llama-small greedy ran 0.44x
sdpa in session 6 while qwen2-small ran 1.10x on the same decode path).

For one model and prompt, each implementation runs `tokens` cached greedy steps, `rounds` times in
interleaved order (sdpa, fmhactl, fmhactl with the decode kernels off, then again), and reports
per run: wall seconds (CUDA events), host µs per step (perf_counter around the forward, no sync:
what Python costs), the decode launches, new decode/fast-path plans and SDPA fallbacks during the
run (a per-step plan build or a fallback shows up here), and Python GC collections and their time.
Then, per implementation, a cProfile of `profile_steps` steps (the functions with the most own
time) and a torch.profiler pass over a few steps (GPU kernel µs per step by kernel). Together they
tell a host cost (host µs per step up, kernels not) from a GPU cost (kernel µs up) from noise
(rounds disagree) from GC. Timing lives here, never in tests.
"""

from __future__ import annotations

import gc
import statistics
import time

SCHEMA_VERSION = 1
IMPLS = ("sdpa", "fmhactl", "fmhactl-no-decode")


class _GcWatch:
    """Counts Python GC collections and their wall time while installed."""

    def __init__(self) -> None:
        self.collections = {0: 0, 1: 0, 2: 0}
        self.seconds = 0.0
        self._start = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.collections[info["generation"]] += 1
            self.seconds += time.perf_counter() - self._start

    def __enter__(self):
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self)


def _prefill(model, ids):
    import torch

    with torch.inference_mode():
        out = model(ids, use_cache=True)
    return out.past_key_values, out.logits[:, -1:].argmax(-1)


def _steps(model, cache, nxt, tokens: int, host_us: list[float] | None = None):
    """`tokens` cached greedy forwards; host µs of each appended to host_us."""
    import torch

    with torch.inference_mode():
        for _ in range(tokens):
            t0 = time.perf_counter()
            out = model(nxt, past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            nxt = out.logits[:, -1:].argmax(-1)
            if host_us is not None:
                host_us.append((time.perf_counter() - t0) * 1e6)
    return cache, nxt


def _counts() -> dict:
    from fmhactl.torch import decode, fastpath
    from fmhactl.torch.hf import fallbacks

    return {"decode_launches": decode.launches(), "decode_plans": sum(p is not None for p in decode._plans.values()),
            "fastpath_plans": len(fastpath._plans), "sdpa_fallbacks": sum(fallbacks().values())}


def _timed_run(model, ids, tokens: int) -> dict:
    import torch

    from fmhactl.torch import decode

    cache, nxt = _prefill(model, ids)
    torch.cuda.synchronize()
    before = _counts()
    host: list[float] = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with _GcWatch() as watch:
        start.record()
        _steps(model, cache, nxt, tokens, host)
        end.record()
        torch.cuda.synchronize()
    after = _counts()
    host.sort()
    return {"wall_s": start.elapsed_time(end) * 1e-3,
            "host_us_per_step": {"median": statistics.median(host), "p90": host[(9 * len(host)) // 10],
                                 "max": host[-1], "sum_s": sum(host) * 1e-6},
            "during_run": {k: after[k] - before[k] for k in after},
            "decode_enabled": bool(decode._state["enabled"]),
            "gc": {"collections": watch.collections, "seconds": watch.seconds}}


def _cprofile(model, ids, steps: int, top: int = 12) -> dict:
    import cProfile
    import pstats

    cache, nxt = _prefill(model, ids)
    cache, nxt = _steps(model, cache, nxt, 2)
    profiler = cProfile.Profile()
    profiler.enable()
    _steps(model, cache, nxt, steps)
    profiler.disable()
    stats = pstats.Stats(profiler).stats

    def row(key, value) -> dict:
        (path, line, name), (_, calls, own, cum, _) = key, value
        return {"function": f"{path.rsplit('/', 1)[-1]}:{line}:{name}", "calls_per_step": calls / steps,
                "own_us_per_step": own * 1e6 / steps, "cumulative_us_per_step": cum * 1e6 / steps}

    by_own = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    ours = sorted(((k, v) for k, v in stats.items() if "fmhactl" in k[0]), key=lambda kv: kv[1][3], reverse=True)
    return {"top_own_time": [row(k, v) for k, v in by_own], "fmhactl_by_cumulative": [row(k, v) for k, v in ours[:6]]}


def _kernels(model, ids, steps: int, top: int = 8) -> dict:
    import torch
    from torch.profiler import ProfilerActivity, profile

    cache, nxt = _prefill(model, ids)
    cache, nxt = _steps(model, cache, nxt, 2)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        _steps(model, cache, nxt, steps)
        torch.cuda.synchronize()
    kernels = []
    for event in prof.key_averages():
        us = getattr(event, "self_device_time_total", None)
        if us is None:
            us = getattr(event, "self_cuda_time_total", 0.0)
        if us and str(getattr(event, "device_type", "")).endswith("CUDA"):
            kernels.append((event.key, event.count, us))
    kernels.sort(key=lambda k: k[2], reverse=True)
    return {"kernel_us_per_step": sum(k[2] for k in kernels) / steps,
            "top": [{"kernel": name[:90], "calls_per_step": count / steps, "us_per_step": us / steps}
                    for name, count, us in kernels[:top]]}


def run_greedy_probe(name: str, tokens: int = 128, prompt: int = 2048, rounds: int = 2, profile_steps: int = 32,
                     kernel_steps: int = 8, dtype_name: str = "bf16", seed: int = 0) -> dict:
    """The report described in the module docstring, for one model of fmhactl.bench.model.MODELS."""
    from fmhactl.bench.model import build_models, get_spec
    from fmhactl.errors import BadInput

    spec = get_spec(name)
    if not (1 <= tokens <= 1024 and 1 <= prompt <= spec.max_position_embeddings - tokens and rounds >= 1
            and profile_steps >= 1 and kernel_steps >= 1):
        raise BadInput("greedy probe: tokens 1..1024, prompt + tokens within the model's positions, counts >= 1")
    import torch

    from fmhactl.torch import decode

    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype_name]
    models = build_models(spec, ("sdpa", "fmhactl"), dtype, seed=seed)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    ids = torch.randint(0, spec.vocab_size, (1, prompt), generator=gen, device="cuda")

    def model_of(impl: str):
        decode.set_enabled(impl != "fmhactl-no-decode")
        return models["sdpa" if impl == "sdpa" else "fmhactl"]

    try:
        for impl in IMPLS:  # warm-up: plans, kernels, allocator, full length
            cache, nxt = _prefill(model_of(impl), ids)
            _steps(model_of(impl), cache, nxt, tokens)  # every KV length once: SDPA plans each new one
        runs: dict[str, list[dict]] = {impl: [] for impl in IMPLS}
        for _ in range(rounds):
            for impl in IMPLS:
                runs[impl].append(_timed_run(model_of(impl), ids, tokens))
        profiles = {impl: _cprofile(model_of(impl), ids, profile_steps) for impl in IMPLS[:2]}
        kernels = {impl: _kernels(model_of(impl), ids, kernel_steps) for impl in IMPLS}
    finally:
        decode.set_enabled(True)
    walls = {impl: statistics.median(r["wall_s"] for r in rs) for impl, rs in runs.items()}
    return {"schema_version": SCHEMA_VERSION, "kind": "greedy-probe", "model": name, "head_dim": spec.head_dim,
            "tokens": tokens, "prompt": prompt, "rounds": rounds, "gpu": torch.cuda.get_device_name(),
            "torch": torch.__version__, "runs": runs,
            "ms_per_step": {impl: 1e3 * w / tokens for impl, w in walls.items()},
            "ratio_tokens_per_s": {impl: walls["sdpa"] / w for impl, w in walls.items() if w > 0},
            "cprofile": profiles, "kernels": kernels}
