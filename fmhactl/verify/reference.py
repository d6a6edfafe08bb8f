"""Independent attention reference in torch: explicit masks, no code shared with any kernel.

The features follow docs/features.md: a sliding window (left/right of the bottom-right aligned
diagonal), per-head sinks (one extra softmax column that joins the denominator and the LSE, never
the output), top-k index lists (each valid entry is one term, so a duplicate counts twice; -1 and
out-of-range entries are skipped; causal and window still apply), K = V (the caller passes the
same tensor) and per-batch key ranges (batch row b sees only keys [start_b, end_b); positions stay
those of the whole sequence, so causal keeps its bottom-right alignment).
"""

from __future__ import annotations

import math

UNBOUNDED = -1


def visibility_mask(seq_q: int, seq_k: int, causal: bool, device, window_left: int = UNBOUNDED,
                    window_right: int = UNBOUNDED):
    """True where query i may attend key j; causal and the window are bottom-right aligned as in
    FlashAttention: with off = seq_k - seq_q, i + off - window_left <= j <= i + off + window_right
    (-1: unbounded), and causal caps the right side at 0."""
    import torch

    rows = torch.arange(seq_q, device=device).unsqueeze(1)
    cols = torch.arange(seq_k, device=device).unsqueeze(0)
    diagonal = rows + (seq_k - seq_q)
    mask = torch.ones(seq_q, seq_k, dtype=torch.bool, device=device)
    right = 0 if causal else window_right
    if right != UNBOUNDED:
        mask &= cols <= diagonal + right
    if window_left != UNBOUNDED:
        mask &= cols >= diagonal - window_left
    return mask


def key_range_mask(key_ranges, seq_k: int, device):
    """(batch, seq_k) bool: True where batch row b's key j lies in its range [start_b, end_b)
    (key_ranges: int (batch, 2), a padded batch's valid keys)."""
    import torch

    ranges = key_ranges.to(device=device, dtype=torch.long)
    cols = torch.arange(seq_k, device=device)
    return (cols >= ranges[:, :1]) & (cols < ranges[:, 1:])


def topk_counts(topk_idx, seq_k: int, heads: int):
    """(batch, heads, seq_q, seq_k) float: how often each key appears in each row's list, counting
    only entries in [0, seq_k). topk_idx is (batch, seq_q, heads_kv, topk) int32."""
    import torch

    batch, seq_q, heads_kv, _ = topk_idx.shape
    idx = topk_idx.long()
    valid = (idx >= 0) & (idx < seq_k)
    slot = torch.where(valid, idx, torch.full_like(idx, seq_k))  # invalid entries land in a dropped column
    counts = torch.zeros(batch, seq_q, heads_kv, seq_k + 1, dtype=torch.float64, device=idx.device)
    counts.scatter_add_(-1, slot, torch.ones_like(slot, dtype=torch.float64))
    counts = counts[..., :seq_k].permute(0, 2, 1, 3)  # (batch, heads_kv, seq_q, seq_k)
    return counts.repeat_interleave(heads // heads_kv, dim=1)


# Score elements per pass over query rows: long sequences (dsv4-long's T = S = 8k prefill, 64
# heads) are computed in row chunks, so the fp64 scores of a pass stay near 1 GiB.
REF_SCORE_ELEMENTS = 2**27


def attention(q, k, v, *, causal: bool, scale: float | None = None, compute_dtype=None,
              window_left: int = UNBOUNDED, window_right: int = UNBOUNDED, sinks=None, topk_idx=None,
              key_mask=None, key_ranges=None):
    """O (batch, seq_q, heads, dim) and LSE (batch, heads, seq_q) with all math in compute_dtype.

    Rows that see no key give O = 0 and LSE = -inf, or LSE = the head's sink when it has one.
    key_mask: optional bool (seq_k,), the keys of one KV segment (positions stay those of the whole
    sequence, so causal and the window keep their alignment). key_ranges: optional int (batch, 2),
    [start, end) of the keys each batch row sees, likewise aligned. GQA/MQA multiply each KV head with
    its group's query heads stacked (K and V are never repeated per query head: at MQA 128:1 over
    32k keys that copy would not fit); rows are computed in chunks of REF_SCORE_ELEMENTS scores.
    """
    import torch

    batch, seq_q, heads, dim = q.shape
    seq_k, heads_kv = k.shape[1], k.shape[2]
    group = heads // heads_kv
    dtype = compute_dtype or q.dtype
    scale = 1.0 / math.sqrt(dim) if scale is None else scale
    kh = k.permute(0, 2, 1, 3).to(dtype)  # (batch, heads_kv, seq_k, dim)
    vh = v.permute(0, 2, 1, 3).to(dtype)
    mask = visibility_mask(seq_q, seq_k, causal, q.device, window_left, window_right)
    if key_mask is not None:
        mask = mask & key_mask.to(q.device).view(1, -1)
    mask = mask.view(1, 1, seq_q, seq_k)
    if key_ranges is not None:
        mask = mask & key_range_mask(key_ranges, seq_k, q.device).view(batch, 1, 1, seq_k)
    rows = max(1, REF_SCORE_ELEMENTS // (batch * heads * (seq_k + 1)))
    outs, lses = [], []
    for r0 in range(0, seq_q, rows):
        n = min(rows, seq_q - r0)
        # (batch, heads_kv, group * n, dim): query head h = kv * group + g reads KV head kv
        qh = q[:, r0:r0 + n].permute(0, 2, 1, 3).to(dtype).reshape(batch, heads_kv, group * n, dim)
        scores = torch.matmul(qh, kh.transpose(-1, -2)).view(batch, heads, n, seq_k) * scale
        scores = scores.masked_fill(~mask[:, :, r0:r0 + n], float("-inf"))
        if topk_idx is not None:
            # exp(s + log n) = n * exp(s): a key listed n times is n terms; log 0 = -inf masks it.
            scores = scores + topk_counts(topk_idx[:, r0:r0 + n], seq_k, heads).log().to(dtype)
        if sinks is not None:
            column = sinks.to(device=q.device, dtype=dtype).view(1, heads, 1, 1).expand(*scores.shape[:-1], 1)
            scores = torch.cat([scores, column], dim=-1)
        lse = torch.logsumexp(scores, dim=-1)
        probs = torch.softmax(scores, dim=-1)
        probs = torch.nan_to_num(probs, nan=0.0)  # fully masked rows
        if sinks is not None:
            probs = probs[..., :-1]  # the sink joins the denominator only
        out = torch.matmul(probs.reshape(batch, heads_kv, group * n, seq_k), vh).view(batch, heads, n, dim)
        outs.append(out.permute(0, 2, 1, 3))
        lses.append(lse)
    if len(outs) == 1:
        return outs[0], lses[0]
    return torch.cat(outs, dim=1), torch.cat(lses, dim=-1)


def attention_for(cfg, q, k, v, features=None, *, compute_dtype=None, scale: float | None = None,
                  key_mask=None, with_sinks: bool = True):
    """attention() with the mask and feature inputs of an AttnConfig (features: FeatureInputs)."""
    with_sinks = with_sinks and features is not None and cfg.sink
    return attention(q, k, v, causal=cfg.causal, scale=scale, compute_dtype=compute_dtype, key_mask=key_mask,
                     window_left=cfg.window_left, window_right=cfg.window_right,
                     sinks=features.sinks if with_sinks else None,
                     topk_idx=features.topk_idx if features is not None and cfg.topk else None,
                     key_ranges=features.key_ranges if features is not None and cfg.key_ranges else None)
