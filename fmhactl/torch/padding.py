"""Head-dim padding: a call whose head dim no native kernel takes runs at a wider one that a kernel does.

Where the kernel's TMA loads zero-fill the missing columns (backends.Backend.tma_fill), nothing
here runs: the wider kernel gets tensor maps over the caller's tensors. This module is the copy
padding every other padded call takes (decode kernels, gather kernels, rows that can see no key).

`fmhactl.torch.backends.choose` decides it (Backend.padded_head_dim: the smallest head dim a
native variant serves for the call, features included). Here q, k and v are zero-padded to that
head dim (one `torch.nn.functional.pad` each, in the bshd layout the kernels read), the padded
call runs through the op's usual paths (the cached plan or the decode kernels of the padded head
dim, or the general path), and the first head_dim columns of its output are copied into an output
stored as the op's fake implementation declares it (bshd storage; a transposed view for "bhsd").

Exact: the zero columns add nothing to QK^T, so the scores, the softmax and the LSE are the
unpadded call's, and the output's padded columns are zeros (the dropped ones). The softmax scale
stays the caller's: 1/sqrt of the *unpadded* head dim by default, passed explicitly to the padded
call, whose own default would be 1/sqrt of the padded one.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from fmhactl.torch.inputs import to_bshd

# (q, k, v, scale) in bshd at the padded head dim -> (out bshd at the padded head dim, lse), or
# None where the path running it cannot serve the call (the caller then takes another path).
PaddedRun = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, float],
                     tuple[torch.Tensor, torch.Tensor | None] | None]


_copies = [0]


def copies() -> int:
    """Calls run zero-padded by copies in this process (fastpath.status()["padded_copies"]): a call
    run on a wider kernel through TMA zero fill (backends.Backend.tma_fill) does not count."""
    return _copies[0]


def pad_head_dim(t: torch.Tensor, head_dim: int) -> torch.Tensor:
    """t with zero columns appended to its last (head) dim up to head_dim; one pad kernel."""
    return F.pad(t, (0, head_dim - t.shape[-1]))


def call_scale(scale: float | None, head_dim: int) -> float:
    """The call's softmax scale: the caller's, else 1/sqrt of its own (unpadded) head dim."""
    return scale if scale is not None else 1.0 / math.sqrt(head_dim)


def narrow_output(out: torch.Tensor, head_dim: int, layout: str) -> torch.Tensor:
    """The first head_dim columns of a padded bshd output, copied into (batch, seq, heads, head_dim)
    storage and returned in the caller's layout (the strides _attention_fake declares)."""
    dst = torch.empty((*out.shape[:-1], head_dim), dtype=out.dtype, device=out.device)
    dst.copy_(out[..., :head_dim])
    return dst.transpose(1, 2) if layout == "bhsd" else dst


def run_padded(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, padded_head_dim: int, scale: float | None,
               layout: str, kv_shared: bool, run: PaddedRun) -> tuple[torch.Tensor, torch.Tensor | None] | None:
    """(out in the caller's layout and head dim, lse) of a checked call run at padded_head_dim, or
    None where `run` declines. Under kv_shared V is read from K, and v may be k itself: either way K
    is padded once and passed as V."""
    _copies[0] += 1
    head_dim = q.shape[-1]
    qp = pad_head_dim(to_bshd(q, layout), padded_head_dim)
    kp = pad_head_dim(to_bshd(k, layout), padded_head_dim)
    vp = kp if kv_shared or v is k else pad_head_dim(to_bshd(v, layout), padded_head_dim)
    served = run(qp, kp, vp, call_scale(scale, head_dim))
    if served is None:
        return None
    out, lse = served
    return narrow_output(out, head_dim, layout), lse
