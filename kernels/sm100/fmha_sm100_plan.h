// GENERATED from fmhactl/plans/sm100.py by `python -m fmhactl.plans --write`; do not edit.
// The kernel's Plan<D> recomputes its byte carving and static_asserts it against these numbers.
#pragma once

namespace fmha_sm100_plan {

constexpr int kBlockM = 128;  // query rows per CTA = MMA M = TMEM lanes
constexpr int kThreads = 192;
constexpr int kTmemColumns = 512;
constexpr unsigned kMaxDynamicSmem = 232448;
constexpr int kTopkHeadsPerCta = 128;  // top-k launch: query heads of one token per CTA

template <int D, int Stages, int PSmem>
struct Entry {
    static constexpr bool kSupported = false;
};

template <> struct Entry<64, 1, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 32768, kPOff = 49152, kBarOff = 49152, kTmemSlotOff = 49200;
    static constexpr unsigned kSmemNeeded = 50240, kSmemBytes = 76801;
    static constexpr int kCtasPerSm = 2;
};
template <> struct Entry<128, 1, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 256, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 65536, kPOff = 98304, kBarOff = 98304, kTmemSlotOff = 98352;
    static constexpr unsigned kSmemNeeded = 99392, kSmemBytes = 99392;
    static constexpr int kCtasPerSm = 2;
};
template <> struct Entry<256, 1, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 384, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 131072, kPOff = 196608, kBarOff = 196608, kTmemSlotOff = 196656;
    static constexpr unsigned kSmemNeeded = 197696, kSmemBytes = 197696;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<512, 1, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 64, kDPasses = 2, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 64, kColsUsed = 320, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 131072, kVOff = 196608, kPOff = 229376, kBarOff = 229376, kTmemSlotOff = 229424;
    static constexpr unsigned kSmemNeeded = 230464, kSmemBytes = 230464;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<64, 1, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 32768, kPOff = 49152, kBarOff = 81920, kTmemSlotOff = 81968;
    static constexpr unsigned kSmemNeeded = 83008, kSmemBytes = 83008;
    static constexpr int kCtasPerSm = 2;
};
template <> struct Entry<128, 1, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 256, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 65536, kPOff = 98304, kBarOff = 131072, kTmemSlotOff = 131120;
    static constexpr unsigned kSmemNeeded = 132160, kSmemBytes = 132160;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<256, 1, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 384, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 131072, kPOff = 196608, kBarOff = 229376, kTmemSlotOff = 229424;
    static constexpr unsigned kSmemNeeded = 230464, kSmemBytes = 230464;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<512, 1, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 32, kDPasses = 2, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 32, kColsUsed = 288, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 131072, kVOff = 163840, kPOff = 180224, kBarOff = 196608, kTmemSlotOff = 196656;
    static constexpr unsigned kSmemNeeded = 197696, kSmemBytes = 197696;
    static constexpr int kCtasPerSm = 1;
};

template <> struct Entry<64, 2, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 49152, kPOff = 81920, kBarOff = 81920, kTmemSlotOff = 81984;
    static constexpr unsigned kSmemNeeded = 83024, kSmemBytes = 83024;
    static constexpr int kCtasPerSm = 2;
};
template <> struct Entry<128, 2, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 256, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 98304, kPOff = 163840, kBarOff = 163840, kTmemSlotOff = 163904;
    static constexpr unsigned kSmemNeeded = 164944, kSmemBytes = 164944;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<256, 2, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 64, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 64, kColsUsed = 320, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 131072, kPOff = 196608, kBarOff = 196608, kTmemSlotOff = 196672;
    static constexpr unsigned kSmemNeeded = 197712, kSmemBytes = 197712;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<512, 2, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 32, kDPasses = 2, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 32, kColsUsed = 288, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 131072, kVOff = 196608, kPOff = 229376, kBarOff = 229376, kTmemSlotOff = 229440;
    static constexpr unsigned kSmemNeeded = 230480, kSmemBytes = 230480;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<64, 2, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 49152, kPOff = 81920, kBarOff = 114688, kTmemSlotOff = 114752;
    static constexpr unsigned kSmemNeeded = 115792, kSmemBytes = 115792;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<128, 2, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 256, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 98304, kPOff = 163840, kBarOff = 196608, kTmemSlotOff = 196672;
    static constexpr unsigned kSmemNeeded = 197712, kSmemBytes = 197712;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<256, 2, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 64, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 64, kColsUsed = 320, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 131072, kPOff = 196608, kBarOff = 212992, kTmemSlotOff = 213056;
    static constexpr unsigned kSmemNeeded = 214096, kSmemBytes = 214096;
    static constexpr int kCtasPerSm = 1;
};
// D=512 stages=2 P_SMEM=1: SMEM needs 246864 B (Q 131072 + 2 x K/V 49152 + P 16384, BlockN 32, O in 2 passes over D) > 232448 B

template <> struct Entry<64, 3, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 65536, kPOff = 114688, kBarOff = 114688, kTmemSlotOff = 114768;
    static constexpr unsigned kSmemNeeded = 115808, kSmemBytes = 115808;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<128, 3, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 256, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 131072, kPOff = 229376, kBarOff = 229376, kTmemSlotOff = 229456;
    static constexpr unsigned kSmemNeeded = 230496, kSmemBytes = 230496;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<256, 3, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 32, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 32, kColsUsed = 288, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 114688, kPOff = 163840, kBarOff = 163840, kTmemSlotOff = 163920;
    static constexpr unsigned kSmemNeeded = 164960, kSmemBytes = 164960;
    static constexpr int kCtasPerSm = 1;
};
// D=512 stages=3 P_SMEM=0: SMEM needs 279648 B (Q 131072 + 3 x K/V 49152, BlockN 32, O in 2 passes over D) > 232448 B
template <> struct Entry<64, 3, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 65536, kPOff = 114688, kBarOff = 147456, kTmemSlotOff = 147536;
    static constexpr unsigned kSmemNeeded = 148576, kSmemBytes = 148576;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<128, 3, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 64, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 64, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 81920, kPOff = 131072, kBarOff = 147456, kTmemSlotOff = 147536;
    static constexpr unsigned kSmemNeeded = 148576, kSmemBytes = 148576;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<256, 3, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 32, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 32, kColsUsed = 288, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 114688, kPOff = 163840, kBarOff = 180224, kTmemSlotOff = 180304;
    static constexpr unsigned kSmemNeeded = 181344, kSmemBytes = 181344;
    static constexpr int kCtasPerSm = 1;
};
// D=512 stages=3 P_SMEM=1: SMEM needs 296032 B (Q 131072 + 3 x K/V 49152 + P 16384, BlockN 32, O in 2 passes over D) > 232448 B

template <> struct Entry<64, 4, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 81920, kPOff = 147456, kBarOff = 147456, kTmemSlotOff = 147552;
    static constexpr unsigned kSmemNeeded = 148592, kSmemBytes = 148592;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<128, 4, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 64, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 64, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 98304, kPOff = 163840, kBarOff = 163840, kTmemSlotOff = 163936;
    static constexpr unsigned kSmemNeeded = 164976, kSmemBytes = 164976;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<256, 4, 0> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 32, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 32, kColsUsed = 288, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 131072, kPOff = 196608, kBarOff = 196608, kTmemSlotOff = 196704;
    static constexpr unsigned kSmemNeeded = 197744, kSmemBytes = 197744;
    static constexpr int kCtasPerSm = 1;
};
// D=512 stages=4 P_SMEM=0: SMEM needs 328816 B (Q 131072 + 4 x K/V 49152, BlockN 32, O in 2 passes over D) > 232448 B
template <> struct Entry<64, 4, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 128, kDPasses = 1, kDPart = 64;
    static constexpr int kColS = 0, kColP = 0, kColO = 128, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 16384, kVOff = 81920, kPOff = 147456, kBarOff = 180224, kTmemSlotOff = 180320;
    static constexpr unsigned kSmemNeeded = 181360, kSmemBytes = 181360;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<128, 4, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 64, kDPasses = 1, kDPart = 128;
    static constexpr int kColS = 0, kColP = 0, kColO = 64, kColsUsed = 192, kColsAlloc = 256;
    static constexpr unsigned kQOff = 0, kKOff = 32768, kVOff = 98304, kPOff = 163840, kBarOff = 180224, kTmemSlotOff = 180320;
    static constexpr unsigned kSmemNeeded = 181360, kSmemBytes = 181360;
    static constexpr int kCtasPerSm = 1;
};
template <> struct Entry<256, 4, 1> {
    static constexpr bool kSupported = true;
    static constexpr int kBlockN = 32, kDPasses = 1, kDPart = 256;
    static constexpr int kColS = 0, kColP = 0, kColO = 32, kColsUsed = 288, kColsAlloc = 512;
    static constexpr unsigned kQOff = 0, kKOff = 65536, kVOff = 131072, kPOff = 196608, kBarOff = 212992, kTmemSlotOff = 213088;
    static constexpr unsigned kSmemNeeded = 214128, kSmemBytes = 214128;
    static constexpr int kCtasPerSm = 1;
};
// D=512 stages=4 P_SMEM=1: SMEM needs 345200 B (Q 131072 + 4 x K/V 49152 + P 16384, BlockN 32, O in 2 passes over D) > 232448 B

}  // namespace fmha_sm100_plan

// Which head-dim entry points this build's switches can compile (fmha_sm100.cu).
#define FMHA_PLAN_HAS_D64 ((FMHA_STAGES == 1 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 1 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 2 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 2 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 3 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 3 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 4 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 4 && FMHA_P_SMEM == 1))
#define FMHA_PLAN_HAS_D128 ((FMHA_STAGES == 1 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 1 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 2 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 2 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 3 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 3 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 4 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 4 && FMHA_P_SMEM == 1))
#define FMHA_PLAN_HAS_D256 ((FMHA_STAGES == 1 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 1 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 2 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 2 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 3 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 3 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 4 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 4 && FMHA_P_SMEM == 1))
#define FMHA_PLAN_HAS_D512 ((FMHA_STAGES == 1 && FMHA_P_SMEM == 0) || (FMHA_STAGES == 1 && FMHA_P_SMEM == 1) || (FMHA_STAGES == 2 && FMHA_P_SMEM == 0))
