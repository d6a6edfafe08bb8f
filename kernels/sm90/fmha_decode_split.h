// GENERATED from fmhactl/plans/sm90_split_decode.py by `python -m fmhactl.plans --write`; do not edit.
// The split-KV decode kernels' per-head-dim ring and residency, and their second by-value
// argument (after FmhaParams). fmhactl/torch/decode.py reads the same table and mirrors
// DecodeSplit with ctypes; tests/torch/test_decode_cpu.py compiles this header on the host and
// checks every offset, the size and the table.
#pragma once

// Per compiled head dim D: the split kernel's per-warp cp.async ring (stages of one 16-key K
// block and its V block) and the CTAs per SM its __launch_bounds__ asks for; the host sizes the
// dynamic SMEM (WARPS * STAGES * 2 * 16 * D * 2 bytes) and the split count from them.
#define FMHA_DECODE_STAGES_D64 4
#define FMHA_DECODE_CTAS_D64 3
#define FMHA_DECODE_STAGES_D128 3
#define FMHA_DECODE_CTAS_D128 2
#define FMHA_DECODE_STAGES_D256 3
#define FMHA_DECODE_CTAS_D256 1

// Every compiled head dim, for fmha_decode.cu's entries: X(D) per D. A call's head dim that is
// a multiple of 16 from 32 runs the smallest D >= it, masked past it.
#define FMHA_DECODE_KERNEL_HEAD_DIMS(X) X(64) X(128) X(256)
#define FMHA_DECODE_MIN_HEAD_DIM 32
#define FMHA_DECODE_HEAD_DIM_STEP 16

// The cluster kernel's cluster: this many consecutive splits (grid.y) of one row group.
#define FMHA_DECODE_CLUSTER 8

#ifdef __cplusplus
// The ring stages of compiled head dim D, for templates (kStages 0: D is not compiled).
template <int D>
struct FmhaDecodeRing {
    static constexpr int kStages = 0;
};
template <> struct FmhaDecodeRing<64> { static constexpr int kStages = FMHA_DECODE_STAGES_D64; };
template <> struct FmhaDecodeRing<128> { static constexpr int kStages = FMHA_DECODE_STAGES_D128; };
template <> struct FmhaDecodeRing<256> { static constexpr int kStages = FMHA_DECODE_STAGES_D256; };
#endif

struct DecodeSplit {
    float* o_partial;    // (n_splits, batch * heads * seq_q, head_dim) fp32: O of each split, normalised
    float* lse_partial;  // (n_splits, batch * heads * seq_q) fp32: base-2 LSE of each split (-inf: no key)
    int n_splits;
    int split_keys;      // keys per split, a multiple of FMHA_DECODE_WARPS * FMHA_DECODE_KEYS
    // Padded batches: per batch row the interval [start, end) of valid keys (batch x 2 int32);
    // null: every key 0..seq_k-1.
    const int* key_ranges;
    // Causal rows see keys j <= token + shift (seq_k - seq_q for a plain call: bottom-right).
    int shift;
    // Fused merge: one zeroed counter per (batch * heads_kv, row group) (index z * row_groups + x;
    // the cluster kernel: FMHA_DECODE_CLUSTER of them, one per rank, from that index times it);
    // the last split CTA of a group merges it and resets the counter to 0. null: a separate
    // fmha_decode_combine_* launch merges (the plain split kernel only).
    unsigned* counters;
};
