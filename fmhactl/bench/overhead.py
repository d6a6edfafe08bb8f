"""Host cost per call of the torch op beside SDPA, measured in one process (`fmhactl bench --overhead`).

For each shape, every implementation is called back to back on one stream:
* host_us: wall-clock time to enqueue `iters` calls (the GPU is synchronised before, not inside),
  divided by `iters`: what a Python caller pays per call;
* per_call_us: CUDA events around the same `iters` calls, divided by `iters`: the larger of host
  and GPU time per call, which is what a model sees at small shapes;
* do_bench_us: triton.testing.do_bench's median (L2 flushed between calls), where triton is
  installed: the issue's original measure.
Each number is the median over `rounds` rounds, the implementations interleaved: each round times
every implementation once (its `iters` calls inside its own context), the order reversed every
other round (fmhactl.bench.interleave), so a drift of the host over the measurement (clocks,
allocator) falls on every side alike; do_bench runs after the rounds. Implementations: the op as models call it
(`fmhactl.torch.attention`), the op through the dispatcher (`torch.ops.fmhactl.attention`), the
op's general path (the cached path turned off: every check and choice on every call), on a decode
step (t <= 16) the op with a new KV length on every call (fmhactl-new-length: what a growing cache
pays), and SDPA with its default choice, cuDNN and flash. A shape with attention features (wl=/wr=, sink, topk=K,
kvshared) calls the op with them (sinks and top-k lists drawn for the config's seed, values
unchecked) and skips SDPA, which has none. A baseline that cannot run a shape is reported with the
reason instead of a time. Nothing is stored; timing lives here, never in tests.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from fmhactl.config import AttnConfig, parse_shape
from fmhactl.errors import BadInput, MissingEnvironment

DEFAULT_SHAPES = ("b=1,h=8,t=32,s=32,d=64,causal",)
MAX_ITERS, MAX_ROUNDS, MAX_SHAPES = 10000, 50, 32
MAX_ELEMENTS = 1 << 30  # per tensor (2 GiB in bf16): the sm90 suite's b64 T=1 row (2^29) fits; the bench is about host cost, not memory
OP_IMPLS = ("fmhactl", "fmhactl-dispatcher", "fmhactl-general", "fmhactl-new-length")
DECODE_MAX_SEQ_Q = 16  # a decode step: the rows where fmhactl-new-length is measured
SDPA_IMPLS = ("sdpa", "sdpa-cudnn", "sdpa-flash")


def parse_shape_list(texts: Sequence[str], defaults: Sequence[str], max_shapes: int) -> list[AttnConfig]:
    """--shape values (default: `defaults`), at most max_shapes, each parsed (bad input first)."""
    texts = list(texts) or list(defaults)
    if len(texts) > max_shapes:
        raise BadInput(f"--shape: at most {max_shapes} shapes, got {len(texts)}")
    return [parse_shape(text) for text in texts]


def parse_shapes(texts: Sequence[str]) -> list[AttnConfig]:
    """--shape values (default: one tiny causal shape), checked before any GPU work."""
    configs = parse_shape_list(texts, DEFAULT_SHAPES, MAX_SHAPES)
    for cfg in configs:
        if max(cfg.batch * cfg.heads * cfg.seq_q, cfg.batch * cfg.heads_kv * cfg.seq_k) * cfg.head_dim > MAX_ELEMENTS:
            raise BadInput(f"--shape {cfg.key}: over {MAX_ELEMENTS} elements per tensor (the overhead bench is for "
                           "small and medium shapes)")
    return configs


def feature_kwargs(cfg: AttnConfig, seed: int) -> dict:
    """The op's feature keywords for a config with features (empty without): window, kv_shared,
    and sinks / top-k lists drawn on the GPU (fmhactl.runtime.features.make_feature_inputs)."""
    if not cfg.features:
        return {}
    from fmhactl.runtime.features import make_feature_inputs

    inputs = make_feature_inputs(cfg, seed, device="cuda")
    return {"window_left": cfg.window_left, "window_right": cfg.window_right, "sinks": inputs.sinks,
            "topk_idx": inputs.topk_idx, "kv_shared": cfg.kv_shared}


def sdpa_is_causal(cfg: AttnConfig) -> bool | str:
    """SDPA's is_causal for the same math as the op's causal flag on this shape, or why there is
    none. SDPA aligns the causal diagonal top-left, the op bottom-right; they agree when t == s,
    and at t == 1 the op's one query sees every key, which is SDPA without a mask (as transformers
    calls it for a decode step)."""
    if not cfg.causal or cfg.seq_q == 1:
        return False
    if cfg.seq_q == cfg.seq_k:
        return True
    return "SDPA's is_causal is top-left aligned; the op's bottom-right: only t == s (or t == 1) compares"


def _callables(cfg: AttnConfig, q, k, v, features: dict | None = None) -> dict[str, tuple[Callable[[], object], Callable] | str]:
    """name -> (zero-argument call, context it runs in), or the reason it cannot run this shape.

    The SDPA backends are pinned by a context entered once around all of a measurement's calls,
    not per call (entering sdpa_kernel costs more host time than a small call itself)."""
    import contextlib

    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    import fmhactl.torch as ft

    causal = cfg.causal
    gqa = cfg.heads != cfg.heads_kv
    plain = contextlib.nullcontext
    if features:
        f = dict(features)
        sinks, idx = f.pop("sinks"), f.pop("topk_idx")
        op = torch.ops.fmhactl.attention.default
        skipped = "SDPA has no attention features (window, sinks, top-k, K = V)"
        return {
            "fmhactl": (lambda: ft.attention(q, k, v, causal=causal, sinks=sinks, topk_idx=idx, check_values=False,
                                             **f), plain),
            "fmhactl-dispatcher": (lambda: op(q, k, v, sinks, idx, causal=causal, **f), plain),
            "fmhactl-general": (lambda: op(q, k, v, sinks, idx, causal=causal, **f), plain),
            **{name: skipped for name in SDPA_IMPLS}}
    calls: dict[str, tuple[Callable[[], object], Callable] | str] = {
        "fmhactl": (lambda: ft.attention(q, k, v, causal=causal), plain),
        "fmhactl-dispatcher": (lambda: torch.ops.fmhactl.attention.default(q, k, v, causal=causal), plain),
        "fmhactl-general": (lambda: torch.ops.fmhactl.attention.default(q, k, v, causal=causal), plain),
    }

    if cfg.seq_q <= DECODE_MAX_SEQ_Q and cfg.seq_k >= 2:
        calls["fmhactl-new-length"] = (new_length_calls(q, k, v, causal), plain)
    sdpa_causal = sdpa_is_causal(cfg)

    def sdpa():
        return F.scaled_dot_product_attention(q, k, v, is_causal=sdpa_causal, enable_gqa=gqa)

    for name, backend in (("sdpa", None), ("sdpa-cudnn", SDPBackend.CUDNN_ATTENTION),
                          ("sdpa-flash", SDPBackend.FLASH_ATTENTION)):
        if isinstance(sdpa_causal, str):
            calls[name] = sdpa_causal
            continue
        context = plain if backend is None else (lambda b=backend: sdpa_kernel(b))
        try:
            with context():
                sdpa()
            torch.cuda.synchronize()
            calls[name] = (sdpa, context)
        except RuntimeError as exc:
            calls[name] = str(exc).splitlines()[0][:200]
    return calls


def new_length_calls(q, k, v, causal: bool) -> Callable[[], object]:
    """The op on a decode step whose KV length changes on every call (s, s-1, s, ...: views of
    one cache), as a growing cache does: its host cost includes whatever a new length costs (the
    family plan's in-place refresh, fmhactl.torch.kv_length, or the split kernel's plan)."""
    import fmhactl.torch as ft

    pairs = ((k, v), (k[:, :, :-1], v[:, :, :-1]))
    step = [0]

    def call():
        step[0] ^= 1
        kk, vv = pairs[step[0]]
        return ft.attention(q, kk, vv, causal=causal)

    return call


def back_to_back(call: Callable[[], object], iters: int, rounds: int) -> dict:
    """host_us (enqueue time) and per_call_us (CUDA events) per call of `iters` calls in a row,
    medians over `rounds`."""
    import torch

    host, per_call = [], []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        start.record()
        for _ in range(iters):
            call()
        end.record()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        host.append((t1 - t0) * 1e6 / iters)
        per_call.append(start.elapsed_time(end) * 1e3 / iters)
    return {"host_us": statistics.median(host), "per_call_us": statistics.median(per_call)}


def measure_interleaved(calls: dict[str, tuple[Callable[[], object], Callable]], iters: int, rounds: int,
                        do_bench: Callable[[Callable[[], object]], float] | None = None,
                        timer: Callable[[Callable[[], object], int, int], dict] = back_to_back) -> dict[str, dict]:
    """name -> host_us and per_call_us (medians over `rounds`), and do_bench_us where do_bench is given.

    calls: name -> (zero-argument call, context it runs in). Each is warmed up in its context; then
    each round times every implementation once (timer(call, iters, 1), its context entered around
    that measurement only), the order reversed every other round; do_bench(call) (µs) runs after
    the rounds, in the implementation's context."""
    from fmhactl.bench.interleave import interleaved_order

    names = list(calls)
    for name in names:
        call, context = calls[name]
        with context():
            for _ in range(max(3, iters // 10)):
                call()
    samples: dict[str, list[dict]] = {name: [] for name in names}
    for name in interleaved_order(names, rounds):
        call, context = calls[name]
        with context():
            samples[name].append(timer(call, iters, 1))
    results = {name: {measure: statistics.median(s[measure] for s in samples[name])
                      for measure in ("host_us", "per_call_us")} for name in names}
    if do_bench is not None:
        for name in names:
            call, context = calls[name]
            with context():
                results[name]["do_bench_us"] = do_bench(call)
    return results


def _triton_do_bench(call: Callable[[], object]) -> float:
    """triton.testing.do_bench's median in µs (L2 flushed between calls)."""
    from triton.testing import do_bench

    return float(do_bench(call, warmup=25, rep=100, return_mode="median")) * 1e3


def _with_fastpath(name: str, context: Callable, fastpath) -> Callable:
    """The context an implementation is measured in: its own (sdpa_kernel for pinned SDPA
    backends), with the op's cached path off for fmhactl-general and on again after."""
    import contextlib

    if fastpath is None:
        return context

    @contextlib.contextmanager
    def entered():
        fastpath.set_enabled(name != "fmhactl-general")
        try:
            with context():
                yield
        finally:
            fastpath.set_enabled(True)

    return entered


def checked_counts_and_cuda(bench: str, iters: int, rounds: int):
    """torch, once --iters and rounds are in range and a CUDA GPU is there (bad input first)."""
    if not 1 <= iters <= MAX_ITERS:
        raise BadInput(f"--iters must be in 1..{MAX_ITERS}, got {iters}")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise BadInput(f"rounds must be in 1..{MAX_ROUNDS}, got {rounds}")
    import torch

    if not torch.cuda.is_available():
        raise MissingEnvironment(f"{bench} needs a CUDA GPU")
    return torch


def random_qkv(cfg: AttnConfig, gen) -> tuple:
    """Fresh normal q, k, v of cfg, heads-first (SDPA's layout), on the GPU."""
    import torch

    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[cfg.dtype]

    def draw(heads: int, seq: int):
        return torch.randn(cfg.batch, heads, seq, cfg.head_dim, generator=gen, device="cuda").to(dtype)

    return draw(cfg.heads, cfg.seq_q), draw(cfg.heads_kv, cfg.seq_k), draw(cfg.heads_kv, cfg.seq_k)


def run_overhead(shapes: Sequence[str] = (), *, iters: int = 50, rounds: int = 7, seed: int = 0) -> dict:
    """Host µs per call and per-call µs of the op and SDPA at each shape, measured in this process."""
    configs = parse_shapes(shapes)
    torch = checked_counts_and_cuda("the overhead bench", iters, rounds)
    import fmhactl.torch as ft

    try:
        from fmhactl.torch import fastpath
    except ImportError:  # a tree from before the cached path (the device script times one for "before")
        fastpath = None

    try:
        import triton.testing  # noqa: F401
        with_do_bench = True
    except ImportError:
        with_do_bench = False
    gen = torch.Generator(device="cuda").manual_seed(seed)
    rows = []
    for cfg in configs:
        q, k, v = random_qkv(cfg, gen)
        if cfg.kv_shared:
            v = k
        features = feature_kwargs(cfg, seed)
        backend = ft.backend_for(q, k, v, causal=cfg.causal, **features)
        calls = _callables(cfg, q, k, v, features)
        if fastpath is None:
            calls["fmhactl-general"] = "this tree has no cached path to turn off"
        timed = measure_interleaved({name: (call[0], _with_fastpath(name, call[1], fastpath))
                                     for name, call in calls.items() if not isinstance(call, str)},
                                    iters, rounds, _triton_do_bench if with_do_bench else None)
        impls = {name: {"skipped": call} if isinstance(call, str) else timed[name] for name, call in calls.items()}
        row = {"shape": cfg.key, "backend": str(backend), "impls": impls, "ratios": _ratios(impls)}
        if isinstance(calls.get("sdpa"), tuple):
            with torch.no_grad():
                diff = (ft.attention(q, k, v, causal=cfg.causal).float() - calls["sdpa"][0]().float()).abs().max()
            row["max_abs_diff_vs_sdpa"] = float(diff.item())
        rows.append(row)
    return {"kind": "overhead", "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "iters": iters,
            "rounds": rounds, "order": "interleaved", "do_bench": with_do_bench,
            "fastpath": fastpath.status() if fastpath else None, "rows": rows}


def _ratios(impls: dict[str, dict]) -> dict[str, float]:
    """op / baseline for every measure both have (below 1: the op costs less)."""
    ratios = {}
    for op in OP_IMPLS:
        for base in SDPA_IMPLS:
            a, b = impls.get(op, {}), impls.get(base, {})
            for measure in ("host_us", "per_call_us", "do_bench_us"):
                if measure in a and measure in b and b[measure] > 0:
                    ratios[f"{op}/{base} {measure}"] = a[measure] / b[measure]
    return ratios
