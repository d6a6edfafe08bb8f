"""The op's decode path: T = 1..16 query tokens against a long KV cache, split-KV + combine.

kernels/sm90/fmha_decode.cu packs the query heads of one KV head (times the T tokens) into the
M rows of a tile, cuts the keys into `n_splits` ranges so that a step with few heads fills every
SM, and merges the splits by LSE: by default inside the same launch (the last CTA of each row
group to finish merges it, counted on per-stream counters; where that one CTA's merge would be the
bottleneck, the cluster kernel first merges each cluster of CLUSTER splits through distributed
shared memory: DecodePlan._split_launch), or in a second kernel with FMHACTL_DECODE_COMBINE=launch.

A decode step with a growing cache changes seq_k (and the cache's strides) every call, so a plan
here is keyed by everything but the KV length: the first call with a signature checks the inputs,
builds and loads the kernels and fills the parameter block; every later call writes the K/V
pointers, strides and length, picks the split count (pure integer arithmetic, redone only when the
length leaves the range of lengths with the same split count: split_range), allocates the
outputs (and the fp32 workspace when it splits) and enqueues one kernel (two with a separate merge). No TMA
descriptors, so nothing is encoded per step. The split kernel takes ring_smem_bytes(head_dim) of
dynamic SMEM (its per-warp cp.async ring of K/V blocks), allowed once per function at plan build.

Used automatically by the cached launch path (fmhactl.torch.fastpath) for calls it can serve:
sm_90 GPU, bf16/fp16, head dim a multiple of 16 from 32 to 256 (HEAD_DIMS), seq_q <= MAX_SEQ_Q,
no backend override, FMHACTL_TORCH_DECODE not "0", strides the 16-byte loads can read; but not a
plain MHA step over a large cache with a wave of (batch, head) pairs (family_from_keys), which the
prefill family reads faster (its plan then takes each new KV length in place: kv_length). Everything
else returns None and takes the existing paths. The kernels are compiled for head dims 64, 128 and
256 (fmhactl.plans.sm90_split_decode, which also renders kernels/sm90/fmha_decode_split.h); any
other served head dim runs the next wider one masked (no load past the row, no store past it),
with the caller's K/V cache read in place: fastpath tries this path before its plan lookup, so a
d=96 decode step never reaches the head-dim padding (fmhactl.torch.padding) that copies the cache.
"""

from __future__ import annotations

import ctypes
import math
import os
import threading
from dataclasses import dataclass, field
from typing import NamedTuple

import torch

from fmhactl.plans import sm90_split_decode as split_plan
from fmhactl.runtime.driver import launch_head, unpack_head
from fmhactl.torch import backends
from fmhactl.torch.inputs import check_inputs, to_bshd

ENABLE_ENV = "FMHACTL_TORCH_DECODE"  # "0": never take the decode path
COMBINE_ENV = "FMHACTL_DECODE_COMBINE"  # "launch": merge the splits in a second launch (default: fused)
MAX_SEQ_Q = 16  # plain calls: above this the SM90 family's 128-row tiles take over
PADDED_MAX_SEQ_Q = 64  # padded batches: one launch here beats one SM90 launch per row
HEAD_DIMS = split_plan.HEAD_DIMS  # served; compiled: split_plan.KERNEL_HEAD_DIMS (kernel_head_dim maps them)
ROWS_PER_CTA = 16  # FMHA_DECODE_ROWS
WARPS = split_plan.WARPS  # FMHA_DECODE_WARPS
KEYS_PER_WARP_STEP = split_plan.KEYS  # FMHA_DECODE_KEYS
SPLIT_KEY_MULTIPLE = WARPS * KEYS_PER_WARP_STEP  # 64: every warp of a split gets whole key blocks
MIN_SPLIT_KEYS = 128  # below this a split's CTA is mostly launch and merge
MAX_SPLITS = 256  # the merge's SMEM weight buffer (kMaxSplits)
CTAS_PER_SM = 2  # split until about this many CTAs per SM
# The split count that balances the merge against each CTA's stream of keys (balanced_splits):
# splits of a row group stop at about sqrt(seq_k / (BALANCE_KEYS_PER_ROW * max(rows, BALANCE_MIN_ROWS))).
BALANCE_KEYS_PER_ROW = 2
BALANCE_MIN_ROWS = 8
# The cluster kernel (fmha_decode_cluster_*), which the fused merge takes where the rules below
# hold: CLUSTER consecutive splits of a row group merge through distributed shared memory, each
# CTA a slice of the rows, and the last CTA of each rank merges the clusters' slices (n_splits /
# CLUSTER of them), so no CTA reads every split's partial alone. grid.y is n_splits rounded up to a
# multiple of CLUSTER (the CTAs past n_splits see no key: their weight is 0). It takes at least
# CLUSTER_MIN_SPLITS splits (a whole cluster) ...
CLUSTER = split_plan.CLUSTER
CLUSTER_MIN_SPLITS = CLUSTER
# ... and only where the plain kernel's merge would read this many partial rows of a row group or
# more (valid rows x its splits): below, the cluster barriers cost more than that merge (H200, events,
# 4 rounds: b1 h32:8 T1 S2k, 4 rows x 11 splits, 14.3 us clustered against 13.6; b1 h8:1 S4k, 8 x 16,
# 13.1 against 13.7; b1 h8:1 S16k 15.1 against 18.8).
CLUSTER_MIN_PARTIAL_ROWS = 64
# The cluster kernel's merge costs less per split, so its balance takes more splits: the quantum of
# balanced_splits divided by this (2: about 1.4x the plain kernel's count). Its grid is capped at the
# clusters the GPU holds at once (cuOccupancyMaxActiveClusters: a cluster of CLUSTER CTAs must fit in
# one GPC, so a grid of one wave of CTAs can still be two waves of clusters).
CLUSTER_BALANCE_DIVISOR = 2
# ... and where that cap leaves the cluster kernel's grid under this share of the plain kernel's
# CTAs, the plain kernel streams the cache faster; where its merge is heavy (CLUSTER_HEAVY_MERGE_ROWS
# partial rows or more) the share may go down to CLUSTER_HEAVY_MIN_SHARE. H200, events: b1 h32:8 T1
# S32k (4 rows x 32 splits): 24 splits of the cluster kernel 54.6 us, 32 of the plain one 50.6; but
# b1 h32:8 T4 S32k (16 x 32): 24 against 32, 55.3 against 63.2 us, and b1 h32:4 T1 S128k (8 x 64):
# 56 splits against 64, 84.0 against 88.6 us.
CLUSTER_MIN_SHARE = (7, 8)
CLUSTER_HEAVY_MERGE_ROWS = 256
CLUSTER_HEAVY_MIN_SHARE = (3, 4)
# Short caches over few KV heads leave the cluster kernel's grid small (b1 h8:1 S4k: 24 CTAs of 192
# keys), each CTA a launch, a short key loop and the merges, mostly latency. Below CLUSTER_MIN_CTAS
# CTAs the cluster kernel also tries splits down to CLUSTER_SHORT_SPLIT_KEYS keys with the balance
# divided by CLUSTER_SHORT_DIVISOR, its grid capped near CLUSTER_MIN_CTAS, and takes that choice
# where it has more splits: H200, ncu, one profiled call each (session 29): b1 h8:1 T1 S4k 64 CTAs
# 10.24 us against 24 CTAs 11.42 (32 CTAs: 10.66), S8k 64 against 32 CTAs 10.72 against 11.71
# (48: 11.14); grids already at 64 CTAs or more were no faster with more (b1 h8:1 S32k, 176 against
# 64 CTAs, 15.42 against 14.53 us; b1 h16:2 S16k 176 against 96, 14.05 against 13.66). This rule
# against the one before (call 7): S4k 10.05 / 11.33 us, S16k 11.84 / 12.90, b1 h16:2 S4k 10.53 /
# 11.14, hd256 S8k 14.94 / 17.63, T4 S4k 11.78 / 12.74 (events, 3 rounds: the same direction but
# b1 h8:1 S8k, 14.0 / 13.3 us).
CLUSTER_MIN_CTAS = 64
CLUSTER_SHORT_SPLIT_KEYS = SPLIT_KEY_MULTIPLE
CLUSTER_SHORT_DIVISOR = 16
SPLITS_ENV = "FMHACTL_DECODE_SPLITS"  # "CTAS_PER_SM,MIN_SPLIT_KEYS": the split heuristic's two knobs (tuning runs)
MAX_GRID_Z = 65535  # grid.z = batch * heads_kv
# MHA decode (heads == KV heads) over a large cache with at least a wave of (batch, head) pairs
# (one split): the prefill family (TMA tiles of 128 keys) reads the cache 1-7% faster than the
# split kernel. H200, session 23 calls 5-6 (notes/op-session23), split kernel / family, medians of
# 4 rounds: b64 h16 T1 S4k d128 1.028 (499 against 485 us; cuDNN 487), b32 h16 S4k 1.031, b16 h16
# S8k 1.011, b128 h16 S2k 1.018, b64 T4 1.037, b32 T16 1.070, b64 d64 1.040, b8 h32 S8k 1.009,
# b256 h8 S1k 1.038, b32 d256 1.043; the split kernel stays ahead below a wave of pairs (b2 h32 S8k
# 0.925) and under GQA (b64 h32:8 S4k 260 against 609 us). Those rows read 0.5-1 GiB of K and V;
# from FAMILY_MIN_KV_BYTES on the kernel (>= ~110 us) also hides the family plan's refresh when
# a growing cache changes the KV length (fastpath: K/V maps re-encoded, the launch kept).
FAMILY_HEAD_DIMS = (64, 128, 256)
FAMILY_MIN_KV_BYTES = 1 << 29
# Per served head dim, the split kernel's cp.async ring (stages of one 16-key K block and its V
# block per warp) and the CTAs per SM that ring and its __launch_bounds__ leave room for: those of
# the compiled head dim that runs it, from the one table (fmhactl.plans.sm90_split_decode.KERNELS,
# rendered into FMHA_DECODE_STAGES_D* / FMHA_DECODE_CTAS_D* of kernels/sm90/fmha_decode_split.h).
RING_STAGES = {d: split_plan.ring_stages(d) for d in HEAD_DIMS}
RESIDENT_CTAS = {d: split_plan.resident_ctas(d) for d in HEAD_DIMS}
kernel_head_dim = split_plan.kernel_head_dim
ring_smem_bytes = split_plan.ring_smem_bytes  # the split kernel's dynamic SMEM for a call's head dim
SOURCE = "sm90/fmha_decode.cu"
ARCH = "sm_90a"


class DecodeSplit(ctypes.Structure):
    """ctypes twin of `struct DecodeSplit` in kernels/sm90/fmha_decode.cuh (the second kernel argument)."""

    _fields_ = [("o_partial", ctypes.c_void_p), ("lse_partial", ctypes.c_void_p),
                ("n_splits", ctypes.c_int), ("split_keys", ctypes.c_int),
                ("key_ranges", ctypes.c_void_p), ("shift", ctypes.c_int), ("counters", ctypes.c_void_p)]


def _tuned_splits(text: str | None) -> tuple[int, int]:
    """(CTAS_PER_SM, MIN_SPLIT_KEYS) from FMHACTL_DECODE_SPLITS, or the defaults (with a warning
    naming the rule when the value breaks it)."""
    if not text:
        return CTAS_PER_SM, MIN_SPLIT_KEYS
    try:
        ctas, keys = (int(x) for x in text.split(","))
    except ValueError:
        ctas = keys = 0
    if 1 <= ctas <= 16 and keys % SPLIT_KEY_MULTIPLE == 0 and SPLIT_KEY_MULTIPLE <= keys <= 65536:
        return ctas, keys
    import warnings

    warnings.warn(f"{SPLITS_ENV}={text!r} ignored: expected 'CTAS_PER_SM,MIN_SPLIT_KEYS' with CTAS_PER_SM in "
                  f"1..16 and MIN_SPLIT_KEYS a multiple of {SPLIT_KEY_MULTIPLE} in {SPLIT_KEY_MULTIPLE}..65536",
                  stacklevel=2)
    return CTAS_PER_SM, MIN_SPLIT_KEYS


CTAS_PER_SM, MIN_SPLIT_KEYS = _tuned_splits(os.environ.get(SPLITS_ENV))


def family_from_keys(batch: int, heads: int, heads_kv: int, head_dim: int, elem_bytes: int,
                     sm_count: int) -> int | None:
    """The KV length from which a plain call of this signature is left to the prefill family
    (MHA, a measured head dim, a wave of (batch, head) pairs, FAMILY_MIN_KV_BYTES of K and V), or
    None when the split kernel keeps every length."""
    pairs = batch * heads_kv
    if heads != heads_kv or head_dim not in FAMILY_HEAD_DIMS or pairs < max(1, sm_count):
        return None
    per_key = 2 * pairs * head_dim * elem_bytes  # bytes of K and V per cached key
    return -(-FAMILY_MIN_KV_BYTES // per_key)


def group_rows(seq_q: int, heads: int, heads_kv: int) -> int:
    """Valid packed rows of a row group: seq_q tokens x (heads / heads_kv) heads, at most a tile."""
    return min(ROWS_PER_CTA, seq_q * (heads // heads_kv))


def row_groups(seq_q: int, heads: int, heads_kv: int) -> int:
    """16-row tiles per (batch, KV head): the packed rows are seq_q tokens x (heads / heads_kv) heads."""
    return -(-seq_q * (heads // heads_kv) // ROWS_PER_CTA)


def _quantum(rows: int, divisor: int = 1) -> int:
    """balanced_splits' keys per split squared: BALANCE_KEYS_PER_ROW * max(rows, BALANCE_MIN_ROWS) / divisor."""
    return max(1, BALANCE_KEYS_PER_ROW * max(rows, BALANCE_MIN_ROWS) // divisor)


def balanced_splits(seq_k: int, rows: int, divisor: int = 1) -> int:
    """The split count past which more splits cost more in the merge than they save in streaming:
    the smallest m with m * m * q >= seq_k, q = BALANCE_KEYS_PER_ROW * max(rows, BALANCE_MIN_ROWS),
    rows = the valid packed rows of a row group (1..16).

    Each split adds partial rows that the last CTA of the row group reads back in the merge (H200,
    session 26: about 0.15 us a split at 8 rows of hd128), and each CTA streams seq_k / n keys
    (about 0.009 us a key at hd128); both scale with the head dim, so the time a * n * rows + b *
    seq_k / n is least near n = sqrt(seq_k / (2 rows)). Below 8 rows the merge's fixed per-split
    work dominates, so rows count as 8. Measured on small-batch GQA steps (b1 h16:2 S16k: 128
    splits 38.2 us, 32 splits 23.1; b1 h8:1 S32k: 256 splits 54.8 us, 32 splits 26.9;
    notes/op-session26); steps with many (batch, KV head) pairs are capped lower by _split_cap.
    divisor: the cluster kernel's (CLUSTER_BALANCE_DIVISOR), whose merge is spread over its CTAs."""
    quantum = _quantum(rows, divisor)
    blocks = -(-max(1, seq_k) // quantum)
    return math.isqrt(blocks - 1) + 1


def _shortest_split(min_keys: int | None) -> int:
    """The shortest split choose_splits allows: min_keys, or MIN_SPLIT_KEYS (read per call: tuning sets it)."""
    return MIN_SPLIT_KEYS if min_keys is None else min_keys


def choose_splits(batch: int, heads_kv: int, groups: int, seq_k: int, sm_count: int,
                  resident: int = 0, rows: int = ROWS_PER_CTA, divisor: int = 1,
                  cap_limit: int = MAX_SPLITS, min_keys: int | None = None) -> tuple[int, int]:
    """(n_splits, split_keys): enough splits for about CTAS_PER_SM CTAs per SM, none shorter than
    MIN_SPLIT_KEYS keys (a multiple of SPLIT_KEY_MULTIPLE), at most MAX_SPLITS and at most
    balanced_splits(seq_k, rows) (rows: the valid packed rows of a row group); every split non-empty.

    resident: the CTAs per SM the kernel can hold (0: unknown). Rounding the split count up can
    make a grid a little larger than one wave (b8 x 8 KV heads: 5 x 64 = 320 CTAs); where the
    kernel holds only CTAS_PER_SM a SM (the hd128 ring: 2), the few CTAs past the wave would run
    alone at a fraction of the bandwidth, so the count is rounded down to what fits in one wave
    (4 splits of twice the keys) unless no split at all fits. divisor: balanced_splits'; cap_limit:
    a further cap on the count (the cluster kernel's co-resident clusters); min_keys: the shortest
    split instead of MIN_SPLIT_KEYS (the cluster kernel's short splits)."""
    shortest = _shortest_split(min_keys)
    n = min(_split_cap(batch, heads_kv, groups, sm_count, resident, cap_limit), max(1, -(-seq_k // shortest)),
            balanced_splits(seq_k, rows, divisor))
    split_keys = -(-seq_k // n)
    split_keys = -(-split_keys // SPLIT_KEY_MULTIPLE) * SPLIT_KEY_MULTIPLE
    return -(-seq_k // split_keys), split_keys


def _split_cap(batch: int, heads_kv: int, groups: int, sm_count: int, resident: int,
               cap_limit: int = MAX_SPLITS) -> int:
    """choose_splits' split count for a cache long enough (1..MAX_SPLITS): about CTAS_PER_SM CTAs
    a SM, within one wave of `resident` CTAs a SM where that is known."""
    base = max(1, batch * heads_kv * groups)
    wanted = -(-CTAS_PER_SM * max(1, sm_count) // base)
    if resident > 0:
        wanted = min(wanted, max(1, resident * max(1, sm_count) // base))
    return max(1, min(wanted, MAX_SPLITS, cap_limit))


def split_range(batch: int, heads_kv: int, groups: int, seq_k: int, sm_count: int,
                resident: int = 0, rows: int = ROWS_PER_CTA, divisor: int = 1,
                cap_limit: int = MAX_SPLITS, min_keys: int | None = None) -> tuple[int, int, int, int]:
    """(n_splits, split_keys, first, last): choose_splits' answer for seq_k >= 1, and KV lengths
    first <= seq_k <= last that all get that same answer (the other arguments and the two knobs
    unchanged). A greedy step's cache grows by one key, so a plan keeps the answer and its launch
    until the length leaves the range (DecodePlan.run): about every split_keys steps.

    With everything but seq_k fixed, choose_splits is ceilings of seq_k in turn, each constant on
    an interval of seq_k once the one before it is fixed (c = _split_cap, MIN = min_keys or MIN_SPLIT_KEYS,
    M = SPLIT_KEY_MULTIPLE, q = balanced_splits' quantum; ceil(ceil(a / b) / c) = ceil(a / (b c))):
      n = min(c, b, m), b = ceil(seq_k / MIN) = b on ((b - 1) MIN, b MIN], m = balanced_splits =
          m on ((m - 1)^2 q, m^2 q]; b and m never fall as seq_k grows, so n keeps its value from
          where both reach n (b from (n - 1) MIN + 1, m from (n - 1)^2 q + 1) up to where the last
          term equal to n leaves it (b MIN or m^2 q; never, when the cap c is n);
      split_keys = M ceil(ceil(seq_k / n) / M) = M j, j = ceil(seq_k / (n M)): on ((j - 1) n M, j n M];
      n_splits = ceil(seq_k / split_keys) = t: on ((t - 1) split_keys, t split_keys].
    The intersection of the intervals around seq_k fixes n, then split_keys, then n_splits: that
    is the range returned (tests/torch/test_decode_cpu.py holds it to choose_splits key by key)."""
    n_splits, split_keys = choose_splits(batch, heads_kv, groups, seq_k, sm_count, resident, rows, divisor, cap_limit,
                                         min_keys)
    cap = _split_cap(batch, heads_kv, groups, sm_count, resident, cap_limit)
    shortest = _shortest_split(min_keys)
    by_length = -(-seq_k // shortest)
    balanced = balanced_splits(seq_k, rows, divisor)
    quantum = _quantum(rows, divisor)
    n = min(cap, by_length, balanced)
    span = n * SPLIT_KEY_MULTIPLE
    j = -(-seq_k // span)
    first = max((n - 1) * shortest + 1, (n - 1) ** 2 * quantum + 1, (j - 1) * span + 1,
                (n_splits - 1) * split_keys + 1)
    last = min(j * span, n_splits * split_keys)
    if cap > n:  # else every longer cache takes the cap too
        ends = [by_length * shortest] if by_length == n else []
        ends += [balanced ** 2 * quantum] if balanced == n else []
        last = min(last, max(ends))
    return n_splits, split_keys, first, last


def variant():
    """The decode kernels as a registry Variant, so they build through the one NVRTC cache."""
    from fmhactl.registry import Variant

    return Variant(name="sm90_decode", description="split-KV decode (torch op only)", source=SOURCE,
                   archs=(ARCH,), launcher="decode", kernel="fmha_decode_split_{dtype}_d{head_dim_pow2}",
                   head_dims=HEAD_DIMS, features=("causal", "gqa", "lse", "split_kv"),
                   index64=True)  # every global offset 64-bit: docs/features.md "Tensors past 2^31 elements"


_state: dict[str, object] = {"enabled": os.environ.get(ENABLE_ENV, "1") != "0", "cubin": None, "launches": 0,
                             "fused": os.environ.get(COMBINE_ENV, "fused") != "launch"}
_modules: dict[int, object] = {}  # device index -> LoadedModule
_lock = threading.Lock()
# (device index, stream handle) -> the fused merge's counters, zeroed once. Every launch leaves
# them at zero (the last CTA of a row group resets its counter), so launches ordered on one
# stream share them without a memset; two streams sharing them would race, hence one per
# stream. Buffers outgrown are kept: a captured CUDA graph may still point at them.
_counters: dict[tuple[int | None, int], list[torch.Tensor]] = {}
# device index -> zeroed counter buffers made outside any capture (at plan builds), handed to a
# stream first seen while it captures a CUDA graph (nothing zeroed then would run before replay).
_spares: dict[int | None, list[torch.Tensor]] = {}
MIN_COUNTERS = 4096
SPARES = 2


def set_enabled(enabled: bool) -> None:
    """Turn the decode path on or off for this process (off: small-T calls take the general kernels)."""
    _state["enabled"] = bool(enabled)


def set_fused_combine(fused: bool) -> None:
    """Merge the splits inside the split launch (True, the default) or in a second launch."""
    _state["fused"] = bool(fused)


def _capturing(device: torch.device) -> bool:
    return device.type == "cuda" and torch.cuda.is_current_stream_capturing()


def _make_spares(device: torch.device) -> None:
    """Zeroed counter buffers for streams that first appear inside a graph capture (plan builds)."""
    with _lock:
        spares = _spares.setdefault(device.index, [])
        missing = SPARES - len(spares)
    if missing > 0 and not _capturing(device):
        made = [torch.zeros(MIN_COUNTERS, dtype=torch.int32, device=device) for _ in range(missing)]
        with _lock:
            spares.extend(made)


def counters_for(device: torch.device, stream: int, needed: int) -> int | None:
    """Device address of at least `needed` zeroed counters for launches on `stream`; None when
    none can be had (a new stream inside a graph capture with no spare left): merge by launch."""
    buffer = counter_buffer(device, stream, needed)
    return None if buffer is None else buffer.data_ptr()


def counter_buffer(device: torch.device, stream: int, needed: int) -> torch.Tensor | None:
    """counters_for's buffer itself (a plan keeps it for its stream: DecodePlan.run)."""
    kept = _counters.get((device.index, stream))
    if kept is not None and kept[-1].numel() >= needed:
        return kept[-1]
    if _capturing(device):
        with _lock:
            spares = _spares.get(device.index, [])
            buffer = spares.pop() if spares and spares[-1].numel() >= needed else None
    else:
        buffer = torch.zeros(max(MIN_COUNTERS, needed), dtype=torch.int32, device=device)
    if buffer is None:
        return None
    with _lock:
        _counters.setdefault((device.index, stream), []).append(buffer)
    return buffer


def launches() -> int:
    """Decode calls served in this process (tests and `bench --model` prove the path ran)."""
    return int(_state["launches"])


def clear() -> None:
    """Forget every decode plan."""
    with _lock:
        _plans.clear()


def _functions(device_index: int, dtype: str, head_dim: int) -> tuple[int, int, int, int]:
    """(split, combine, cluster) kernel handles of the compiled head dim that serves head_dim, and
    the cluster kernel's clusters resident at once (max_active_clusters)."""
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.runtime.driver import LoadedModule, allow_dynamic_smem, max_active_clusters

    with _lock:
        if _state["cubin"] is None:
            _state["cubin"] = build(variant(), BuildTarget(ARCH)).cubin_path
        if device_index not in _modules:
            with torch.cuda.device(device_index):
                _modules[device_index] = LoadedModule(_state["cubin"])
        module = _modules[device_index]
    compiled = kernel_head_dim(head_dim)  # head_dim itself, or the next wider kernel (masked)
    split = module.function(f"fmha_decode_split_{dtype}_d{compiled}")
    combine = module.function(f"fmha_decode_combine_{dtype}_d{compiled}")
    cluster = module.function(f"fmha_decode_cluster_{dtype}_d{compiled}")
    # the plan enqueues through the raw driver, which sets no attribute: the ring's SMEM (over
    # 48 KiB at hd128) is allowed here, once per function; the merge stages partials in as much
    allow_dynamic_smem(split, ring_smem_bytes(head_dim))
    allow_dynamic_smem(combine, ring_smem_bytes(head_dim))
    allow_dynamic_smem(cluster, ring_smem_bytes(head_dim))
    with torch.cuda.device(device_index):
        clusters = max_active_clusters(cluster, (1, CLUSTER, 1), (32 * WARPS, 1, 1), ring_smem_bytes(head_dim))
    return int(split), int(combine), int(cluster), clusters


class SplitChoice(NamedTuple):
    """One kernel's split count and launch for a KV length range."""

    n_splits: int
    split_keys: int
    head: tuple  # launch_head (grid.y: n_splits, or the cluster kernel's n_splits rounded up to CLUSTER)
    work_floats: int  # fp32 workspace elements (0: no split)
    lse_offset: int  # lse_partial's byte offset in the workspace


class SplitLaunch(NamedTuple):
    """A decode plan's split choice with what follows from it, valid for KV lengths first..last
    while the knobs keep the values it was made with (a tuple: one assignment replaces it whole,
    so a concurrent call reads the old or the new, never a mix): the plain split kernel's launch
    (taken also when no counters can be had: then with the merge launch), and the cluster
    kernel's where the fused merge takes it."""

    first: int
    last: int
    knobs: tuple  # _knobs() when made
    plain: SplitChoice
    cluster: SplitChoice | None  # None: the fused merge takes the plain kernel too


def _knobs() -> tuple:
    """The module's split knobs, read per call (tuning runs and tests set them): a plain tuple, the
    cheapest thing to compare on the launch path."""
    return (CTAS_PER_SM, MIN_SPLIT_KEYS, CLUSTER_MIN_SPLITS, CLUSTER_BALANCE_DIVISOR, CLUSTER_MIN_SHARE,
            CLUSTER_MIN_PARTIAL_ROWS, CLUSTER_HEAVY_MERGE_ROWS, CLUSTER_HEAVY_MIN_SHARE, CLUSTER_MIN_CTAS,
            CLUSTER_SHORT_SPLIT_KEYS, CLUSTER_SHORT_DIVISOR)


@dataclass(eq=False)
class DecodePlan:
    """One decode signature (all but the KV length and the K/V strides), settled once."""

    device_index: int
    device: torch.device
    dtype: torch.dtype
    split_fn: int
    combine_fn: int
    params: ctypes.Structure
    split: DecodeSplit
    kernel_params: ctypes.Array
    out_size: tuple[int, ...]
    out_stride: tuple[int, ...]
    lse_size: tuple[int, int, int] | None
    rows_total: int  # batch * heads * seq_q
    base_ctas: tuple[int, int]  # (batch * heads_kv, row groups): grid.z, grid.x (grid.y: the splits)
    group_rows: int  # valid packed rows of a row group (group_rows): the split count's balance
    head_dim: int
    seq_q: int
    seq_dim: int  # k's sequence dimension in the caller's layout
    sm_count: int
    family_from: int | None = None  # plain calls from this KV length on go to the family (family_from_keys)
    cluster_fn: int = 0  # the cluster kernel (0: none; the plain split kernel merges every split count)
    max_clusters: int = 0  # the cluster kernel's clusters resident at once on this GPU (cuOccupancyMaxActiveClusters)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # Made once (__post_init__) rather than per call: the kernel argument array's address, the merge
    # launch's cuLaunchKernel head (launch_head: its grid does not depend on the split count), out
    # as (batch, seq_q, heads, dim) (out_bshd: transformers' layout, no transpose view).
    kernel_params_address: int = field(init=False, repr=False)
    combine_head: tuple = field(init=False, repr=False)
    out_bshd_size: tuple[int, ...] = field(init=False, repr=False)
    out_bshd_stride: tuple[int, ...] = field(init=False, repr=False)
    # The last call's split choice with what follows from it (_split_launch), kept while the KV
    # length stays in its split_range and the knobs are unchanged (op_session7_sweep sets them).
    splits: SplitLaunch = field(init=False, repr=False)
    # (kernel, grid.y) -> launch_head, at most MAX_SPLITS of each kernel
    heads: dict[tuple[int, int], tuple] = field(init=False, repr=False, default_factory=dict)
    # (stream, buffer, its address): the fused merge's counters last used, counter_buffer's answer
    # for that stream, held by the plan (any buffer of the stream serves: each launch leaves it zeroed)
    counters: tuple[int, torch.Tensor, int] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        self.kernel_params_address = ctypes.addressof(self.kernel_params)
        self.combine_head = launch_head(self.combine_fn, (self.base_ctas[1], 1, self.base_ctas[0]),
                                        (32 * WARPS, 1, 1), ring_smem_bytes(self.head_dim))
        size, stride = self.out_size, self.out_stride
        if self.seq_dim == 2:  # bhsd: out is the transposed view of a (batch, seq_q, heads, dim) buffer
            size, stride = (size[0], size[2], size[1], size[3]), (stride[0], stride[2], stride[1], stride[3])
        self.out_bshd_size, self.out_bshd_stride = size, stride
        self.splits = SplitLaunch(1, 0, (), SplitChoice(0, 0, (), 0, 0), None)  # holds for no length: the first call fills it

    def _split_launch(self, seq_k: int) -> SplitLaunch:
        """The split choice for seq_k and the KV lengths that share it: the plain kernel's, and the
        cluster kernel's where the plain merge would read CLUSTER_MIN_PARTIAL_ROWS partial rows or
        more and the cluster kernel has CLUSTER_MIN_SPLITS splits or more within the clusters the GPU
        holds at once, on CLUSTER_MIN_SHARE of the plain kernel's CTAs or more (CLUSTER_HEAVY_MIN_SHARE
        where the plain merge reads CLUSTER_HEAVY_MERGE_ROWS rows or more), with splits down to
        CLUSTER_SHORT_SPLIT_KEYS keys where its grid would have fewer than CLUSTER_MIN_CTAS CTAs; every
        answer valid on the returned range, the intersection of theirs."""
        knobs = _knobs()  # read first: a change while this runs refills it
        _, _, min_splits, divisor, share_light, min_rows, heavy_rows, share_heavy, min_ctas, short_keys, \
            short_divisor = knobs
        batch_heads, groups = self.base_ctas
        resident = RESIDENT_CTAS[self.head_dim]
        n_splits, split_keys, first, last = split_range(batch_heads, 1, groups, seq_k, self.sm_count, resident,
                                                        self.group_rows)
        plain = self._choice(self.split_fn, n_splits, split_keys, n_splits)
        cluster = None
        cluster_cap = self.max_clusters // (batch_heads * groups) * CLUSTER if self.cluster_fn else 0
        partial_rows = n_splits * self.group_rows  # what the plain kernel's merge would read
        if cluster_cap >= max(2, min_splits) and partial_rows >= min_rows:
            n, keys, c_first, c_last = split_range(batch_heads, 1, groups, seq_k, self.sm_count, resident,
                                                   self.group_rows, divisor, cluster_cap)
            row_groups = batch_heads * groups
            grid_y = -(-n // CLUSTER) * CLUSTER
            if grid_y * row_groups < min_ctas:  # few CTAs: shorter splits if they give more
                short_cap = min(cluster_cap, -(-min_ctas // (row_groups * CLUSTER)) * CLUSTER)
                s_n, s_keys, s_first, s_last = split_range(batch_heads, 1, groups, seq_k, self.sm_count, resident,
                                                           self.group_rows, short_divisor, short_cap, short_keys)
                c_first, c_last = max(c_first, s_first), min(c_last, s_last)  # both answers hold there
                if s_n > n:
                    n, keys = s_n, s_keys
                    grid_y = -(-n // CLUSTER) * CLUSTER
            share = share_heavy if partial_rows >= heavy_rows else share_light
            if n >= max(2, min_splits) and grid_y * share[1] >= n_splits * share[0]:
                cluster = self._choice(self.cluster_fn, n, keys, grid_y)
                first, last = max(first, c_first), min(last, c_last)
        return SplitLaunch(first, last, knobs, plain, cluster)

    def launch_for(self, seq_k: int) -> SplitLaunch:
        """The split choice for seq_k: the kept one while seq_k is in its range and the knobs are
        unchanged, else made again (_split_launch) and kept (one tuple: a thread sees the old or
        the new). run() and describe_launch() both read it here."""
        launch = self.splits
        if not (launch.first <= seq_k <= launch.last and launch.knobs == _knobs()):
            self.splits = launch = self._split_launch(seq_k)
        return launch

    def _choice(self, function: int, n_splits: int, split_keys: int, grid_y: int) -> SplitChoice:
        """A kernel's launch for n_splits over grid.y CTAs a row group (an LSE slot each)."""
        head = self.heads.get((function, grid_y))
        if head is None:
            head = launch_head(function, (self.base_ctas[1], grid_y, self.base_ctas[0]), (32 * WARPS, 1, 1),
                               ring_smem_bytes(self.head_dim))
            self.heads[(function, grid_y)] = head
        o_floats = n_splits * self.rows_total * self.head_dim
        work = o_floats + grid_y * self.rows_total if n_splits > 1 else 0
        return SplitChoice(n_splits, split_keys, head, work, 4 * o_floats)

    def run(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, driver, stream: int,
            key_ranges: torch.Tensor | None = None, shift: int | None = None,
            out_bshd: bool = False) -> tuple | None:
        """(out, lse or None), or None when this call's K/V cannot be read by the 16-byte loads.

        key_ranges: (batch, 2) int32 on the device, each batch row's valid keys [start, end)
        (padded batches); shift: causal rows see keys j <= token + shift (default seq_k - seq_q);
        out_bshd: out as (batch, seq_q, heads, dim) whatever the layout (the same memory as the
        layout's out, which for bhsd is its transposed view). driver: RawDriver (enqueue)."""
        qp, kp, vp = q.data_ptr(), k.data_ptr(), v.data_ptr()
        kshape = k.shape
        if (qp | kp | vp) & 15 or kshape != v.shape:
            return None
        ks, vs = k.stride(), v.stride()
        if (ks[0] | ks[1] | ks[2] | vs[0] | vs[1] | vs[2]) & 7 or ks[3] != 1 or vs[3] != 1:
            return None
        seq_k = kshape[self.seq_dim]
        if seq_k == 0:
            return None  # the general path reports it
        if self.family_from is not None and seq_k >= self.family_from and key_ranges is None:
            return None  # the prefill family reads this cache faster (FAMILY_MIN_KV_BYTES)
        launch = self.launch_for(seq_k)
        if out_bshd:
            out = torch.empty_strided(self.out_bshd_size, self.out_bshd_stride, dtype=self.dtype, device=self.device)
        else:
            out = torch.empty_strided(self.out_size, self.out_stride, dtype=self.dtype, device=self.device)
        lse = torch.empty(self.lse_size, dtype=torch.float32, device=self.device) if self.lse_size else None
        # bshd strides: layout bhsd has (batch, heads, seq, dim) so seq and heads swap.
        kb, kq, kh = (ks[0], ks[2], ks[1]) if self.seq_dim == 2 else (ks[0], ks[1], ks[2])
        vb, vq, vh = (vs[0], vs[2], vs[1]) if self.seq_dim == 2 else (vs[0], vs[1], vs[2])
        with self.lock:
            p, s = self.params, self.split
            p.q, p.k, p.v, p.o = qp, kp, vp, out.data_ptr()
            p.lse = lse.data_ptr() if lse is not None else None
            p.k_batch_stride, p.k_seq_stride, p.k_head_stride = kb, kq, kh
            p.v_batch_stride, p.v_seq_stride, p.v_head_stride = vb, vq, vh
            p.seq_k = seq_k
            # the fused merge (counters of this stream) takes the cluster kernel where it has one
            counters = self._counters(stream) if launch.plain.work_floats and _state["fused"] else None
            choice = launch.cluster if counters is not None and launch.cluster is not None else launch.plain
            # The split workspace is allocated per call, not kept on the plan: the caching allocator
            # hands a freed block out again in this stream's order, whereas one kept buffer would be
            # shared by launches on other streams and by every CUDA graph captured with it.
            work = (torch.empty(choice.work_floats, dtype=torch.float32, device=self.device)
                    if choice.work_floats else None)
            s.n_splits, s.split_keys = choice.n_splits, choice.split_keys
            s.key_ranges = key_ranges.data_ptr() if key_ranges is not None else None
            s.shift = seq_k - self.seq_q if shift is None else shift
            if work is not None:
                s.o_partial = address = work.data_ptr()
                s.lse_partial = address + choice.lse_offset
            else:
                s.o_partial = s.lse_partial = None
            s.counters = counters
            driver.enqueue(choice.head, stream, self.kernel_params_address)
            if work is not None and counters is None:
                driver.enqueue(self.combine_head, stream, self.kernel_params_address)
            _state["launches"] += 1
        return out, lse

    def _counters(self, stream: int) -> int | None:
        """Address of the fused merge's counters for launches on `stream` (counters_for), or None.
        The plan's last buffer serves while the stream is the same: at least CLUSTER counters per
        base CTA (checked when kept), zeroed after every launch, used on that stream alone."""
        kept = self.counters
        if kept is not None and kept[0] == stream:
            return kept[2]
        buffer = counter_buffer(self.device, stream, self.base_ctas[0] * self.base_ctas[1] * CLUSTER)
        if buffer is None:
            return None  # not kept: outside a capture a later call can have one made
        self.counters = (stream, buffer, buffer.data_ptr())
        return self.counters[2]


_plans: dict[tuple, DecodePlan | None] = {}
MAX_PLANS = 1024


def plan_key(q: torch.Tensor, k: torch.Tensor, causal: bool, scale: float | None, return_lse: bool,
             layout: str, max_seq_q: int = MAX_SEQ_Q) -> tuple:
    """Everything a decode plan depends on: not k's sequence length nor the K/V strides. K's head
    dim is in it: the inputs are checked only when a plan is built, so a K of another head dim than
    Q's must miss the plan (and be refused by the build's check), not be read as Q's."""
    kshape = k.shape
    return (q.shape, q.stride(), kshape[0], kshape[1] if layout == "bhsd" else kshape[2], kshape[-1], q.dtype,
            k.dtype, q.get_device(), k.get_device(), causal, scale, return_lse, layout, max_seq_q)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float | None,
              return_lse: bool, layout: str, driver, current_device: int, raw_stream,
              key_ranges: torch.Tensor | None = None, shift: int | None = None,
              max_seq_q: int = MAX_SEQ_Q, out_bshd: bool = False) -> tuple | None:
    """(out, lse or None) through the decode kernels, or None when this call is not theirs.

    current_device: the current CUDA device index; raw_stream(index): its current stream handle;
    key_ranges, shift, out_bshd: see DecodePlan.run; max_seq_q: the most query tokens to take
    (padded batches take more than plain calls: their alternative is a launch per row)."""
    if not _state["enabled"] or k.dim() != 4 or backends.current_override() is not None:
        return None
    key = plan_key(q, k, causal, scale, return_lse, layout, max_seq_q)
    plan = _plans.get(key, False)
    if plan is False:
        plan = _build(key, q, k, v, causal, scale, return_lse, layout, max_seq_q)
    if (plan is None or v.dtype != plan.dtype or v.get_device() != plan.device_index
            or current_device != plan.device_index):
        return None
    return plan.run(q, k, v, driver, raw_stream(plan.device_index), key_ranges, shift, out_bshd)


def describe_launch(q: torch.Tensor, k: torch.Tensor, causal: bool, scale: float | None = None,
                    return_lse: bool = False, layout: str = "bhsd") -> dict | None:
    """What the decode plan of a call like this one launches at k's KV length with the fused
    merge as now set (the kernel, the splits, the grid, how the splits merge), or None when no
    decode plan serves it (no call of this signature yet, or not a decode call). Read off the
    plan, nothing launched: `fmhactl bench --decode` shows it beside each shape's timing."""
    plan = _plans.get(plan_key(q, k, causal, scale, return_lse, layout))
    if not plan:
        return None
    launch = plan.launch_for(k.shape[plan.seq_dim])
    clustered = bool(_state["fused"]) and launch.cluster is not None
    choice = launch.cluster if clustered else launch.plain
    _, grid, _, _ = unpack_head(choice.head)
    merge = ("none (one split)" if choice.n_splits == 1 else
             f"clusters of {CLUSTER} through DSMEM, then their partials by the last CTA of each rank" if clustered
             else "by the last CTA of each row group" if _state["fused"] else "a second launch")
    return {"kernel": "cluster" if clustered else "split", "n_splits": choice.n_splits,
            "split_keys": choice.split_keys, "grid": list(grid), "merge": merge}


def serves(seq_q: int, head_dim: int, cc: tuple[int, int], dtype: torch.dtype, max_seq_q: int = MAX_SEQ_Q) -> bool:
    """Whether a checked call of this shape on a GPU of capability cc takes the decode kernels."""
    return (1 <= seq_q <= max_seq_q and head_dim in HEAD_DIMS and cc[0] == 9
            and dtype in (torch.bfloat16, torch.float16))


def takes_padded(seq_q: int, head_dim: int, cc: tuple[int, int], dtype: torch.dtype) -> bool:
    """Whether a plain call zero-padded to head_dim would come to the decode kernels (the cached path
    tries them first): such a call keeps the copy padding, not the SM90 family's TMA zero fill."""
    return bool(_state["enabled"]) and serves(seq_q, head_dim, cc, dtype)


def _build(key: tuple, q, k, v, causal: bool, scale: float | None, return_lse: bool, layout: str,
           max_seq_q: int):
    from fmhactl.runtime.device import sm_count
    from fmhactl.runtime.params import FmhaParams
    from fmhactl.torch.inputs import DTYPES, capability

    p = check_inputs(q, k, v, layout, scale)  # bad input raises here, never cached
    plan = None
    qb = to_bshd(q, layout)
    groups = row_groups(p.seq_q, p.heads, p.heads_kv)
    if (serves(p.seq_q, p.head_dim, capability(q.device), q.dtype, max_seq_q)
            and p.batch * p.heads_kv <= MAX_GRID_Z and qb.stride(3) == 1 and not any(s & 7 for s in qb.stride()[:3])):
        split_fn, combine_fn, cluster_fn, max_clusters = _functions(q.get_device(), DTYPES[q.dtype], p.head_dim)
        _make_spares(q.device)
        params = FmhaParams()
        params.q_batch_stride, params.q_seq_stride, params.q_head_stride = qb.stride()[:3]
        out_bshd = (p.batch, p.seq_q, p.heads, p.head_dim)
        out_strides = (p.seq_q * p.heads * p.head_dim, p.heads * p.head_dim, p.head_dim, 1)
        params.o_batch_stride, params.o_seq_stride, params.o_head_stride = out_strides[:3]
        params.batch, params.heads, params.heads_kv = p.batch, p.heads, p.heads_kv
        params.seq_q, params.seq_k, params.head_dim = p.seq_q, p.seq_k, p.head_dim
        softmax_scale = scale if scale is not None else p.head_dim ** -0.5
        params.softmax_scale = softmax_scale
        params.scale_log2 = softmax_scale * 1.4426950408889634
        params.causal = int(causal)
        split = DecodeSplit()
        kernel_params = (ctypes.c_void_p * 2)(ctypes.addressof(params), ctypes.addressof(split))
        if layout == "bhsd":
            out_size = (p.batch, p.heads, p.seq_q, p.head_dim)
            out_stride = (out_strides[0], out_strides[2], out_strides[1], 1)
        else:
            out_size, out_stride = out_bshd, out_strides
        plan = DecodePlan(
            device_index=q.get_device(), device=q.device, dtype=q.dtype, split_fn=split_fn, combine_fn=combine_fn,
            cluster_fn=cluster_fn, max_clusters=max_clusters,
            params=params, split=split, kernel_params=kernel_params, out_size=out_size, out_stride=out_stride,
            lse_size=(p.batch, p.heads, p.seq_q) if return_lse else None, rows_total=p.batch * p.heads * p.seq_q,
            base_ctas=(p.batch * p.heads_kv, groups), group_rows=group_rows(p.seq_q, p.heads, p.heads_kv),
            head_dim=p.head_dim, seq_q=p.seq_q,
            seq_dim=2 if layout == "bhsd" else 1,
            sm_count=sm_count(q.get_device()),
            family_from=family_from_keys(p.batch, p.heads, p.heads_kv, p.head_dim, q.element_size(),
                                         sm_count(q.get_device())) if max_seq_q == MAX_SEQ_Q else None)
    with _lock:
        if len(_plans) >= MAX_PLANS:
            _plans.clear()
        _plans[key] = plan
    return plan
