"""Model-level benchmark: prefill of a small random-init Llama-style model, sdpa vs fmhactl attention.

The model is built from a config (no download) with transformers; both attention
implementations run the same weights in the same process, one after the other, timed with CUDA
events around whole forward passes (warm-up first, median reported). Prefill tokens/s =
batch * prompt_length / median seconds.
"""

from __future__ import annotations

import copy
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from fmhactl.bench.interleave import round_ratios
from fmhactl.errors import BadInput, MissingEnvironment

IMPLEMENTATIONS = ("sdpa", "fmhactl")
MAX_TOKENS = 65536  # batch * prompt length, checked before any work
MAX_GREEDY_TOKENS = 1024
GREEDY_PROMPT = 2048


@dataclass(frozen=True)
class ModelSpec:
    name: str
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    vocab_size: int
    max_position_embeddings: int
    family: str = "llama"  # the transformers config class: llama, qwen2, mistral or phi3
    sliding_window: int | None = None  # a window on every layer (mistral): the op's window feature

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads


MODELS: dict[str, ModelSpec] = {
    # The model: 4 layers, hidden 1024, 16 heads (hd 64), 4 KV heads (GQA 4:1); 8192
    # positions, so issue 24's 8192-token prefill runs on it as on qwen2-small.
    "llama-small": ModelSpec("llama-small", 1024, 4, 16, 4, 2816, 32000, 8192),
    "llama-small-hd128": ModelSpec("llama-small-hd128", 2048, 4, 16, 4, 5632, 32000, 4096),
    # The Qwen2-style model: hd 128, GQA 16/4, 4 layers, q/k/v projections with bias.
    "qwen2-small": ModelSpec("qwen2-small", 2048, 4, 16, 4, 5632, 32000, 8192, family="qwen2"),
    # Mistral-style: hd 128, GQA 16/4, a 512-token sliding window on every layer (Mistral 7B v0.1
    # has 4096 over 32k positions): from 513 tokens on, SDPA gets a dense windowed mask and the op
    # its window feature.
    "mistral-small": ModelSpec("mistral-small", 2048, 4, 16, 4, 5632, 32000, 8192, family="mistral",
                               sliding_window=512),
    # Phi-3-style: head dim 96 (Phi-3-mini's), which no SM90 kernel has: prefill runs the d128 kernel
    # through TMA zero fill, decode the split-KV kernels masked to 96 (docs/torch.md).
    "phi3-small": ModelSpec("phi3-small", 1536, 4, 16, 4, 4096, 32064, 8192, family="phi3"),  # Phi-3's vocabulary (its pad id 32000 must fit)
}


def get_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise BadInput(f"unknown model {name!r} (known: {', '.join(MODELS)}, dsv4)") from None


def build_models(spec: ModelSpec, implementations: Sequence[str], dtype, device: str = "cuda", seed: int = 0):
    """{implementation: model}, all with the same random weights, in eval mode, on device."""
    import torch

    try:
        from transformers import AutoModelForCausalLM, LlamaConfig, MistralConfig, Phi3Config, Qwen2Config
    except ImportError:
        raise MissingEnvironment("the model bench needs transformers: pip install 'fmhactl[hf]'") from None
    from fmhactl.torch import register_transformers

    register_transformers()
    config_class = {"llama": LlamaConfig, "qwen2": Qwen2Config, "mistral": MistralConfig, "phi3": Phi3Config}[spec.family]
    window = {"sliding_window": spec.sliding_window} if spec.family == "mistral" else {}
    config = config_class(hidden_size=spec.hidden_size, num_hidden_layers=spec.num_hidden_layers,
                         num_attention_heads=spec.num_attention_heads, num_key_value_heads=spec.num_key_value_heads,
                         intermediate_size=spec.intermediate_size, vocab_size=spec.vocab_size,
                         max_position_embeddings=spec.max_position_embeddings, **window)
    models = {}
    state = None
    for impl in implementations:
        torch.manual_seed(seed)
        # A config of its own per model: transformers records the implementation on the config
        # object, so a shared one would make every model run the last implementation built.
        model = AutoModelForCausalLM.from_config(copy.deepcopy(config), attn_implementation=impl)
        if model.config._attn_implementation != impl:
            raise RuntimeError(f"transformers built the model with {model.config._attn_implementation!r}, not {impl!r}")
        if state is None:
            state = model.state_dict()
        else:
            model.load_state_dict(state)
        models[impl] = model.to(device=device, dtype=dtype).eval()
    return models


def count_op_calls(model, ids, use_cache: bool = False) -> int:
    """How many times one forward of model calls torch.ops.fmhactl.attention (proves which attention ran)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class Counter(TorchDispatchMode):
        calls = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is torch.ops.fmhactl.attention.default:
                Counter.calls += 1
            return func(*args, **(kwargs or {}))

    with torch.inference_mode(), Counter():
        model(ids, use_cache=use_cache)
    return Counter.calls


def time_calls(fn, warmup: int, iters: int) -> list[float]:
    """CUDA-event milliseconds of `iters` calls of `fn` after `warmup` (sorted): model-level
    timings (a forward, a decode run), where the host's enqueue is hidden by the work itself."""
    import torch

    with torch.inference_mode():
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        for i in range(iters):
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) for s, e in zip(starts, ends))


INTERLEAVE_ROUNDS = 5


def time_rounds(calls: dict[str, Callable[[], object]], warmup: int, iters: int,
                rounds: int = INTERLEAVE_ROUNDS) -> dict[str, list[list[float]]]:
    """time_calls for several implementations at once, their calls side by side: `rounds` rounds,
    each timing about iters / rounds calls of every implementation, one call of each in turn, the
    order reversed every call (and the first call's order by round). A small model's forward is
    host-bound and the host's speed drifts by tens of percent within seconds (clocks, allocator,
    host state); blocks of one implementation's calls, even in alternating rounds, left round
    ratios of 0.77-1.58 (session 20), and calls side by side see the same host. Returns each
    implementation's CUDA-event ms per round, in round order (bench.interleave.round_ratios
    compares the implementations round by round)."""
    import torch

    from fmhactl.bench.interleave import time_side_by_side

    per_round = max(1, -(-iters // rounds))
    times: dict[str, list[list[float]]] = {name: [] for name in calls}
    with torch.inference_mode():
        for name in calls:
            for _ in range(warmup):
                calls[name]()
        torch.cuda.synchronize()
        for r in range(rounds):
            for name, ms in time_side_by_side(calls, per_round, r).items():
                times[name].append(ms)
    return times


def time_interleaved(calls: dict[str, Callable[[], object]], warmup: int, iters: int,
                     rounds: int = INTERLEAVE_ROUNDS) -> dict[str, list[float]]:
    """time_rounds pooled: each implementation's sorted CUDA-event ms over all rounds."""
    return {name: _pooled(per_round) for name, per_round in time_rounds(calls, warmup, iters, rounds).items()}


def _pooled(per_round: list[list[float]]) -> list[float]:
    return sorted(t for one in per_round for t in one)


def _time_forwards(models: dict, ids, warmup: int, iters: int, attention_mask=None) -> dict[str, list[list[float]]]:
    return time_rounds({impl: (lambda m=model: m(ids, attention_mask=attention_mask, use_cache=False))
                        for impl, model in models.items()}, warmup, iters)


def padded_lengths(length: int) -> tuple[int, ...]:
    """The padded batch for a prompt length: 4 rows of uneven lengths, the longest `length`."""
    return tuple(max(1, (length * share) // 4) for share in (4, 3, 2, 1))


def padding_mask(lengths: Sequence[int], side: str, device: str = "cuda"):
    """(rows, max length) 0/1 mask with each row's tokens on the `side` (left: as generate pads)."""
    import torch

    width = max(lengths)
    mask = torch.zeros(len(lengths), width, dtype=torch.long, device=device)
    for row, n in enumerate(lengths):
        if side == "left":
            mask[row, width - n:] = 1
        else:
            mask[row, :n] = 1
    return mask


def _padded_entry(models: dict, spec: ModelSpec, length: int, gen, warmup: int, iters: int) -> dict:
    """Prefill of a left-padded batch of 4 uneven lengths: tokens/s counts real tokens only; logits
    are compared at real tokens; SDPA fallbacks (none expected) are counted."""
    import torch

    from fmhactl.torch.hf import fallbacks

    lengths = padded_lengths(length)
    mask = padding_mask(lengths, "left")
    ids = torch.randint(0, spec.vocab_size, mask.shape, generator=gen, device="cuda")
    before = sum(fallbacks().values())
    entry: dict = {"lengths": list(lengths), "padding": "left"}
    per_round = _time_forwards(models, ids, warmup, iters, attention_mask=mask)
    for impl, rounds in per_round.items():
        median = statistics.median(_pooled(rounds))
        entry[impl] = {"median_ms": median, "tokens_per_s": sum(lengths) / (median * 1e-3) if median > 0 else 0.0}
    entry["ratio_per_round"] = round_ratios(per_round)
    with torch.inference_mode():
        a = models["sdpa"](ids, attention_mask=mask, use_cache=False).logits.float()
        b = models["fmhactl"](ids, attention_mask=mask, use_cache=False).logits.float()
    seen = mask.bool()
    entry["max_logit_diff_vs_sdpa"] = float((a[seen] - b[seen]).abs().max().item())
    entry["ratio_tokens_per_s"] = entry["fmhactl"]["tokens_per_s"] / entry["sdpa"]["tokens_per_s"]
    entry["sdpa_fallback_calls"] = sum(fallbacks().values()) - before
    return entry


def run_model_bench(name: str, prompt_lengths: Sequence[int], *, batch: int = 1, dtype_name: str = "bf16",
                    warmup: int = 3, iters: int = 10, seed: int = 0, padded: bool = False,
                    greedy_tokens: int = 0, greedy_prompt: int = GREEDY_PROMPT) -> dict:
    """Prefill tokens/s of `name` with sdpa and fmhactl attention, measured in this process; with
    `padded`, each prompt length also as a left-padded batch of 4 uneven lengths (padded_lengths);
    with `greedy_tokens`, greedy decoding of that many tokens after a `greedy_prompt` prompt
    (fmhactl.bench.greedy)."""
    spec = get_spec(name)
    if not 0 <= greedy_tokens <= MAX_GREEDY_TOKENS:
        raise BadInput(f"--greedy must be in 0..{MAX_GREEDY_TOKENS}, got {greedy_tokens}")
    if greedy_tokens and not 1 <= greedy_prompt <= spec.max_position_embeddings - greedy_tokens:
        raise BadInput(f"greedy prompt {greedy_prompt} + {greedy_tokens} tokens exceeds the model's "
                       f"{spec.max_position_embeddings} positions")
    if batch < 1 or not prompt_lengths or any(t < 1 for t in prompt_lengths):
        raise BadInput("--batch and every --prompt length must be >= 1")
    if max(prompt_lengths) > spec.max_position_embeddings:
        raise BadInput(f"prompt length {max(prompt_lengths)} exceeds the model's {spec.max_position_embeddings} positions")
    if batch * max(prompt_lengths) > MAX_TOKENS:
        raise BadInput(f"batch * prompt length must be <= {MAX_TOKENS}, got {batch * max(prompt_lengths)}")
    if warmup < 0 or iters < 1:
        raise BadInput("--warmup must be >= 0 and --iters >= 1")
    from fmhactl.runtime.device import require_gpu

    require_gpu()  # the driver's answer first: the same GPU-missing line as every other command
    import torch

    if not torch.cuda.is_available():
        from fmhactl.runtime.device import no_gpu

        raise no_gpu("torch sees no CUDA device")
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}.get(dtype_name)
    if dtype is None:
        raise BadInput(f"dtype must be bf16 or f16, got {dtype_name!r}")
    from fmhactl.torch import backend_for

    models = build_models(spec, IMPLEMENTATIONS, dtype, seed=seed)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    probe = torch.empty(batch, spec.num_attention_heads, max(prompt_lengths), spec.head_dim, dtype=dtype, device="cuda")
    kv = torch.empty(batch, spec.num_key_value_heads, max(prompt_lengths), spec.head_dim, dtype=dtype, device="cuda")
    backend = backend_for(probe, kv, kv, causal=True)
    probe_ids = torch.randint(0, spec.vocab_size, (batch, 8), generator=gen, device="cuda")
    calls = {impl: count_op_calls(model, probe_ids) for impl, model in models.items()}
    if calls != {"sdpa": 0, "fmhactl": spec.num_hidden_layers}:
        raise RuntimeError(f"fmhactl op calls per forward {calls}: expected 0 with sdpa and one per layer with fmhactl")
    rows = []
    for length in prompt_lengths:
        ids = torch.randint(0, spec.vocab_size, (batch, length), generator=gen, device="cuda")
        entry: dict = {"prompt_length": length, "batch": batch}
        per_round = _time_forwards(models, ids, warmup, iters)
        entry["ratio_per_round"] = round_ratios(per_round)
        for impl, rounds in per_round.items():
            times = _pooled(rounds)
            median = statistics.median(times)
            entry[impl] = {"median_ms": median, "p10_ms": times[len(times) // 10],
                           "p90_ms": times[(9 * len(times)) // 10],
                           "tokens_per_s": batch * length / (median * 1e-3) if median > 0 else 0.0}
        with torch.inference_mode():
            a = models["sdpa"](ids, use_cache=False).logits.float()
            b = models["fmhactl"](ids, use_cache=False).logits.float()
        entry["max_logit_diff_vs_sdpa"] = float((a - b).abs().max().item())
        entry["ratio_tokens_per_s"] = entry["fmhactl"]["tokens_per_s"] / entry["sdpa"]["tokens_per_s"]
        if padded:
            entry["padded_batch"] = _padded_entry(models, spec, length, gen, warmup, iters)
        rows.append(entry)
    greedy = None
    if greedy_tokens:
        from fmhactl.bench.greedy import greedy_entry

        ref32 = build_models(spec, ("sdpa",), dtype, seed=seed)["sdpa"].float()  # same rounded weights, fp32 math
        ids = torch.randint(0, spec.vocab_size, (batch, greedy_prompt), generator=gen, device="cuda")
        greedy = greedy_entry(models, ref32, ids, greedy_tokens)
        del ref32
    return {"model": asdict(spec), "greedy_decode": greedy, "dtype": dtype_name, "backend": {**asdict(backend)},
            "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "warmup": warmup, "iters": iters,
            "op_calls_per_forward": calls,
            "results": rows}


def record(result: dict, store) -> int:
    """Store a model bench as one row (kind model-bench) so status can show it beside M6."""
    import torch

    from fmhactl.build.hashing import source_hash
    from fmhactl.results.store import ResultRow, new_session_id
    from fmhactl.torch.launch import registry

    backend = result["backend"]
    variant = registry()[backend["variant"]]
    row = ResultRow(kind="model-bench", variant=backend["variant"], arch=backend["arch"], mode=backend["mode"],
                    status="OK", config_key=result["model"]["name"], config={"model": result["model"]},
                    metrics=result, source_hash=source_hash(variant.source_path), gpu=result["gpu"],
                    driver=torch.version.cuda or "", toolchain=f"torch-{torch.__version__}", session=new_session_id())
    return store.add(row)
