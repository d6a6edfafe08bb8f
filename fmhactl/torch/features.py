"""The op's attention features (docs/features.md): window, sinks, top-k lists, K = V, key ranges.

`Features` is what one call asks for; `check_features` holds the O(1) rules (shapes, dtypes,
devices: the fake implementation runs them too); `check_values` the host checks of the values
(`check_sinks`, `check_topk`, `check_key_ranges`: they read the tensors, so the eager wrapper runs them, never a
compiled graph or a CUDA-graph capture); `fallback` computes a call no kernel covers with the
independent torch reference (fp32 math), so such a call is slow, never silently wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from fmhactl.config import INT32_MAX, MAX_TOPK, UNBOUNDED
from fmhactl.torch.inputs import Problem, fail, to_bshd


@dataclass(frozen=True)
class Features:
    window_left: int = UNBOUNDED
    window_right: int = UNBOUNDED
    sinks: torch.Tensor | None = None  # fp32 (heads,)
    topk_idx: torch.Tensor | None = None  # int32 (batch, seq_q, heads_kv, topk)
    kv_shared: bool = False
    key_ranges: torch.Tensor | None = None  # int32 (batch, 2): [start, end) of each batch row's keys

    @property
    def any(self) -> bool:
        return (self.window_left != UNBOUNDED or self.window_right != UNBOUNDED or self.sinks is not None
                or self.topk_idx is not None or self.kv_shared or self.key_ranges is not None)

    @property
    def topk(self) -> int:
        return 0 if self.topk_idx is None else int(self.topk_idx.shape[-1])


NONE = Features()


def resolve_window(window, window_left: int, window_right: int) -> tuple[int, int]:
    """(left, right) from `window=(left, right)` or the two keywords (not both)."""
    if window is None:
        return int(window_left), int(window_right)
    if window_left != UNBOUNDED or window_right != UNBOUNDED:
        fail("give window=(left, right) or window_left/window_right, not both")
    try:
        left, right = window
        return int(left), int(right)
    except (TypeError, ValueError):
        fail(f"window must be a pair (left, right) of ints (-1 unbounded), got {window!r}")
        raise  # unreachable


def make(k: torch.Tensor, v: torch.Tensor, window_left: int, window_right: int, sinks, topk_idx,
         kv_shared: bool, key_ranges=None) -> Features:
    """The call's features; K = V when asked or when v is k and another feature is on (the plain
    path keeps its kernels: a plain call with v is k is not changed)."""
    f = Features(int(window_left), int(window_right), sinks, topk_idx, bool(kv_shared), key_ranges)
    if not kv_shared and v is k and f.any:
        f = Features(f.window_left, f.window_right, sinks, topk_idx, True, key_ranges)
    return f


def check_features(f: Features, p: Problem, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
                   layout: str) -> None:
    """O(1) rules of docs/features.md on shapes, dtypes and devices (one AttentionInputError line)."""
    for name, value in (("window_left", f.window_left), ("window_right", f.window_right)):
        if not UNBOUNDED <= value <= INT32_MAX:  # the kernels' window fields are int32
            fail(f"{name} must be -1 (unbounded) or from 0 to {INT32_MAX}, got {value}")
    if causal and f.window_right > 0:
        fail(f"window_right {f.window_right} contradicts causal (causal is window_right=0)")
    if f.sinks is not None:
        s = f.sinks
        if s.dtype != torch.float32 or tuple(s.shape) != (p.heads,):
            fail(f"sinks must be float32 of shape ({p.heads},) (one logit per query head), got "
                 f"{str(s.dtype).removeprefix('torch.')} {tuple(s.shape)}")
        if s.device != q.device:
            fail(f"sinks are on {s.device}, q on {q.device}")
    if f.topk_idx is not None:
        t = f.topk_idx
        want = (p.batch, p.seq_q, p.heads_kv)
        if t.dtype != torch.int32 or t.dim() != 4 or tuple(t.shape[:3]) != want:
            fail(f"topk_idx must be int32 (batch, seq_q, heads_kv, topk) = ({', '.join(map(str, want))}, topk), got "
                 f"{str(t.dtype).removeprefix('torch.')} {tuple(t.shape)}")
        if not 1 <= t.shape[-1] <= MAX_TOPK:
            fail(f"topk_idx lists must hold 1..{MAX_TOPK} entries, got {t.shape[-1]}")
        if t.device != q.device:
            fail(f"topk_idx is on {t.device}, q on {q.device}")
    if f.key_ranges is not None:
        r = f.key_ranges
        if r.dtype != torch.int32 or tuple(r.shape) != (p.batch, 2):
            fail(f"key_ranges must be int32 of shape ({p.batch}, 2) ([start, end) per batch row), got "
                 f"{str(r.dtype).removeprefix('torch.')} {tuple(r.shape)}")
        if r.device != q.device:
            fail(f"key_ranges are on {r.device}, q on {q.device}")
    if f.kv_shared and (k.shape != v.shape or k.dtype != v.dtype):
        fail(f"kv_shared=True needs v shaped like k (V is read from K): k {tuple(k.shape)}, v {tuple(v.shape)}")


def check_one_buffer(f: Features, k: torch.Tensor, v: torch.Tensor) -> None:
    """The eager wrapper's check that K = V is really one buffer. The op itself reads V from K
    under kv_shared and checks shapes only: opcheck and functionalisation hand it copies."""
    if f.kv_shared and not _one_buffer(k, v):
        fail("kv_shared=True needs v to be k (one buffer: pass the same tensor)")


def _one_buffer(k: torch.Tensor, v: torch.Tensor) -> bool:
    if v is k:
        return True
    if k.shape != v.shape or k.stride() != v.stride():
        return False
    try:
        return k.data_ptr() == v.data_ptr()
    except RuntimeError:  # fake and meta tensors have no address: the shapes are all it can check
        return True


def check_values(f: Features, p: Problem) -> None:
    """The host's value checks (they read the tensors): a sink NaN/+inf, an index outside
    [-1, seq_k), a key range outside 0 <= start <= end <= seq_k. A kernel given such a value skips
    it (a key range is clamped to the keys), the fallback too (docs/features.md)."""
    from fmhactl.config import AttnConfig
    from fmhactl.errors import BadInput
    from fmhactl.runtime.features import check_key_ranges, check_sinks, check_topk

    try:
        if f.sinks is not None:
            check_sinks(f.sinks, p.heads)
        if f.key_ranges is not None:
            check_key_ranges(f.key_ranges, p.batch, p.seq_k)
        if f.topk_idx is not None:
            cfg = AttnConfig(batch=p.batch, heads=p.heads, heads_kv=p.heads_kv, seq_q=max(p.seq_q, 1),
                             seq_k=p.seq_k, head_dim=p.head_dim, topk=f.topk)
            if p.seq_q:
                check_topk(f.topk_idx, cfg)
    except BadInput as exc:
        fail(str(exc))


def fallback(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, f: Features, causal: bool, scale: float | None,
             layout: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(out bshd in q's dtype, lse fp32 (batch, heads, seq_q)) by the torch reference, fp32 math."""
    from fmhactl.verify.reference import attention as reference

    qb, kb = to_bshd(q, layout), to_bshd(k, layout)
    vb = kb if f.kv_shared else to_bshd(v, layout)
    out, lse = reference(qb, kb, vb, causal=causal, scale=scale if scale is not None else 1.0 / math.sqrt(q.shape[-1]),
                         compute_dtype=torch.float32, window_left=f.window_left, window_right=f.window_right,
                         sinks=f.sinks, topk_idx=f.topk_idx, key_ranges=f.key_ranges)
    return out.to(q.dtype), lse.float()
