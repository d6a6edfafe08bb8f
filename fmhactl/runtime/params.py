"""The launch parameter block as ctypes, built from the one declaration (fmhactl/plans/params.py)
that kernels/common/fmha_params.h is generated from."""

from __future__ import annotations

import math

from fmhactl.config import AttnConfig
from fmhactl.plans.cstruct import ctypes_struct
from fmhactl.plans.params import FMHA_PARAMS
from fmhactl.plans.sm90_gather import GATHER_SPLIT

PARAMS_HEADER = "common/fmha_params.h"


FmhaParams = ctypes_struct(FMHA_PARAMS)
GatherSplit = ctypes_struct(GATHER_SPLIT)  # sm90_mqa_gather's second argument


def default_scale(cfg: AttnConfig) -> float:
    return 1.0 / math.sqrt(cfg.head_dim)


def make_params(cfg: AttnConfig, q, k, v, o, lse, scale: float | None = None, checkpoints=None,
                tile_counter=None, sinks=None, topk_idx=None, key_ranges=None) -> FmhaParams:
    """Fill the block from torch tensors laid out (batch, seq, heads, head_dim), any strides.

    sinks: fp32 (heads,) contiguous when cfg.sink; topk_idx: int32 (batch, seq_q, heads_kv, topk)
    contiguous when cfg.topk; key_ranges: int32 (batch, 2) contiguous when cfg.key_ranges
    (fmhactl/runtime/features.py makes and checks them)."""
    for name, tensor in (("q", q), ("k", k), ("v", v), ("o", o)):
        if tensor.stride(-1) != 1:
            raise ValueError(f"{name} must have a contiguous head_dim")
    scale = default_scale(cfg) if scale is None else scale
    p = FmhaParams()
    p.q, p.k, p.v, p.o = q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr()
    p.lse = lse.data_ptr() if lse is not None else None
    for prefix, tensor in (("q", q), ("k", k), ("v", v), ("o", o)):
        setattr(p, f"{prefix}_batch_stride", tensor.stride(0))
        setattr(p, f"{prefix}_seq_stride", tensor.stride(1))
        setattr(p, f"{prefix}_head_stride", tensor.stride(2))
    p.batch, p.heads, p.heads_kv = cfg.batch, cfg.heads, cfg.heads_kv
    p.seq_q, p.seq_k, p.head_dim = cfg.seq_q, cfg.seq_k, cfg.head_dim
    p.softmax_scale = scale
    p.scale_log2 = scale * math.log2(math.e)
    p.causal = int(cfg.causal)
    p.flags = 0
    p.checkpoints = checkpoints.data_ptr() if checkpoints is not None else None
    p.tile_counter = tile_counter.data_ptr() if tile_counter is not None else None
    p.window_left, p.window_right = cfg.window_left, cfg.right_bound
    if cfg.sink and sinks is None:
        raise ValueError("the config has sinks but no sink tensor was given")
    if cfg.topk and topk_idx is None:
        raise ValueError("the config has top-k but no index tensor was given")
    p.sinks = sinks.data_ptr() if cfg.sink else None
    p.topk_idx = topk_idx.data_ptr() if cfg.topk else None
    p.topk = cfg.topk
    p.kv_shared = int(cfg.kv_shared)
    if cfg.key_ranges and key_ranges is None:
        raise ValueError("the config has key ranges but no key range tensor was given")
    p.key_ranges = key_ranges.data_ptr() if cfg.key_ranges else None
    return p
