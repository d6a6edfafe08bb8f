"""The op's input rules and kernel choice, shared by the dispatcher path and the cached launch path.

Every rule here runs once per distinct call signature on the fast path (fmhactl.torch.fastpath
caches the outcome), and on every call of the general path and of the fake implementation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.torch import backends
from fmhactl.torch import launch as _launch

LAYOUTS = ("bhsd", "bshd")
DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
HEAD_DIM_MULTIPLE, MAX_HEAD_DIM = 8, 512


class AttentionInputError(BadInput, ValueError):
    """A call the op cannot serve; the message is one line naming the input and the rule."""


@dataclass(frozen=True)
class Problem:
    batch: int
    heads: int
    heads_kv: int
    seq_q: int
    seq_k: int
    head_dim: int


def fail(message: str) -> None:
    raise AttentionInputError(f"fmhactl.attention: {message}")


def host_reads_allowed(q: torch.Tensor) -> bool:
    """Whether an input's values may be read back to the host (a device sync) to check them:
    eagerly only, never while compiling or capturing a CUDA graph, nor of meta tensors (no values)."""
    if torch.compiler.is_compiling() or q.device.type == "meta":
        return False
    return not (q.is_cuda and torch.cuda.is_current_stream_capturing())


def to_bshd(t: torch.Tensor, layout: str) -> torch.Tensor:
    return t.transpose(1, 2) if layout == "bhsd" else t


def check_inputs(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layout: str, scale: float | None) -> Problem:
    """Shape, dtype and device rules every backend shares (the fake implementation runs them too)."""
    if layout not in LAYOUTS:
        fail(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            fail(f"{name} must be 4-D ({'batch, heads, seq, dim' if layout == 'bhsd' else 'batch, seq, heads, dim'}),"
                 f" got shape {tuple(t.shape)}")
        if t.dtype not in DTYPES:
            fail(f"{name} has dtype {t.dtype}; supported: torch.bfloat16, torch.float16")
        if t.device.type not in ("cuda", "meta"):
            fail(f"{name} is on {t.device}; the kernels need CUDA tensors")
    if not (q.dtype == k.dtype == v.dtype):
        fail(f"q, k, v must share one dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if not (q.device == k.device == v.device):
        fail(f"q, k, v must be on one device, got {q.device}, {k.device}, {v.device}")
    b, sq, h, d = to_bshd(q, layout).shape
    kb, sk, hkv, kd = to_bshd(k, layout).shape
    if tuple(k.shape) != tuple(v.shape):
        fail(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    if kb != b:
        fail(f"batch of k/v ({kb}) differs from q's ({b})")
    if kd != d:
        fail(f"head dim of k/v ({kd}) differs from q's ({d})")
    if d % HEAD_DIM_MULTIPLE or d > MAX_HEAD_DIM or d <= 0:
        fail(f"head dim {d} not supported (multiples of {HEAD_DIM_MULTIPLE} up to {MAX_HEAD_DIM})")
    if hkv <= 0 or h % hkv:
        fail(f"q heads ({h}) must be a multiple of k/v heads ({hkv})")
    if sk <= 0:
        fail("k/v have no keys (seq_k = 0)")
    if scale is not None and not (math.isfinite(scale) and scale > 0):
        fail(f"scale must be a positive finite number, got {scale!r}")
    return Problem(b, h, hkv, sq, sk, d)


def config_of(p: Problem, dtype: torch.dtype, causal: bool, features=None) -> AttnConfig:
    """The call as an AttnConfig; features (fmhactl.torch.features.Features) adds window, sink,
    top-k, K = V and key ranges."""
    extra = {}
    if features is not None and features.any:
        extra = dict(window_left=features.window_left, window_right=features.window_right,
                     sink=features.sinks is not None, topk=features.topk, kv_shared=features.kv_shared,
                     key_ranges=features.key_ranges is not None)
    return AttnConfig(batch=p.batch, heads=p.heads, heads_kv=p.heads_kv, seq_q=max(p.seq_q, 1), seq_k=p.seq_k,
                      head_dim=p.head_dim, dtype=DTYPES[dtype], causal=bool(causal), **extra)


def capability(device: torch.device) -> tuple[int, int]:
    from fmhactl.runtime.device import torch_device_capability  # the one GPU probe, cached per device

    index = device.index if device.index is not None else torch.cuda.current_device()
    return torch_device_capability(index)


def choose_backend(q: torch.Tensor, p: Problem, causal: bool, features=None) -> backends.Backend:
    """The kernel for a checked call on q's GPU (the override included); one line if none can run it.
    A call with features no kernel covers gets the torch fallback (backends.FALLBACK)."""
    if q.device.type != "cuda":
        fail(f"q is on {q.device}; the kernels need CUDA tensors")
    try:
        return backends.choose(capability(q.device), config_of(p, q.dtype, causal, features), _launch.registry(),
                               backends.current_override())
    except backends.NoBackend as exc:
        fail(str(exc))
        raise  # unreachable: fail raises
