"""Baselines that compute the attention features (docs/features.md) with stock PyTorch, for `bench`:

- `sdpa-mask`: SDPA with an explicit additive mask: -inf outside causal/the window and outside a
  batch row's key range (kvr), log(n) for a key a top-k list holds n times, and each head's sink
  as one extra key column whose V is zero (the sink then joins the denominator only);
- `flex`: FlexAttention (compiled on the GPU) with a block mask for causal/the window and the key
  ranges, a score mod for top-k multiplicities, and the sink applied afterwards from the LSE it
  returns: O * 1 / (1 + exp(sink - lse)).

`prepare` builds everything input-independent once (masks, block masks, count tensors), so a timed
call does only the attention; both return O (batch, heads, seq_q, dim) heads-first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fmhactl.config import AttnConfig
from fmhactl.records import FEATURE_BASELINES  # declared once there, beside the other baseline names


def _torch():
    import torch
    return torch


def _heads_first(q, k, v, cfg: AttnConfig):
    group = cfg.heads // cfg.heads_kv
    qh, kh, vh = (t.permute(0, 2, 1, 3) for t in (q, k, v))
    return qh, kh, vh, group


def additive_mask(cfg: AttnConfig, features, device, dtype):
    """(batch or 1, heads or 1, seq_q, seq_k [+1 sink column]) additive scores for SDPA."""
    torch = _torch()
    from fmhactl.verify.reference import key_range_mask, topk_counts, visibility_mask

    mask = visibility_mask(cfg.seq_q, cfg.seq_k, cfg.causal, device, cfg.window_left, cfg.window_right)
    bias = torch.zeros(cfg.seq_q, cfg.seq_k, device=device, dtype=torch.float32).masked_fill(~mask, float("-inf"))
    bias = bias.view(1, 1, cfg.seq_q, cfg.seq_k)
    if cfg.key_ranges:  # per batch row: keys outside [start, end) are -inf
        outside = ~key_range_mask(features.key_ranges, cfg.seq_k, device)
        bias = bias.masked_fill(outside.view(cfg.batch, 1, 1, cfg.seq_k), float("-inf"))
    if cfg.topk:
        bias = bias + topk_counts(features.topk_idx, cfg.seq_k, cfg.heads).to(device).float().log()
    if cfg.sink:
        column = features.sinks.to(device).float().view(1, cfg.heads, 1, 1)
        bias = torch.cat([bias.expand(bias.shape[0], cfg.heads, cfg.seq_q, cfg.seq_k),
                          column.expand(bias.shape[0], cfg.heads, cfg.seq_q, 1)], dim=-1)
    return bias.to(dtype)


def prepare(name: str, cfg: AttnConfig, features, device, dtype, compiled: bool = True) -> Callable[..., Any]:
    """A function (q, k, v) -> O heads-first computing cfg's attention the `name` way."""
    if name == "sdpa-mask":
        return _prepare_sdpa(cfg, features, device, dtype)
    if name == "flex":
        return _prepare_flex(cfg, features, device, compiled)
    raise ValueError(f"unknown feature baseline {name!r} (known: {', '.join(FEATURE_BASELINES)})")


def _prepare_sdpa(cfg: AttnConfig, features, device, dtype):
    torch = _torch()
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    bias = additive_mask(cfg, features, device, dtype)

    def run(q, k, v):
        qh, kh, vh, group = _heads_first(q, k, v, cfg)
        if group > 1:
            kh, vh = kh.repeat_interleave(group, dim=1), vh.repeat_interleave(group, dim=1)
        if cfg.sink:  # the sink column: key 0 (its score is the bias alone), value 0
            zeros = kh.new_zeros(kh.shape[0], kh.shape[1], 1, kh.shape[3])
            kh, vh = torch.cat([kh, zeros], dim=2), torch.cat([vh, zeros], dim=2)
        out = sdpa(qh, kh, vh, attn_mask=bias)
        return torch.nan_to_num(out, nan=0.0)  # rows that see nothing: 0, as the rules say

    return run


def _prepare_flex(cfg: AttnConfig, features, device, compiled: bool):
    torch = _torch()
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    offset, left, right = cfg.seq_k - cfg.seq_q, cfg.window_left, cfg.right_bound
    ranges = features.key_ranges.to(device).int() if cfg.key_ranges else None

    def mask_mod(b, h, q_idx, kv_idx):
        seen = kv_idx >= 0
        if right >= 0:
            seen = seen & (kv_idx <= q_idx + offset + right)
        if left >= 0:
            seen = seen & (kv_idx >= q_idx + offset - left)
        if ranges is not None:
            seen = seen & (kv_idx >= ranges[b, 0]) & (kv_idx < ranges[b, 1])
        return seen

    block_mask = create_block_mask(mask_mod, cfg.batch if ranges is not None else None, None, cfg.seq_q, cfg.seq_k,
                                   device=device)
    score_mod = None
    if cfg.topk:
        from fmhactl.verify.reference import topk_counts

        group = cfg.heads // cfg.heads_kv
        log_counts = topk_counts(features.topk_idx, cfg.seq_k, cfg.heads_kv).to(device).float().log()

        def score_mod(score, b, h, q_idx, kv_idx):
            return score + log_counts[b, h // group, q_idx, kv_idx]

    attend = torch.compile(flex_attention, dynamic=False) if compiled else flex_attention
    try:  # torch >= 2.9 asks for the LSE through AuxRequest; older ones through return_lse
        from torch.nn.attention.flex_attention import AuxRequest

        lse_request: dict = {"return_aux": AuxRequest(lse=True)}
    except ImportError:
        lse_request = {"return_lse": True}
    sinks = features.sinks.to(device).float().view(1, cfg.heads, 1) if cfg.sink else None

    def run(q, k, v):
        qh, kh, vh, _ = _heads_first(q, k, v, cfg)
        out, lse = attend(qh, kh, vh, score_mod=score_mod, block_mask=block_mask,
                          enable_gqa=cfg.heads != cfg.heads_kv, **lse_request)
        lse = getattr(lse, "lse", lse)
        out = torch.nan_to_num(out, nan=0.0)
        if sinks is not None:  # sum/(sum + e^sink) = 1 / (1 + e^(sink - lse)); a row with no key: 0
            lse = torch.nan_to_num(lse, nan=float("-inf"))
            keep = torch.sigmoid(lse - sinks)
            keep = torch.where(torch.isneginf(sinks).expand_as(keep), torch.ones_like(keep), keep)  # no sink
            out = out * keep.unsqueeze(-1).to(out.dtype)
        return out

    return run
