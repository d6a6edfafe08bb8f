// GENERATED from fmhactl/plans/sm90_gather.py by `python -m fmhactl.plans --write`; do not edit.
// The sm90_mqa_gather kernel's plan (kernels/sm90/fmha_mqa_gather.cuh): fixed sizes; the
// launcher (fmhactl/plans/sm90_gather.py) picks the M tiles per CTA and the SMEM from them.
#pragma once

namespace fmha_gather_plan {

constexpr int kRows = 16;
constexpr int kMaxTiles = 4;
constexpr int kMaxCols = 128;
constexpr int kListCap = 2048;
constexpr int kListBytes = 8208;
constexpr int kMinStages = 2;
constexpr int kMaxStages = 6;

template <int D>
struct HeadDim {
    static constexpr bool kDeclared = false;
};
template <> struct HeadDim<64> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 64, kCols = 64, kSlices = 1, kMaxThreads = 128; };
template <> struct HeadDim<128> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 64, kCols = 128, kSlices = 1, kMaxThreads = 128; };
template <> struct HeadDim<256> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 32, kCols = 128, kSlices = 2, kMaxThreads = 256; };
template <> struct HeadDim<512> { static constexpr bool kDeclared = true; static constexpr int kBlockN = 32, kCols = 128, kSlices = 4, kMaxThreads = 512; };

}  // namespace fmha_gather_plan
