"""The plan of `sm90_mqa_decode` (kernels/sm90/fmha_mqa_decode.cuh), declared once.

DeepSeek-V4 sparse MQA decode on SM90 with wgmma (FlashMLA's SM90 decode design): the 64 query
heads of ONE token that share a KV head are the wgmma M; the token's keys (its filtered top-k
list, or its window/causal range) are gathered row by row into SMEM by a producer warpgroup.

CTA: 3 warpgroups (384 threads). WG0 and WG1 consume, WG2 produces:
- WG2 (setmaxnreg.dec to PRODUCER_REGS) copies Q (64 heads x 512) once, then the key rows of each
  BLOCK_N-key block with 16-byte cp.async into a ring of STAGES stages, every stage in the
  canonical 128B-swizzled K-major layout (sw128.cuh) a wgmma descriptor reads; each producer
  thread waits for its own copies STAGES-1 blocks later (cp.async.wait_group), fences them to the
  async proxy and arrives on the stage's `full` mbarrier (PRODUCER threads arrive).
- WG0 / WG1 (setmaxnreg.inc to CONSUMER_REGS) each own half of the head dim (256 columns): for a
  block, S_w = Q[:, half] K[:, half]^T (SS wgmma m64nBLOCK_Nk16, 16 K steps), the two partial S
  meet in SMEM (the exchange: one fp32 fragment per thread and WG) and each WG adds them (the same
  sum in both: fp32 addition commutes), runs the same online softmax on all 64 x BLOCK_N scores,
  and O_w += P V[:, half] with P from registers (RS wgmma m64n256k16; K = V: the B operand is the
  same K stage read MN-major). Each consumer thread arrives on the stage's `empty` mbarrier.
  O is 64 x 256 fp32 per WG: 128 registers a thread.
K = V is required (DeepSeek-V4's MQA shares them): a separate V would double the ring.

SMEM (dynamic, re-aligned to 1024 B in the kernel): Q | exchange | STAGES x K block | mbarriers |
the compacted top-k list (top-k launches only). 64 + 16 + 128 KiB + 8 KiB = 216 KiB: one CTA per
SM, up to STAGES-1 = 3 blocks (96 KiB) of rows in flight while one is multiplied.

Split-K (flash-decoding) as sm90_mqa_gather, with its own count (splits_for_decode): while the CTAs
of (tokens x head chunks x KV heads x batch) fill less than half the SMs, each token's keys are cut
into `splits` pieces of at least MIN_SPLIT_KEYS keys (top-k: contiguous ranges of the raw list,
each CTA filtering its own; window: whole-block key ranges), one CTA each, in one wave. The kernel's second argument is sm90_gather.GATHER_SPLIT (the same
declaration and ctypes twin); the last split CTA of a (token, head chunk) merges by LSE
(kernels/common/split_merge.cuh) and adds the sink once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from fmhactl.plans import sm90_gather
from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM, REGISTERS_PER_SM, SWIZZLE_REPEAT, ceil_div
from fmhactl.plans.sm90_gather import DEFAULT_SM_COUNT, MAX_GRID_X, MAX_GRID_YZ, keys_per_token

HEADER_PATH = "kernels/sm90/fmha_mqa_decode_plan.h"

HEAD_DIMS = (512,)
ROWS = 64  # the wgmma M: query heads of one token per CTA
BLOCK_N = 32  # keys per ring stage (the QK^T wgmma N)
STAGES = 4
CONSUMERS = 2  # consumer warpgroups, each over HEAD_DIM / CONSUMERS output columns
THREADS = 128 * (CONSUMERS + 1)
PRODUCER_REGS = 56
CONSUMER_REGS = 224
LIST_CAP = sm90_gather.LIST_CAP  # top-k entries one CTA filters (its split's piece of the list; one round)
LIST_BYTES = sm90_gather.LIST_BYTES  # the list, spare words and the filter's per-warp counts (as sm90_gather)
ELEM = 2
BAR_BYTES = 128  # full[STAGES], empty[STAGES], q_full: 8 B each, padded
# Split-K rule, measured on the H100 (notes/features/session12/README.md: every top-k 512 and
# window 128 shape at b1..b64 forced to 1, 2 and 4 splits): a split pays a Q load, a filter and a
# partial to merge, so each split keeps at least MIN_SPLIT_KEYS keys (window 128: 17.0-18.3 us at
# 1 split against 21.9-27.5 at 2), and a split grid fills at most 1/SPLIT_SM_SHARE of the SMs (b64
# top-k 512: 35.2 us at 1 split against 36.8 at 2; b1-b16: 4 splits 26.8-27.2 against 8 splits 29.7-32.6).
MIN_SPLIT_KEYS = 128
SPLIT_SM_SHARE = 2
MAX_SPLITS = 32  # as sm90_gather (its splits_for caps there)
SPLITS_ENV = "FMHACTL_DECODE_SPLITS"  # forces the split count, for A/B timing (scripts/device/decode27x.sh)

assert 128 * PRODUCER_REGS + 128 * CONSUMERS * CONSUMER_REGS <= REGISTERS_PER_SM
assert 8 * (2 * STAGES + 1) <= BAR_BYTES


def q_bytes(head_dim: int) -> int:
    return ROWS * head_dim * ELEM


def stage_bytes(head_dim: int) -> int:
    return BLOCK_N * head_dim * ELEM


def exchange_bytes() -> int:
    return CONSUMERS * ROWS * BLOCK_N * 4


def offsets(head_dim: int) -> dict[str, int]:
    """Byte offsets from the 1024-aligned SMEM base (every tile 1024-aligned: SW128 needs it)."""
    x = q_bytes(head_dim)
    ring = x + exchange_bytes()
    bars = ring + STAGES * stage_bytes(head_dim)
    return {"q": 0, "x": x, "ring": ring, "bars": bars, "list": bars + BAR_BYTES}


@dataclass(frozen=True)
class DecodePlan:
    head_dim: int
    group: int  # query heads per KV head
    kv_shared: bool
    topk: int = 0  # entries of each token's list; 0: no list (window / causal range)
    splits: int = 1

    @property
    def block_n(self) -> int:
        return BLOCK_N

    @property
    def rows(self) -> int:
        return ROWS

    @property
    def head_chunks(self) -> int:
        return ceil_div(self.group, ROWS)

    @property
    def threads(self) -> int:
        return THREADS

    @property
    def smem_bytes(self) -> int:
        return SWIZZLE_REPEAT + offsets(self.head_dim)["list"] + (LIST_BYTES if self.topk else 0)

    @property
    def entries_per_split(self) -> int:
        """Top-k entries one CTA filters: the kernel's piece, rounded up to 32 like the kernel's."""
        return min(self.topk, ceil_div(ceil_div(self.topk, self.splits), 32) * 32)

    def grid(self, seq_q: int, heads_kv: int, batch: int) -> tuple[int, int, int]:
        return (seq_q * self.head_chunks * self.splits, heads_kv, batch)

    def workspace_floats(self, seq_q: int, heads: int, batch: int) -> int:
        return 0 if self.splits == 1 else self.splits * batch * seq_q * heads * (self.head_dim + 1)

    def counters(self, seq_q: int, heads_kv: int, batch: int) -> int:
        return batch * heads_kv * seq_q * self.head_chunks if self.splits > 1 else 0

    def limit_reason(self, seq_q: int, heads_kv: int, batch: int) -> str | None:
        if self.head_dim not in HEAD_DIMS:
            return f"head_dim {self.head_dim} not supported (supports {', '.join(map(str, HEAD_DIMS))})"
        if not self.kv_shared:
            return "needs K = V (kv_shared): PV reads V from K's SMEM stage, a separate V does not fit the ring"
        if self.smem_bytes > MAX_DYNAMIC_SMEM:
            return f"SMEM {self.smem_bytes} B > {MAX_DYNAMIC_SMEM} B"
        if self.topk and self.entries_per_split > LIST_CAP:
            return (f"top-k {self.topk} over {self.splits} split(s): {self.entries_per_split} entries a CTA "
                    f"> the {LIST_CAP}-entry SMEM list")
        if seq_q * self.head_chunks * self.splits > MAX_GRID_X:
            return f"seq_q {seq_q} x {self.head_chunks} head chunks x {self.splits} splits exceeds the grid's x limit"
        if heads_kv > MAX_GRID_YZ:
            return f"heads_kv {heads_kv} exceeds the grid's y limit {MAX_GRID_YZ}"
        if batch > MAX_GRID_YZ:
            return f"batch {batch} exceeds the grid's z limit {MAX_GRID_YZ}"
        return None


def splits_for_decode(keys: int, ctas: int, sm_count: int | None) -> int:
    """Split-K count: at least MIN_SPLIT_KEYS of the token's (at most) `keys` keys a split, and
    CTAs x splits at most 1/SPLIT_SM_SHARE of the SMs, at most MAX_SPLITS (see the constants)."""
    want = (sm_count or DEFAULT_SM_COUNT) // (SPLIT_SM_SHARE * max(1, ctas))
    return max(1, min(MAX_SPLITS, want, keys // MIN_SPLIT_KEYS))


def plan_for(head_dim: int, heads: int, heads_kv: int, seq_q: int, batch: int, kv_shared: bool, topk: int = 0,
             sm_count: int | None = None, keys: int = 0) -> DecodePlan:
    """keys: the most keys a token sees (sm90_gather.keys_per_token); 0 = unknown: no split."""
    group = heads // heads_kv
    plan = DecodePlan(head_dim, group, kv_shared, topk)
    ctas = seq_q * heads_kv * batch * plan.head_chunks
    splits = splits_for_decode(keys, ctas, sm_count)
    forced = os.environ.get(SPLITS_ENV, "")
    if forced.isdigit() and 1 <= int(forced) <= MAX_SPLITS:  # A/B override; limit_reason still applies
        splits = int(forced)
    return DecodePlan(head_dim, group, kv_shared, topk, splits)


def plan_for_config(cfg, sm_count: int | None = None) -> DecodePlan:
    """The plan of an AttnConfig (fmhactl/config.py)."""
    keys = keys_per_token(cfg.seq_k, cfg.topk, cfg.window_left, cfg.right_bound)
    return plan_for(cfg.head_dim, cfg.heads, cfg.heads_kv, cfg.seq_q, cfg.batch, cfg.kv_shared, cfg.topk,
                    sm_count, keys)


def render_plan_header() -> list[str]:
    """The body of kernels/sm90/fmha_mqa_decode_plan.h."""
    out = ["// The sm90_mqa_decode kernel's plan (kernels/sm90/fmha_mqa_decode.cuh): fixed sizes and the",
           "// SMEM carving; the launcher (fmhactl/plans/sm90_decode.py) sizes the grid and SMEM from them.",
           "#pragma once", "", "namespace fmha_decode_plan {", "",
           f"constexpr int kRows = {ROWS};", f"constexpr int kBlockN = {BLOCK_N};", f"constexpr int kStages = {STAGES};",
           f"constexpr int kConsumers = {CONSUMERS};", f"constexpr int kThreads = {THREADS};",
           f"constexpr int kProducerRegs = {PRODUCER_REGS};", f"constexpr int kConsumerRegs = {CONSUMER_REGS};",
           f"constexpr int kListCap = {LIST_CAP};", f"constexpr int kListCounts = {sm90_gather.LIST_COUNTS};", "",
           "template <int D>", "struct HeadDim {", "    static constexpr bool kDeclared = false;", "};"]
    for d in HEAD_DIMS:
        o = offsets(d)
        out.append(f"template <> struct HeadDim<{d}> {{ static constexpr bool kDeclared = true; "
                   f"static constexpr int kQOffset = {o['q']}, kXOffset = {o['x']}, kRingOffset = {o['ring']}, "
                   f"kBarOffset = {o['bars']}, kListOffset = {o['list']}, kStageBytes = {stage_bytes(d)}; }};")
    out += ["", "}  // namespace fmha_decode_plan"]
    return out
