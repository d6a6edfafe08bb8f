"""Merge attention results of disjoint KV segments through their LSE (FlashAttention's split-KV
combine, FlashInfer's merge_state): with L = logsumexp_i(lse_i),

    lse = L,   out = sum_i exp(lse_i - L) * out_i

which is attention over the union of the segments, for every mask and sink rule of
docs/features.md (a sink belongs to exactly one segment, or its LSE would count it twice).
A row no segment saw (every lse_i = -inf) gives out 0 and lse -inf.
"""

from __future__ import annotations

from collections.abc import Sequence

from fmhactl.errors import BadInput

MAX_SEGMENTS = 4096


def check_segments(outs: Sequence, lses: Sequence) -> None:
    """One BadInput line for the first rule broken: matching counts and shapes, out (b, t, h, d)
    floating, lse fp32 (b, h, t) with no NaN and no +inf, out finite."""
    import torch

    if len(outs) != len(lses):
        raise BadInput(f"merge: {len(outs)} outputs but {len(lses)} LSEs: give one LSE per segment")
    if not outs:
        raise BadInput("merge: no segments given (at least one)")
    if len(outs) > MAX_SEGMENTS:
        raise BadInput(f"merge: {len(outs)} segments; at most {MAX_SEGMENTS}")
    first = outs[0]
    for i, (out, lse) in enumerate(zip(outs, lses)):
        if not isinstance(out, torch.Tensor) or not isinstance(lse, torch.Tensor):
            raise BadInput(f"merge: segment {i}: out and lse must be tensors")
        if out.layout != torch.strided or lse.layout != torch.strided:  # sparse: the checks below cannot run
            raise BadInput(f"merge: segment {i}: out and lse must be dense tensors, got {out.layout} and {lse.layout}")
        if out.dim() != 4 or not out.is_floating_point():
            raise BadInput(f"merge: segment {i}: out must be a floating tensor (batch, seq_q, heads, dim), "
                           f"got {str(out.dtype).removeprefix('torch.')} {tuple(out.shape)}")
        if out.shape != first.shape or out.dtype != first.dtype or out.device != first.device:
            raise BadInput(f"merge: segment {i}: out {tuple(out.shape)} {str(out.dtype).removeprefix('torch.')} "
                           f"differs from segment 0's {tuple(first.shape)} {str(first.dtype).removeprefix('torch.')}")
        b, t, h, _ = out.shape
        if lse.dtype != torch.float32 or tuple(lse.shape) != (b, h, t) or lse.device != out.device:
            raise BadInput(f"merge: segment {i}: lse must be float32 (batch, heads, seq_q) = {(b, h, t)} on "
                           f"out's device, got {str(lse.dtype).removeprefix('torch.')} {tuple(lse.shape)}")
        bad = torch.isnan(lse) | torch.isposinf(lse)
        if bool(bad.any()):
            bb, hh, tt = (int(x) for x in bad.nonzero()[0])
            raise BadInput(f"merge: segment {i}: lse[{bb},{hh},{tt}] is {float(lse[bb, hh, tt])}: an LSE must be "
                           "finite or -inf (a row that saw no key)")
        if not bool(torch.isfinite(out).all()):
            raise BadInput(f"merge: segment {i}: out holds NaN or Inf")


def merge_by_lse(outs: Sequence, lses: Sequence, check: bool = True):
    """(out, lse) of the union of the segments; math in fp32, out in the segments' dtype.
    check=False skips check_segments (it reads the LSEs back: a device sync), for a model's inner
    loop whose segments come from the op."""
    import torch

    if check:
        check_segments(outs, lses)
    stacked = torch.stack(list(lses))  # (n, b, h, t)
    top = stacked.max(dim=0).values
    top = torch.where(torch.isneginf(top), torch.zeros_like(top), top)  # rows nobody saw: weights 0
    weights = torch.exp(stacked - top)  # exp(-inf) = 0 for a segment that saw nothing of a row
    total = weights.sum(dim=0)
    lse = top + torch.log(total)  # log 0 = -inf: the row saw no key anywhere
    share = torch.where(total > 0, weights / total.clamp_min(torch.finfo(torch.float32).tiny),
                        torch.zeros_like(weights))
    share = share.permute(0, 1, 3, 2).unsqueeze(-1)  # (n, b, t, h, 1)
    out = (share * torch.stack([o.float() for o in outs])).sum(dim=0)
    return out.to(outs[0].dtype), lse
