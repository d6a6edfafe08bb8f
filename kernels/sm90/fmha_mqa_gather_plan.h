// GENERATED from fmhactl/plans/sm90_gather.py by `python -m fmhactl.plans --write`; do not edit.
// The sm90_mqa_gather kernel's plan (kernels/sm90/fmha_mqa_gather.cuh): fixed sizes; the
// launcher (fmhactl/plans/sm90_gather.py) picks the M tiles per CTA and the SMEM from them.
#pragma once

namespace fmha_gather_plan {

constexpr int kRows = 16;
constexpr int kMaxTiles = 4;
constexpr int kMaxCols = 128;
constexpr int kListCap = 2048;
constexpr int kListBytes = 8352;
constexpr int kListCounts = 2056;
constexpr int kMinStages = 2;
constexpr int kMaxStages = 6;
constexpr int kMaxSplits = 32;

template <int D>
struct HeadDim {
    static constexpr bool kDeclared = false;
};
template <> struct HeadDim<64> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 64, kCols = 64, kSlices = 1, kMaxThreads = 128; };
template <> struct HeadDim<128> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 64, kCols = 128, kSlices = 1, kMaxThreads = 128; };
template <> struct HeadDim<256> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 32, kCols = 128, kSlices = 2, kMaxThreads = 256; };
template <> struct HeadDim<512> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 32, kCols = 128, kSlices = 4, kMaxThreads = 512; };

}  // namespace fmha_gather_plan

// sm90_mqa_gather's second by-value argument (after FmhaParams): the split-K workspace.
// Declared in fmhactl/plans/sm90_gather.py; the runtime's ctypes twin is built from it.
struct GatherSplit {
    float* o_partial;                    // (splits, batch * seq_q * heads, head_dim) fp32: O / l of each split
    float* lse_partial;                  // (splits, batch * seq_q * heads) fp32: base-2 LSE of each split; -inf: no key
    // One per (batch, KV head, token, head chunk), zero before a launch: each split CTA counts itself
    // in once its partial is visible; the last one merges and writes 0 back, so one buffer serves
    // every launch on one stream. Unused (may be null) when splits == 1.
    unsigned* counters;
    int splits;                          // CTAs per (token, head chunk) over the key list; 1: no split, no workspace
    int pad;                             // 0
};
