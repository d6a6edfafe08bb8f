"""The extra inputs of the attention features (docs/features.md): per-head sinks, top-k lists and
per-batch key ranges.

`make_feature_inputs` draws them for a config from its seed (on any device; verify and bench use
the GPU, tests the CPU); `check_sinks`, `check_topk` and `check_key_ranges` are the host checks for
inputs a user hands in (the torch op, `fmhactl merge`): a bad value is one BadInput line (exit 2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput

SINK_SEED_SALT = 0x5157  # feature inputs come from their own generator: Q/K/V stay those of the seed
SINK_DOMINANT = 20.0  # head 1's sink: outweighs every key, so O is tiny and the LSE is the sink's


@dataclass(frozen=True)
class FeatureInputs:
    sinks: Any = None  # fp32 (heads,), or None
    topk_idx: Any = None  # int32 (batch, seq_q, heads_kv, topk), or None
    key_ranges: Any = None  # int32 (batch, 2) [start, end) per batch row, or None


def make_feature_inputs(cfg: AttnConfig, seed: int, device: str = "cuda") -> FeatureInputs:
    """Sinks, index lists and key ranges that exercise every rule of docs/features.md.

    Sinks: uniform in [-2, ln(seq_k) + 2] (the range where they change the result), head 0 at -inf
    (no effect) and head 1 at +20 (dominates) when there are enough heads. Top-k lists: random key
    indices with, per row, about 1/8 padding (-1), 1/8 duplicates of an earlier entry and 1/16
    out-of-range values (seq_k + r or -2 - r, which a kernel skips like -1); query row 0 of every
    batch and KV head is all -1 (an empty row) when there are other rows: a decode step (seq_q 1)
    keeps its list, or every top-k decode config would check an empty attention only. Key ranges:
    `draw_key_ranges`.
    """
    import torch

    gen = torch.Generator(device="cpu").manual_seed(int(seed) ^ SINK_SEED_SALT)
    sinks = topk_idx = None
    if cfg.sink:
        sinks = torch.rand(cfg.heads, generator=gen, dtype=torch.float32) * (math.log(cfg.seq_k) + 4.0) - 2.0
        if cfg.heads > 1:
            sinks[0] = float("-inf")
        if cfg.heads > 2:
            sinks[1] = SINK_DOMINANT
        sinks = sinks.to(device)
    if cfg.topk:
        shape = (cfg.batch, cfg.seq_q, cfg.heads_kv, cfg.topk)
        idx = torch.randint(0, cfg.seq_k, shape, generator=gen, dtype=torch.int32)
        kind = torch.randint(0, 16, shape, generator=gen)
        if cfg.topk > 1:
            earlier = torch.roll(idx, shifts=1, dims=-1)  # the previous entry (the first: the last)
            idx = torch.where((kind == 2) | (kind == 3), earlier, idx)
        idx = torch.where((kind == 0) | (kind == 1), torch.full_like(idx, -1), idx)
        out_of_range = torch.where(torch.rand(shape, generator=gen) < 0.5, cfg.seq_k + idx.abs(), -2 - idx.abs())
        idx = torch.where(kind == 4, out_of_range, idx)
        if cfg.seq_q > 1:
            idx[:, 0] = -1
        topk_idx = idx.to(device)
    key_ranges = draw_key_ranges(cfg.batch, cfg.seq_k, gen).to(device) if cfg.key_ranges else None
    return FeatureInputs(sinks=sinks, topk_idx=topk_idx, key_ranges=key_ranges)


def draw_key_ranges(batch: int, seq_k: int, gen):
    """(batch, 2) int32 [start, end) per batch row: row 0 all keys, row 1 none (when batch allows:
    with one row it is the whole range), the rest a random interval: left padding (end = seq_k),
    right padding (start = 0) or both, in turn, so every edge case of a padded batch is drawn."""
    import torch

    ranges = torch.zeros(batch, 2, dtype=torch.int32)
    ranges[:, 1] = seq_k
    for row in range(1, batch):
        if row == 1:
            start = end = int(torch.randint(0, seq_k + 1, (1,), generator=gen))
        else:
            a, b = sorted(int(x) for x in torch.randint(0, seq_k + 1, (2,), generator=gen))
            start, end = ((a, seq_k), (0, b), (a, b))[row % 3]
        ranges[row, 0], ranges[row, 1] = start, end
    return ranges


def check_sinks(sinks: Any, heads: int, where: str = "sinks") -> None:
    """fp32 (heads,); each a finite logit or -inf (no sink). NaN and +inf are refused."""
    import torch

    if not isinstance(sinks, torch.Tensor):
        raise BadInput(f"{where}: must be a tensor, got {type(sinks).__name__}")
    if sinks.dtype != torch.float32 or tuple(sinks.shape) != (heads,):
        raise BadInput(f"{where}: must be float32 of shape ({heads},) (one logit per query head), "
                       f"got {str(sinks.dtype).removeprefix('torch.')} {tuple(sinks.shape)}")
    bad = torch.isnan(sinks) | torch.isposinf(sinks)
    if bool(bad.any()):
        head = int(bad.nonzero()[0, 0])
        raise BadInput(f"{where}[{head}] is {float(sinks[head])}: a sink must be finite or -inf (no sink)")


def check_key_ranges(key_ranges: Any, batch: int, seq_k: int, where: str = "key_ranges") -> None:
    """int32 (batch, 2), each row 0 <= start <= end <= seq_k."""
    import torch

    if not isinstance(key_ranges, torch.Tensor):
        raise BadInput(f"{where}: must be a tensor, got {type(key_ranges).__name__}")
    if key_ranges.dtype != torch.int32 or tuple(key_ranges.shape) != (batch, 2):
        raise BadInput(f"{where}: must be int32 of shape ({batch}, 2) ([start, end) per batch row), "
                       f"got {str(key_ranges.dtype).removeprefix('torch.')} {tuple(key_ranges.shape)}")
    start, end = key_ranges[:, 0], key_ranges[:, 1]
    bad = (start < 0) | (start > end) | (end > seq_k)
    if bool(bad.any()):
        row = int(bad.nonzero()[0, 0])
        raise BadInput(f"{where}[{row}] = [{int(start[row])}, {int(end[row])}): a key range must satisfy "
                       f"0 <= start <= end <= seq_k ({seq_k})")


def check_topk(topk_idx: Any, cfg: AttnConfig, where: str = "topk_idx") -> None:
    """int32 (batch, seq_q, heads_kv, topk), entries -1 (padding) or a key index in [0, seq_k).

    Out-of-range entries are refused here, where the host sees the lists; a kernel given one
    anyway skips it like -1 (docs/features.md)."""
    import torch

    shape = (cfg.batch, cfg.seq_q, cfg.heads_kv, cfg.topk)
    if not isinstance(topk_idx, torch.Tensor):
        raise BadInput(f"{where}: must be a tensor, got {type(topk_idx).__name__}")
    if topk_idx.dtype != torch.int32 or tuple(topk_idx.shape) != shape:
        raise BadInput(f"{where}: must be int32 of shape {shape} (batch, seq_q, heads_kv, topk), "
                       f"got {str(topk_idx.dtype).removeprefix('torch.')} {tuple(topk_idx.shape)}")
    bad = (topk_idx < -1) | (topk_idx >= cfg.seq_k)
    if bool(bad.any()):
        b, t, h, m = (int(x) for x in bad.nonzero()[0])
        raise BadInput(f"{where}[{b},{t},{h},{m}] = {int(topk_idx[b, t, h, m])}: an index must be -1 (padding) "
                       f"or a key in [0, {cfg.seq_k})")
