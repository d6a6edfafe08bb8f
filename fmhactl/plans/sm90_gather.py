"""The plan of `sm90_mqa_gather` (kernels/sm90/fmha_mqa_gather.cuh), declared once.

MQA/GQA attention for DeepSeek-V4 shapes on SM90 with mma.sync: the M rows of a CTA are query
heads of ONE query token that share one KV head (they see the same keys: one top-k list, one
window), and the CTA gathers that token's keys (its top-k entries, or its window/causal range)
row by row with cp.async into a ring of SMEM stages.

CTA: `tiles` M tiles of 16 heads x `slices` D slices, one warp each. A warp owns 16 rows x
`cols` output columns (at most 128: 64 fp32 accumulators per thread, so hd512 fits beside S in
the 128 registers a 512-thread CTA allows). With several slices (hd256: 2, hd512: 4) each warp
multiplies QK^T over its own D slice only and the tile's warps add their partial S through SMEM
(the exchange buffer: one float4 per lane and 8 keys), in one order, so every slice warp holds
the same S and runs the same softmax (no softmax state crosses warps).

SMEM (dynamic; the kernel derives the stage count from %dynamic_smem_size with the same terms):
Q (tiles*16 rows x D, 128B-chunk XOR swizzle), the partial-S exchange (slices > 1), the
compacted top-k list (LIST_CAP keys + a counter; top-k launches only), then `stages` x (K block,
V block unless kv_shared: V is K's block).

The launcher picks the tiles per CTA: all the group's heads up to 64 (one gather of the keys per
token), or 16 when that leaves the GPU mostly idle (decode: few tokens), where more CTAs each
re-gathering the keys from L2 beat one CTA streaming them alone. The ring takes as many stages
(2..6: a decode CTA keeps up to 6 x 32 KiB of rows in flight) as fit; when the grid is more than one wave, only as many as leave room for about 4 M
tiles per SM (a 1-tile CTA of a small GQA group is not alone on its SM).

Split-K (flash-decoding): when the CTAs of (tokens x head chunks x KV heads x batch) are fewer
than the SMs (decode), each token's key list is cut into `splits` pieces (top-k: contiguous
ranges of the raw list, filtered by each CTA; window/causal: contiguous key ranges of at least
MIN_SPLIT_BLOCKS blocks), one CTA each, up to about two CTAs per SM where two fit (one where
only one does: hd512's 64-head CTAs, whose split grid is then one wave). Each split CTA writes its
normalised partial O (fp32) and base-2 LSE into the workspace of the kernel's second argument
(GATHER_SPLIT, rendered into the plan header; the runtime's ctypes twin comes from the same
declaration); the last split CTA of a (token, head chunk) to arrive, counted by a per-group
counter that it resets to 0, merges the splits by LSE and adds the sink once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from fmhactl.plans.cstruct import I32, CField, CStruct, pointer, render_c
from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM, SMEM_PER_SM, SMEM_RESERVED_PER_BLOCK, ceil_div

HEADER_PATH = "kernels/sm90/fmha_mqa_gather_plan.h"

HEAD_DIMS = (64, 128, 256, 512)
ROWS = 16  # the mma.sync M: query heads per M tile
MAX_TILES = 4  # M tiles per CTA: up to 64 heads share one gather of the keys
MAX_COLS = 128  # output columns per warp (64 fp32 accumulators per thread)
BLOCK_N = {64: 64, 128: 64, 256: 32, 512: 32}  # keys per gathered block (one ring stage)
LIST_CAP = 2048  # top-k entries compacted per round (a longer list takes several rounds)
LIST_COUNTS = LIST_CAP + 8  # int index of the filter's per-warp counts (kernels/common/topk_list.cuh)
LIST_WARPS = 32  # one count per warp, up to 1024 threads
# the list, its counter and the CTA's bounds (8 ints), the per-warp counts; a multiple of 16 B
LIST_BYTES = (LIST_COUNTS + LIST_WARPS) * 4
MIN_STAGES = 2
MAX_STAGES = 6  # cp.async.wait_group takes an immediate: the kernel handles 0..MAX_STAGES-2 pending
ELEM = 2
DEFAULT_SM_COUNT = 132  # H100 SXM; the executor passes the real count
MAX_GRID_YZ = 65535
MAX_SPLITS = 32  # the merge keeps rows x splits weights in the (drained) ring
MIN_SPLIT_BLOCKS = 2  # keys per split >= 2 blocks: each split CTA still overlaps a load with an MMA
SPLIT_CTAS_PER_SM = 2  # split launches aim at about this many CTAs per SM (2-stage rings co-reside)

GATHER_SPLIT = CStruct("GatherSplit", (
    CField("o_partial", pointer("float*"), "(splits, batch * seq_q * heads, head_dim) fp32: O / l of each split"),
    CField("lse_partial", pointer("float*"), "(splits, batch * seq_q * heads) fp32: base-2 LSE of each split; -inf: no key"),
    CField("counters", pointer("unsigned*"), note=(
        "One per (batch, KV head, token, head chunk), zero before a launch: each split CTA counts itself\n"
        "in once its partial is visible; the last one merges and writes 0 back, so one buffer serves\n"
        "every launch on one stream. Unused (may be null) when splits == 1.")),
    CField("splits", I32, "CTAs per (token, head chunk) over the key list; 1: no split, no workspace"),
    CField("pad", I32, "0"),
), comment=("sm90_mqa_gather's second by-value argument (after FmhaParams): the split-K workspace.\n"
            "Declared in fmhactl/plans/sm90_gather.py; the runtime's ctypes twin is built from it."))
MAX_GRID_X = 2**31 - 1
TILES_ENV = "FMHACTL_GATHER_TILES"  # forces tiles_for's choice, for A/B timing of the decode plans


def cols(head_dim: int) -> int:
    return min(head_dim, MAX_COLS)


def slices(head_dim: int) -> int:
    return head_dim // cols(head_dim)


def max_threads(head_dim: int) -> int:
    return 32 * MAX_TILES * slices(head_dim)


@dataclass(frozen=True)
class GatherPlan:
    head_dim: int
    group: int  # query heads per KV head
    tiles: int  # M tiles of 16 heads per CTA
    kv_shared: bool
    topk: bool = False  # the launch has top-k lists: SMEM for the compacted list
    # CTAs that should share an SM (1: the grid is one wave, every CTA takes all the SMEM it can
    # use for stages; else about MAX_TILES M tiles per SM, so small CTAs are not alone on an SM)
    co_resident: int = 1
    splits: int = 1  # CTAs per (token, head chunk) over the key list (split-K); 1: none

    @property
    def block_n(self) -> int:
        return BLOCK_N[self.head_dim]

    @property
    def rows(self) -> int:
        return ROWS * self.tiles

    @property
    def head_chunks(self) -> int:
        """CTAs per (token, KV head): the group's heads in chunks of `rows`."""
        return ceil_div(self.group, self.rows)

    @property
    def threads(self) -> int:
        return 32 * self.tiles * slices(self.head_dim)

    @property
    def q_bytes(self) -> int:
        return self.rows * self.head_dim * ELEM

    @property
    def stage_bytes(self) -> int:
        return self.block_n * self.head_dim * ELEM * (1 if self.kv_shared else 2)

    @property
    def exchange_bytes(self) -> int:
        """Partial S of each warp of a multi-slice tile: BN/2 fp32 per lane (BN * 64 B a warp)."""
        return self.tiles * slices(self.head_dim) * self.block_n * 64 if slices(self.head_dim) > 1 else 0

    @property
    def list_bytes(self) -> int:
        return LIST_BYTES if self.topk else 0

    @property
    def fixed_bytes(self) -> int:
        return self.q_bytes + self.exchange_bytes + self.list_bytes

    @property
    def stages(self) -> int:
        fit = (MAX_DYNAMIC_SMEM - self.fixed_bytes) // self.stage_bytes
        budget = SMEM_PER_SM // max(1, self.co_resident) - SMEM_RESERVED_PER_BLOCK
        return min(MAX_STAGES, fit, max(MIN_STAGES, (budget - self.fixed_bytes) // self.stage_bytes))

    @property
    def resident_at_min_stages(self) -> int:
        """CTAs of this plan that can share an SM with MIN_STAGES stages each (hd512 with 64
        heads and a top-k list: 1, so its split launch aims at one CTA per SM, one wave)."""
        per_cta = self.fixed_bytes + MIN_STAGES * self.stage_bytes + SMEM_RESERVED_PER_BLOCK
        return max(1, SMEM_PER_SM // per_cta)

    @property
    def smem_bytes(self) -> int:
        return self.fixed_bytes + self.stages * self.stage_bytes

    def grid(self, seq_q: int, heads_kv: int, batch: int) -> tuple[int, int, int]:
        """x = (token, head chunk, split), the splits of one group neighbours (their keys differ,
        their Q is the same)."""
        return (seq_q * self.head_chunks * self.splits, heads_kv, batch)

    def workspace_floats(self, seq_q: int, heads: int, batch: int) -> int:
        """fp32 elements of GatherSplit's o_partial then lse_partial; 0 without a split."""
        if self.splits == 1:
            return 0
        rows = batch * seq_q * heads
        return self.splits * rows * (self.head_dim + 1)

    def counters(self, seq_q: int, heads_kv: int, batch: int) -> int:
        return batch * heads_kv * seq_q * self.head_chunks if self.splits > 1 else 0

    def limit_reason(self, seq_q: int, heads_kv: int, batch: int) -> str | None:
        if self.head_dim not in HEAD_DIMS:
            return f"head_dim {self.head_dim} not supported (supports {', '.join(map(str, HEAD_DIMS))})"
        if self.stages < MIN_STAGES:
            return (f"SMEM: {self.fixed_bytes} B of Q, exchange and list + {MIN_STAGES} stages of {self.stage_bytes} B "
                    f"> {MAX_DYNAMIC_SMEM} B")
        if seq_q * self.head_chunks * self.splits > MAX_GRID_X:
            return (f"seq_q {seq_q} x {self.head_chunks} head chunks x {self.splits} splits exceeds the grid's x "
                    f"limit {MAX_GRID_X}")
        if heads_kv > MAX_GRID_YZ:
            return f"heads_kv {heads_kv} exceeds the grid's y limit {MAX_GRID_YZ}"
        if batch > MAX_GRID_YZ:
            return f"batch {batch} exceeds the grid's z limit {MAX_GRID_YZ}"
        return None


def tiles_for(head_dim: int, group: int, seq_q: int, heads_kv: int, batch: int, kv_shared: bool, topk: bool,
              sm_count: int | None, keys: int = 0) -> int:
    """All of the group's heads (up to 64) per CTA, unless that leaves fewer CTAs than SMs even
    split (below half the SMs): then 16 heads per CTA (more CTAs gathering the same keys, the
    repeats served by L2). Halved while two stages do not fit (hd512 with K and V apart and a
    top-k list: 32 heads). FMHACTL_GATHER_TILES=1|2|4 forces the tiles (A/B runs only)."""
    full = min(MAX_TILES, ceil_div(group, ROWS))
    ctas = seq_q * heads_kv * batch * ceil_div(group, ROWS * full)
    sms = sm_count or DEFAULT_SM_COUNT
    # Decode (one token): full CTAs also when their split grid (at most `keys` / MIN_SPLIT_BLOCKS blocks a split)
    # reaches half the SMs: each key row is then gathered once, not once per 16-head chunk, and
    # a CTA has 4x the warps to hide its gathers' latency (decode b >= 16 at top-k 512).
    most_splits = min(MAX_SPLITS, keys // (MIN_SPLIT_BLOCKS * BLOCK_N.get(head_dim, 64))) if keys > 0 else 1
    spread = ctas < sms and (seq_q > 1 or 2 * ctas * max(1, most_splits) < sms)
    tiles = 1 if full > 1 and spread else full
    forced = os.environ.get(TILES_ENV, "")
    if forced.isdigit() and int(forced) in (1, 2, 4):  # A/B override (scripts/device/decode27_profile.sh)
        tiles = min(full, int(forced))
    while tiles > 1 and GatherPlan(head_dim, group, tiles, kv_shared, topk).stages < MIN_STAGES:
        tiles //= 2
    return tiles


def splits_for(keys: int, ctas: int, block_n: int, sm_count: int | None, per_sm: int = SPLIT_CTAS_PER_SM) -> int:
    """Split-K count: 1 while the unsplit grid (`ctas`) fills the SMs; else about `per_sm`
    CTAs per SM (SPLIT_CTAS_PER_SM, or fewer where fewer fit: plan_for passes the residency),
    each with at least MIN_SPLIT_BLOCKS blocks of the token's (at most) `keys` keys, at most
    MAX_SPLITS. More splits than one wave holds would run a second wave: every split re-loads
    its Q and adds a partial to merge, for no more bandwidth."""
    sms = sm_count or DEFAULT_SM_COUNT
    if ctas >= sms:
        return 1
    want = (max(1, per_sm) * sms) // ctas
    most = keys // (MIN_SPLIT_BLOCKS * block_n)
    return max(1, min(MAX_SPLITS, want, most))


def keys_per_token(seq_k: int, topk: int, window_left: int, right_bound: int) -> int:
    """The most keys a token can see: its top-k list, else its window/causal range."""
    if topk > 0:
        return topk
    if window_left >= 0 and right_bound >= 0:
        return min(seq_k, window_left + right_bound + 1)
    return seq_k


def plan_for(head_dim: int, heads: int, heads_kv: int, seq_q: int, batch: int, kv_shared: bool, topk: bool = False,
             sm_count: int | None = None, keys: int = 0) -> GatherPlan:
    """keys: the most keys a token sees (keys_per_token); 0 = unknown: no split."""
    group = heads // heads_kv
    tiles = tiles_for(head_dim, group, seq_q, heads_kv, batch, kv_shared, topk, sm_count, keys)
    plan = GatherPlan(head_dim, group, tiles, kv_shared, topk)
    ctas = seq_q * heads_kv * batch * plan.head_chunks
    splits = splits_for(keys, ctas, plan.block_n, sm_count, min(SPLIT_CTAS_PER_SM, plan.resident_at_min_stages))
    one_wave = ctas * splits <= (sm_count or DEFAULT_SM_COUNT)
    return GatherPlan(head_dim, group, tiles, kv_shared, topk, 1 if one_wave else MAX_TILES // tiles, splits)


def render_plan_header() -> list[str]:
    """The body of kernels/sm90/fmha_mqa_gather_plan.h."""
    out = ["// The sm90_mqa_gather kernel's plan (kernels/sm90/fmha_mqa_gather.cuh): fixed sizes; the",
           "// launcher (fmhactl/plans/sm90_gather.py) picks the M tiles per CTA and the SMEM from them.",
           "#pragma once", "", "namespace fmha_gather_plan {", "",
           f"constexpr int kRows = {ROWS};", f"constexpr int kMaxTiles = {MAX_TILES};",
           f"constexpr int kMaxCols = {MAX_COLS};", f"constexpr int kListCap = {LIST_CAP};",
           f"constexpr int kListBytes = {LIST_BYTES};", f"constexpr int kListCounts = {LIST_COUNTS};", f"constexpr int kMinStages = {MIN_STAGES};",
           f"constexpr int kMaxStages = {MAX_STAGES};", f"constexpr int kMaxSplits = {MAX_SPLITS};", "",
           "template <int D>", "struct HeadDim {", "    static constexpr bool kDeclared = false;", "};"]
    for d in HEAD_DIMS:
        out.append(f"template <> struct HeadDim<{d}> {{ static constexpr bool kDeclared = true; "
                   f"static constexpr int kBlockN = {BLOCK_N[d]}, kCols = {cols(d)}, kSlices = {slices(d)}, "
                   f"kMaxThreads = {max_threads(d)}; }};")
    out += ["", "}  // namespace fmha_gather_plan", "", *render_c(GATHER_SPLIT)]
    return out
