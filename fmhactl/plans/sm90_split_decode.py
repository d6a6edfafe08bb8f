"""The split-KV decode kernels' per-head-dim shape (kernels/sm90/fmha_decode.cuh), declared once.

The torch op's decode path (fmhactl/torch/decode.py) sizes the dynamic SMEM and the split count
from this table, and `python -m fmhactl.plans --write` renders it into
kernels/sm90/fmha_decode_split.h (the STAGES / CTAS macros the kernel's ring and
__launch_bounds__ read, the list of compiled head dims fmha_decode.cu instantiates, and the
DecodeSplit argument), so neither side writes the numbers twice.

What the kernel assumes about its compile-time head dim D (the "kernel head dim"):
* QK^T takes 32-d blocks (one 16-byte read of 8 consecutive d's per lane feeds two k16 MMAs), PV
  64-d blocks (a lane's 16-byte read of a V row is 8 output columns, 8 lanes a row): D % 64 == 0.
* The copies: a warp covers 32 / (D / 8) whole rows per cp.async pass, so D / 8 divides 32, and the
  bank swizzle XORs chunk indices below 8, so a row is a whole number of 128-byte lines. With the
  above: D in {64, 128, 256}.
* Registers: O is D / 2 fp32 a thread, Q's fragments D / 4, a block's K and V fragments D / 4
  each: 128 at hd64, 200 at hd128, 255 (no spill) at hd256 (NVRTC 13, sm_90a) -- the 255 that
  __launch_bounds__(128, 1) and (128, 2) allow; tests/torch/test_decode_cpu.py fails on a spill.
* SMEM: each warp's ring is STAGES x (16 keys x D of K + the same of V) x 2 bytes; the cross-warp
  merge (4 x 16 x D fp32 + 512 B) reuses it, and so does the LSE merge (the split kernel's fused
  merge and the combine launch, which takes the same dynamic SMEM): 16 x 256 weights, 16 x D fp32
  accumulators and at least one split's 16 x D fp32 partials staged by cp.async.
Any other head dim that is a multiple of HEAD_DIM_STEP up to 256 runs the next wider kernel head
dim (kernel_head_dim) masked: the row's chunks past head_dim are zero-filled in K's ring stage
(never read from global), not copied for V (those output columns are dropped), Q's are zero, and
no output, partial or merge column past head_dim is stored. The K/V cache is never copied.
"""

from __future__ import annotations

from fmhactl.config import head_dim_pow2
from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM, SMEM_PER_SM, SMEM_RESERVED_PER_BLOCK

HEADER_PATH = "kernels/sm90/fmha_decode_split.h"

WARPS = 4  # FMHA_DECODE_WARPS
KEYS = 16  # FMHA_DECODE_KEYS: keys of one ring block
ELEM = 2  # bytes of a 16-bit element
# The cluster kernel (fmha_decode_cluster_*): this many consecutive splits of a row group form a
# thread-block cluster whose CTAs merge their partials through distributed shared memory, each a
# slice of the rows' items, before the global merge of the clusters' partials (a power of two up
# to 8, the portable cluster size; CLUSTER x 16 rows = the CTA's 128 threads for the weights).
CLUSTER = 8
STATIC_SMEM = 128  # the split kernel's static SMEM (the merge's inv_total, is_last), as ptxas reports

# kernel head dim -> (ring stages a warp, CTAs per SM the ring and __launch_bounds__ leave room for).
# hd128: 3 stages, 2 CTAs (notes: 2 CTAs x 4 warps x 2 blocks ahead x 8 KiB = 128 KiB in flight a SM).
# hd64: 4 stages, 3 CTAs. hd256: 3 stages of 16 KiB (192 KiB a CTA), 1 CTA: 4 warps x 2 blocks ahead
# x 16 KiB = 128 KiB in flight a SM, as hd128; 2 stages would leave one block ahead and still not fit 2 CTAs.
KERNELS = {64: (4, 3), 128: (3, 2), 256: (3, 1)}
KERNEL_HEAD_DIMS = tuple(sorted(KERNELS))
HEAD_DIM_STEP = 16  # served head dims: multiples of this (the masked loads work per 8 d's; 16 is the contract)
MIN_HEAD_DIM = 32
HEAD_DIMS = tuple(range(MIN_HEAD_DIM, KERNEL_HEAD_DIMS[-1] + 1, HEAD_DIM_STEP))


def kernel_head_dim(head_dim: int) -> int:
    """The compiled head dim that serves head_dim: itself, or the next wider one (masked). The
    compiled dims are powers of two, so this is the entry pattern's {head_dim_pow2}, the one
    computation the registry also names the entry point by (torch/decode.py's variant)."""
    d = head_dim_pow2(head_dim)
    if d not in KERNELS:
        raise ValueError(f"head_dim {head_dim}: no decode kernel (compiled: {', '.join(map(str, KERNEL_HEAD_DIMS))})")
    return d


def ring_stages(head_dim: int) -> int:
    return KERNELS[kernel_head_dim(head_dim)][0]


def resident_ctas(head_dim: int) -> int:
    return KERNELS[kernel_head_dim(head_dim)][1]


def ring_smem_bytes(head_dim: int) -> int:
    """The split kernel's dynamic SMEM for a call at head_dim: every warp's ring at the kernel head dim."""
    d = kernel_head_dim(head_dim)
    return WARPS * KERNELS[d][0] * 2 * KEYS * d * ELEM


def cta_smem_bytes(head_dim: int) -> int:
    """What one resident CTA takes of the SM's SMEM: ring, static, and the block's reserved KiB."""
    return ring_smem_bytes(head_dim) + STATIC_SMEM + SMEM_RESERVED_PER_BLOCK


for _d, (_stages, _ctas) in KERNELS.items():
    assert _d % 64 == 0 and 32 % (_d // 8) == 0, f"hd{_d}: the copy and PV layouts need D in 64, 128, 256"
    assert _stages >= 2, f"hd{_d}: a ring of one stage prefetches nothing"
    assert ring_smem_bytes(_d) <= MAX_DYNAMIC_SMEM, f"hd{_d}: ring over the per-block SMEM limit"
    assert _ctas * cta_smem_bytes(_d) <= SMEM_PER_SM, f"hd{_d}: {_ctas} CTAs do not fit the SM's SMEM"
    assert WARPS * 16 * _d * 4 + 512 <= ring_smem_bytes(_d), f"hd{_d}: the warps' merge does not fit the ring"
    assert 16 * 256 * 4 + 2 * 16 * _d * 4 <= ring_smem_bytes(_d), f"hd{_d}: the LSE merge does not fit the ring"
    # the warps' merge, then the cluster kernel's partial (LSE, weights, 16 x D fp32 O) behind it
    assert WARPS * 16 * _d * 4 + 512 + (CLUSTER + 2) * 16 * 4 + 16 + 16 * _d * 4 <= ring_smem_bytes(_d), \
        f"hd{_d}: the cluster partial does not fit the ring"
assert CLUSTER * 16 == WARPS * 32 and CLUSTER & (CLUSTER - 1) == 0 and CLUSTER <= 8, "cluster size"


def render_header() -> list[str]:
    """The body of kernels/sm90/fmha_decode_split.h (C and C++: the ABI test compiles it with gcc)."""
    out = ["// The split-KV decode kernels' per-head-dim ring and residency, and their second by-value",
           "// argument (after FmhaParams). fmhactl/torch/decode.py reads the same table and mirrors",
           "// DecodeSplit with ctypes; tests/torch/test_decode_cpu.py compiles this header on the host and",
           "// checks every offset, the size and the table.",
           "#pragma once", "",
           "// Per compiled head dim D: the split kernel's per-warp cp.async ring (stages of one 16-key K",
           "// block and its V block) and the CTAs per SM its __launch_bounds__ asks for; the host sizes the",
           "// dynamic SMEM (WARPS * STAGES * 2 * 16 * D * 2 bytes) and the split count from them."]
    for d, (stages, ctas) in KERNELS.items():
        out += [f"#define FMHA_DECODE_STAGES_D{d} {stages}", f"#define FMHA_DECODE_CTAS_D{d} {ctas}"]
    out += ["", "// Every compiled head dim, for fmha_decode.cu's entries: X(D) per D. A call's head dim that is",
            f"// a multiple of {HEAD_DIM_STEP} from {MIN_HEAD_DIM} runs the smallest D >= it, masked past it.",
            "#define FMHA_DECODE_KERNEL_HEAD_DIMS(X) " + " ".join(f"X({d})" for d in KERNEL_HEAD_DIMS),
            f"#define FMHA_DECODE_MIN_HEAD_DIM {MIN_HEAD_DIM}",
            f"#define FMHA_DECODE_HEAD_DIM_STEP {HEAD_DIM_STEP}", "",
            "// The cluster kernel's cluster: this many consecutive splits (grid.y) of one row group.",
            f"#define FMHA_DECODE_CLUSTER {CLUSTER}", "",
            "#ifdef __cplusplus",
            "// The ring stages of compiled head dim D, for templates (kStages 0: D is not compiled).",
            "template <int D>",
            "struct FmhaDecodeRing {",
            "    static constexpr int kStages = 0;",
            "};"]
    out += [f"template <> struct FmhaDecodeRing<{d}> {{ static constexpr int kStages = FMHA_DECODE_STAGES_D{d}; }};"
            for d in KERNEL_HEAD_DIMS]
    out += ["#endif", "",
            "struct DecodeSplit {",
            "    float* o_partial;    // (n_splits, batch * heads * seq_q, head_dim) fp32: O of each split, normalised",
            "    float* lse_partial;  // (n_splits, batch * heads * seq_q) fp32: base-2 LSE of each split "
            "(-inf: no key)",
            "    int n_splits;",
            "    int split_keys;      // keys per split, a multiple of FMHA_DECODE_WARPS * FMHA_DECODE_KEYS",
            "    // Padded batches: per batch row the interval [start, end) of valid keys (batch x 2 int32);",
            "    // null: every key 0..seq_k-1.",
            "    const int* key_ranges;",
            "    // Causal rows see keys j <= token + shift (seq_k - seq_q for a plain call: bottom-right).",
            "    int shift;",
            "    // Fused merge: one zeroed counter per (batch * heads_kv, row group) (index z * row_groups + x;",
            "    // the cluster kernel: FMHA_DECODE_CLUSTER of them, one per rank, from that index times it);",
            "    // the last split CTA of a group merges it and resets the counter to 0. null: a separate",
            "    // fmha_decode_combine_* launch merges (the plain split kernel only).",
            "    unsigned* counters;",
            "};"]
    return out
