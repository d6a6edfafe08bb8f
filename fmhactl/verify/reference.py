"""Independent attention reference in torch: explicit masks, no code shared with any kernel."""

from __future__ import annotations

import math


def _heads_first(x, heads: int):
    """(batch, seq, heads_x, dim) -> (batch, heads, seq, dim), kv heads repeated for GQA/MQA."""
    x = x.permute(0, 2, 1, 3)
    if x.shape[1] != heads:
        x = x.repeat_interleave(heads // x.shape[1], dim=1)
    return x


def visibility_mask(seq_q: int, seq_k: int, causal: bool, device):
    """True where query i may attend key j; causal is bottom-right aligned as in FlashAttention."""
    import torch

    if not causal:
        return torch.ones(seq_q, seq_k, dtype=torch.bool, device=device)
    rows = torch.arange(seq_q, device=device).unsqueeze(1)
    cols = torch.arange(seq_k, device=device).unsqueeze(0)
    return cols <= rows + (seq_k - seq_q)


def attention(q, k, v, *, causal: bool, scale: float | None = None, compute_dtype=None):
    """O (batch, seq_q, heads, dim) and LSE (batch, heads, seq_q) with all math in compute_dtype.

    Rows that see no key give O = 0 and LSE = -inf.
    """
    import torch

    heads = q.shape[2]
    dtype = compute_dtype or q.dtype
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    qh = _heads_first(q, heads).to(dtype)
    kh = _heads_first(k, heads).to(dtype)
    vh = _heads_first(v, heads).to(dtype)
    scores = torch.matmul(qh, kh.transpose(-1, -2)) * scale
    mask = visibility_mask(q.shape[1], k.shape[1], causal, q.device)
    scores = scores.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    probs = torch.softmax(scores, dim=-1)
    probs = torch.nan_to_num(probs, nan=0.0)  # fully masked rows
    out = torch.matmul(probs, vh)
    return out.permute(0, 2, 1, 3), lse
