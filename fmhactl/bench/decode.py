"""Decode attention beside cuDNN and flash SDPA, measured in one process (`fmhactl bench --decode`).

For each shape (T = 1..16 query tokens against a KV cache of s keys) every implementation runs:
* kernel_us: CUDA events around one call after the L2 cache was flushed (a 256 MiB write), the
  median of `rounds` calls: the GPU time of a decode step that reads its KV cache from HBM;
* per_call_us: CUDA events around `iters` back-to-back calls / iters: what a model's step pays
  when the host enqueues (the larger of host and GPU time; the cache may sit in L2 here);
* hbm_gb_s: bytes that must move (K + V + Q + O) / kernel_us.
A row the decode kernels serve also says what they launched (`decode_launch`: the plain split or
the cluster kernel, its splits, keys a split, grid and how the splits merge; decode.describe_launch).
Implementations: the op as models call it (`fmhactl.torch.attention`: the split-KV decode kernels
where fmhactl.torch.decode serves the call), the op with the decode kernels off
(`fmhactl-no-split`: the prefill family, what such calls ran before), the op with the splits
merged by a second launch (`fmhactl-combine-launch`; the default merges inside the split launch),
SDPA pinned to cuDNN and to
flash, with enable_gqa for GQA shapes; a backend that refuses enable_gqa runs on K/V repeated to every query head (it
then reads more bytes; the row says so), one that refuses the shape is reported with the reason; the peer libraries
FA4 and FlashInfer (its decode wrapper at t = 1) where installed (fmhactl/bench/peers.py: inputs laid out
(batch, seq, heads, dim) once, output checked against the reference once, else skipped with the reason).
A causal shape is taken where SDPA can state the same math (bench/overhead.py sdpa_is_causal, the
one rule both benches use): at T = 1 the op's causal query sees every key, which is SDPA without a
mask (how transformers calls it for a decode step); T = s (a cache of at most 16 keys) is SDPA's
is_causal. Other causal T > 1 shapes are refused: SDPA's is_causal is top-left aligned, the op's
bottom-right. Timing lives here, never in tests.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Sequence

from fmhactl.bench.overhead import back_to_back, checked_counts_and_cuda, parse_shape_list, random_qkv, sdpa_is_causal
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput

SCHEMA_VERSION = 1
DEFAULT_SHAPES = tuple(
    f"b=1,h={h},hkv={hkv},t={t},s={s},d={d}"
    for d, h, hkv in ((128, 32, 8), (64, 16, 4))
    for t in (1, 4, 16)
    for s in (2048, 8192, 32768)
) + ("b=8,h=32,hkv=8,t=1,s=8192,d=128", "b=1,h=32,hkv=32,t=1,s=8192,d=128")
MAX_SHAPES = 64
MAX_SEQ_Q = 16
MAX_KV_ELEMENTS = 1 << 30  # per K or V tensor (2 GiB in bf16)
FLUSH_BYTES = 256 << 20
IMPLS = ("fmhactl", "sdpa-cudnn", "sdpa-flash", "fmhactl-no-split", "fmhactl-combine-launch", "fa4", "flashinfer")


def parse_decode_shapes(texts: Sequence[str]) -> list[AttnConfig]:
    """--shape values (default: DEFAULT_SHAPES), checked before any GPU work."""
    configs = parse_shape_list(texts, DEFAULT_SHAPES, MAX_SHAPES)
    for cfg in configs:
        if cfg.seq_q > MAX_SEQ_Q:
            raise BadInput(f"--shape {cfg.key}: t={cfg.seq_q}; the decode bench takes t <= {MAX_SEQ_Q}")
        reason = sdpa_is_causal(cfg)
        if isinstance(reason, str):
            raise BadInput(f"--shape {cfg.key}: {reason}")
        if cfg.batch * cfg.heads_kv * cfg.seq_k * cfg.head_dim > MAX_KV_ELEMENTS:
            raise BadInput(f"--shape {cfg.key}: over {MAX_KV_ELEMENTS} elements per K/V tensor")
    return configs


def moved_bytes(cfg: AttnConfig, kv_heads: int | None = None) -> int:
    """Bytes a decode step must move: K and V once, Q read, O written (2-byte elements)."""
    kv_heads = cfg.heads_kv if kv_heads is None else kv_heads
    kv = 2 * cfg.batch * kv_heads * cfg.seq_k * cfg.head_dim
    qo = 2 * cfg.batch * cfg.heads * cfg.seq_q * cfg.head_dim
    return 2 * (kv + qo)


def _sdpa_calls(cfg: AttnConfig, q, k, v) -> dict[str, tuple | str]:
    """name -> (call, context, kv heads it reads) or why it cannot run this shape; is_causal where
    it means the op's causal math (sdpa_is_causal; parse_decode_shapes refused the rest)."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    gqa = cfg.heads != cfg.heads_kv
    causal = sdpa_is_causal(cfg) is True
    calls: dict[str, tuple | str] = {}
    for name, backend in (("sdpa-cudnn", SDPBackend.CUDNN_ATTENTION), ("sdpa-flash", SDPBackend.FLASH_ATTENTION)):
        def context(b=backend):
            return sdpa_kernel(b)

        tries = [(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa), cfg.heads_kv)]
        if gqa:
            group = cfg.heads // cfg.heads_kv
            kr, vr = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
            tries.append((lambda kr=kr, vr=vr: F.scaled_dot_product_attention(q, kr, vr, is_causal=causal), cfg.heads))
        reasons = []
        for call, kv_heads in tries:
            try:
                with context():
                    call()
                torch.cuda.synchronize()
            except RuntimeError as exc:
                reasons.append(str(exc).splitlines()[0][:160])
                continue
            calls[name] = (call, context, kv_heads)
            break
        else:
            calls[name] = "; ".join(reasons)
    return calls


def _peer_calls(cfg: AttnConfig, q, k, v) -> dict[str, tuple | str]:
    """FA4 and FlashInfer (bench/peers.py) on the step's heads-first inputs copied once to
    (batch, seq, heads, dim): name -> (call returning O heads-first, context, kv heads it reads)
    or why it cannot run the shape (not installed, refused, or a wrong output)."""
    from fmhactl.bench.peers import PEER_BASELINES, PeerUnavailable, checked, one_line

    laid = [t.transpose(1, 2).contiguous() for t in (q, k, v)]
    calls: dict[str, tuple | str] = {}
    for name in PEER_BASELINES:
        try:
            peer = checked(name, cfg, *laid)
        except Exception as exc:  # PeerUnavailable's line, or whatever else went wrong, in one line
            calls[name] = str(exc) if isinstance(exc, PeerUnavailable) else one_line(exc)
            continue
        args = peer.inputs(*laid)
        calls[name] = (lambda p=peer, a=args: p(*a).transpose(1, 2), contextlib.nullcontext, cfg.heads_kv)
    return calls


@contextlib.contextmanager
def _combine_launch():
    """The op with the splits merged by a second launch instead of inside the split launch."""
    from fmhactl.torch import decode

    decode.set_fused_combine(False)
    try:
        yield
    finally:
        decode.set_fused_combine(True)


@contextlib.contextmanager
def _decode_off():
    """The op without its decode kernels: what small-T calls ran before (the prefill family)."""
    from fmhactl.torch import decode

    decode.set_enabled(False)
    try:
        yield
    finally:
        decode.set_enabled(True)


def flushed_kernel_us(call, rounds: int, flush, warmup: int = 5) -> float:
    """Median µs of `rounds` single calls, CUDA events around each, the L2 flushed (a write of
    `flush`) before each: the GPU time of a call that reads its inputs from HBM."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    kernel = []
    for _ in range(warmup):
        call()
    for _ in range(rounds):
        flush.zero_()
        start.record()
        call()
        end.record()
        torch.cuda.synchronize()
        kernel.append(start.elapsed_time(end) * 1e3)
    return statistics.median(kernel)


def _measure(call, context, iters: int, rounds: int, flush) -> dict:
    """kernel_us: flushed_kernel_us; then back_to_back's measures."""
    with context():
        return {"kernel_us": flushed_kernel_us(call, rounds, flush), **back_to_back(call, iters, 5)}


def run_decode_bench(shapes: Sequence[str] = (), *, rounds: int = 30, iters: int = 50, seed: int = 0) -> dict:
    """Kernel µs, per-call µs and HBM GB/s of the op's decode path, cuDNN and flash at each shape."""
    configs = parse_decode_shapes(shapes)
    torch = checked_counts_and_cuda("the decode bench", iters, rounds)

    import fmhactl.torch as ft
    from fmhactl.torch import decode

    gen = torch.Generator(device="cuda").manual_seed(seed)
    flush = torch.empty(FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    rows = []
    for cfg in configs:
        q, k, v = random_qkv(cfg, gen)
        served_before = decode.launches()
        causal = cfg.causal
        with torch.no_grad():
            ours = ft.attention(q, k, v, causal=causal)
        torch.cuda.synchronize()
        row: dict = {"shape": cfg.key, "decode_path": decode.launches() > served_before,
                     "backend": "fmhactl decode split-KV" if decode.launches() > served_before
                     else str(ft.backend_for(q, k, v, causal=causal)), "impls": {}}
        if row["decode_path"]:  # which decode kernel, how many splits, how they merge
            row["decode_launch"] = decode.describe_launch(q, k, causal)
        calls: dict[str, tuple | str] = {
            "fmhactl": (lambda: ft.attention(q, k, v, causal=causal), contextlib.nullcontext, cfg.heads_kv),
            "fmhactl-no-split": (lambda: ft.attention(q, k, v, causal=causal), _decode_off, cfg.heads_kv),
            "fmhactl-combine-launch": (lambda: ft.attention(q, k, v, causal=causal), _combine_launch, cfg.heads_kv),
        }
        calls.update(_sdpa_calls(cfg, q, k, v))
        calls.update(_peer_calls(cfg, q, k, v))
        for name, call in calls.items():
            if isinstance(call, str):
                row["impls"][name] = {"skipped": call}
                continue
            fn, context, kv_heads = call
            result = _measure(fn, context, iters, rounds, flush)
            result["hbm_gb_s"] = moved_bytes(cfg, kv_heads) / (result["kernel_us"] * 1e3)
            if kv_heads != cfg.heads_kv:
                result["note"] = "K/V repeated to every query head (this backend refused enable_gqa)"
            row["impls"][name] = result
            if name != "fmhactl":
                with torch.no_grad(), context():
                    row[f"max_abs_diff_vs_{name}"] = float((ours.float() - fn().float()).abs().max().item())
        row["speed"] = _speeds(row["impls"])
        rows.append(row)
    return {"schema_version": SCHEMA_VERSION, "kind": "decode-bench", "gpu": torch.cuda.get_device_name(),
            "torch": torch.__version__, "rounds": rounds, "iters": iters, "bytes_model": "K+V+Q+O, 2 B/element",
            "rows": rows}


def _speeds(impls: dict[str, dict]) -> dict[str, float]:
    """baseline time / op time for each measure both have (above 1: the op is faster)."""
    speeds = {}
    ours = impls.get("fmhactl", {})
    for base in IMPLS[1:]:
        theirs = impls.get(base, {})
        for measure in ("kernel_us", "per_call_us"):
            if measure in ours and measure in theirs and ours[measure] > 0:
                speeds[f"{base}/fmhactl {measure}"] = theirs[measure] / ours[measure]
    return speeds
