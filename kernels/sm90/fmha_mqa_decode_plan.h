// GENERATED from fmhactl/plans/sm90_decode.py by `python -m fmhactl.plans --write`; do not edit.
// The sm90_mqa_decode kernel's plan (kernels/sm90/fmha_mqa_decode.cuh): fixed sizes and the
// SMEM carving; the launcher (fmhactl/plans/sm90_decode.py) sizes the grid and SMEM from them.
#pragma once

namespace fmha_decode_plan {

constexpr int kRows = 64;
constexpr int kBlockN = 32;
constexpr int kStages = 4;
constexpr int kConsumers = 2;
constexpr int kThreads = 384;
constexpr int kProducerRegs = 56;
constexpr int kConsumerRegs = 224;
constexpr int kListCap = 2048;
constexpr int kListCounts = 2056;

template <int D>
struct HeadDim {
    static constexpr bool kDeclared = false;
};
template <> struct HeadDim<512> { static constexpr bool kDeclared = true; static constexpr int kQOffset = 0, kXOffset = 65536, kRingOffset = 81920, kBarOffset = 212992, kListOffset = 213120, kStageBytes = 32768; };

}  // namespace fmha_decode_plan
