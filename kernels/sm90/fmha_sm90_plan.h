// GENERATED from fmhactl/plans/sm90.py by `python -m fmhactl.plans --write`; do not edit.
// The SM90 kernel's plan: fmha_sm90::Plan<D> (kernels/sm90/fmha_sm90.cuh) derives from Entry.
#pragma once

#ifndef FMHA_BN_D64
#define FMHA_BN_D64 128
#endif
#ifndef FMHA_BN_D128
#define FMHA_BN_D128 128
#endif
#ifndef FMHA_BN_D256
#define FMHA_BN_D256 64
#endif
#ifndef FMHA_STAGES
#define FMHA_STAGES 2
#endif
#ifndef FMHA_CONSUMERS
#define FMHA_CONSUMERS 2
#endif
#ifndef FMHA_STAGES_D64
#define FMHA_STAGES_D64 FMHA_STAGES
#endif
#ifndef FMHA_STAGES_D128
#define FMHA_STAGES_D128 FMHA_STAGES
#endif
#ifndef FMHA_STAGES_D256
#define FMHA_STAGES_D256 FMHA_STAGES
#endif

namespace fmha_sm90_plan {

constexpr int kRegistersPerSm = 65536;

// Per consumer-warpgroup count (FMHA_CONSUMERS): query rows, threads, and the setmaxnreg
// split (producer, consumer) without and with FMHA_PERSISTENT.
template <int Consumers>
struct Geometry {
    static constexpr bool kDeclared = false;
};
template <> struct Geometry<2> { static constexpr bool kDeclared = true; static constexpr int kBlockM = 128, kThreads = 384, kProducerRegs[2] = {24, 32}, kConsumerRegs[2] = {240, 232}; };
template <> struct Geometry<3> { static constexpr bool kDeclared = true; static constexpr int kBlockM = 192, kThreads = 512, kProducerRegs[2] = {32, 32}, kConsumerRegs[2] = {160, 160}; };
static_assert(Geometry<FMHA_CONSUMERS>::kDeclared, "FMHA_CONSUMERS outside the plan of fmhactl/plans/sm90.py");
constexpr int kConsumers = FMHA_CONSUMERS;
constexpr int kBlockM = Geometry<FMHA_CONSUMERS>::kBlockM;
constexpr int kThreads = Geometry<FMHA_CONSUMERS>::kThreads;

// The switches that pick a head dim's KV tile and ring depth.
template <int D>
struct Switches {
    static constexpr bool kHeadDim = false;
};
template <> struct Switches<64> { static constexpr bool kHeadDim = true; static constexpr int kBlockN = FMHA_BN_D64, kStages = FMHA_STAGES_D64; };
template <> struct Switches<128> { static constexpr bool kHeadDim = true; static constexpr int kBlockN = FMHA_BN_D128, kStages = FMHA_STAGES_D128; };
template <> struct Switches<256> { static constexpr bool kHeadDim = true; static constexpr int kBlockN = FMHA_BN_D256, kStages = FMHA_STAGES_D256; };

// Declared: head dims 64, 128, 256; KV tile a multiple of 16 in 64..192; 2 to 4 stages.
// Consumers: 2 at hd (64, 128, 256), 3 at hd (64,).
template <int D, int BlockN, int Stages, int Persistent, int Consumers>
struct Entry {
    static constexpr bool kDeclared = false;
};
template <> struct Entry<64, 64, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 8192, kQOff = 0, kKOff = 16384, kVOff = 32768, kOOff = 0, kBarOff = 49152, kBarCount = 10, kTileSlotOff = 49232, kSmemBytes = 50264; };
template <> struct Entry<64, 64, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 8192, kQOff = 0, kKOff = 32768, kVOff = 49152, kOOff = 65536, kBarOff = 81920, kBarCount = 12, kTileSlotOff = 82016, kSmemBytes = 83056; };
template <> struct Entry<64, 64, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 8192, kQOff = 0, kKOff = 16384, kVOff = 40960, kOOff = 0, kBarOff = 65536, kBarCount = 14, kTileSlotOff = 65648, kSmemBytes = 66680; };
template <> struct Entry<64, 64, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 8192, kQOff = 0, kKOff = 32768, kVOff = 57344, kOOff = 81920, kBarOff = 98304, kBarCount = 16, kTileSlotOff = 98432, kSmemBytes = 99472; };
template <> struct Entry<64, 64, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 8192, kQOff = 0, kKOff = 16384, kVOff = 49152, kOOff = 0, kBarOff = 81920, kBarCount = 18, kTileSlotOff = 82064, kSmemBytes = 83096; };
template <> struct Entry<64, 64, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 8192, kQOff = 0, kKOff = 32768, kVOff = 65536, kOOff = 98304, kBarOff = 114688, kBarCount = 20, kTileSlotOff = 114848, kSmemBytes = 115888; };
template <> struct Entry<64, 80, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 10240, kQOff = 0, kKOff = 16384, kVOff = 36864, kOOff = 0, kBarOff = 57344, kBarCount = 10, kTileSlotOff = 57424, kSmemBytes = 58456; };
template <> struct Entry<64, 80, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 10240, kQOff = 0, kKOff = 32768, kVOff = 53248, kOOff = 73728, kBarOff = 90112, kBarCount = 12, kTileSlotOff = 90208, kSmemBytes = 91248; };
template <> struct Entry<64, 80, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 10240, kQOff = 0, kKOff = 16384, kVOff = 47104, kOOff = 0, kBarOff = 77824, kBarCount = 14, kTileSlotOff = 77936, kSmemBytes = 78968; };
template <> struct Entry<64, 80, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 10240, kQOff = 0, kKOff = 32768, kVOff = 63488, kOOff = 94208, kBarOff = 110592, kBarCount = 16, kTileSlotOff = 110720, kSmemBytes = 111760; };
template <> struct Entry<64, 80, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 10240, kQOff = 0, kKOff = 16384, kVOff = 57344, kOOff = 0, kBarOff = 98304, kBarCount = 18, kTileSlotOff = 98448, kSmemBytes = 99480; };
template <> struct Entry<64, 80, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 10240, kQOff = 0, kKOff = 32768, kVOff = 73728, kOOff = 114688, kBarOff = 131072, kBarCount = 20, kTileSlotOff = 131232, kSmemBytes = 132272; };
template <> struct Entry<64, 96, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 12288, kQOff = 0, kKOff = 16384, kVOff = 40960, kOOff = 0, kBarOff = 65536, kBarCount = 10, kTileSlotOff = 65616, kSmemBytes = 66648; };
template <> struct Entry<64, 96, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 12288, kQOff = 0, kKOff = 32768, kVOff = 57344, kOOff = 81920, kBarOff = 98304, kBarCount = 12, kTileSlotOff = 98400, kSmemBytes = 99440; };
template <> struct Entry<64, 96, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 12288, kQOff = 0, kKOff = 16384, kVOff = 53248, kOOff = 0, kBarOff = 90112, kBarCount = 14, kTileSlotOff = 90224, kSmemBytes = 91256; };
template <> struct Entry<64, 96, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 12288, kQOff = 0, kKOff = 32768, kVOff = 69632, kOOff = 106496, kBarOff = 122880, kBarCount = 16, kTileSlotOff = 123008, kSmemBytes = 124048; };
template <> struct Entry<64, 96, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 12288, kQOff = 0, kKOff = 16384, kVOff = 65536, kOOff = 0, kBarOff = 114688, kBarCount = 18, kTileSlotOff = 114832, kSmemBytes = 115864; };
template <> struct Entry<64, 96, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 12288, kQOff = 0, kKOff = 32768, kVOff = 81920, kOOff = 131072, kBarOff = 147456, kBarCount = 20, kTileSlotOff = 147616, kSmemBytes = 148656; };
template <> struct Entry<64, 112, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 14336, kQOff = 0, kKOff = 16384, kVOff = 45056, kOOff = 0, kBarOff = 73728, kBarCount = 10, kTileSlotOff = 73808, kSmemBytes = 74840; };
template <> struct Entry<64, 112, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 14336, kQOff = 0, kKOff = 32768, kVOff = 61440, kOOff = 90112, kBarOff = 106496, kBarCount = 12, kTileSlotOff = 106592, kSmemBytes = 107632; };
template <> struct Entry<64, 112, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 14336, kQOff = 0, kKOff = 16384, kVOff = 59392, kOOff = 0, kBarOff = 102400, kBarCount = 14, kTileSlotOff = 102512, kSmemBytes = 103544; };
template <> struct Entry<64, 112, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 14336, kQOff = 0, kKOff = 32768, kVOff = 75776, kOOff = 118784, kBarOff = 135168, kBarCount = 16, kTileSlotOff = 135296, kSmemBytes = 136336; };
template <> struct Entry<64, 112, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 14336, kQOff = 0, kKOff = 16384, kVOff = 73728, kOOff = 0, kBarOff = 131072, kBarCount = 18, kTileSlotOff = 131216, kSmemBytes = 132248; };
template <> struct Entry<64, 112, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 14336, kQOff = 0, kKOff = 32768, kVOff = 90112, kOOff = 147456, kBarOff = 163840, kBarCount = 20, kTileSlotOff = 164000, kSmemBytes = 165040; };
template <> struct Entry<64, 128, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 16384, kQOff = 0, kKOff = 16384, kVOff = 49152, kOOff = 0, kBarOff = 81920, kBarCount = 10, kTileSlotOff = 82000, kSmemBytes = 83032; };
template <> struct Entry<64, 128, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 16384, kQOff = 0, kKOff = 32768, kVOff = 65536, kOOff = 98304, kBarOff = 114688, kBarCount = 12, kTileSlotOff = 114784, kSmemBytes = 115824; };
template <> struct Entry<64, 128, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 16384, kQOff = 0, kKOff = 16384, kVOff = 65536, kOOff = 0, kBarOff = 114688, kBarCount = 14, kTileSlotOff = 114800, kSmemBytes = 115832; };
template <> struct Entry<64, 128, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 16384, kQOff = 0, kKOff = 32768, kVOff = 81920, kOOff = 131072, kBarOff = 147456, kBarCount = 16, kTileSlotOff = 147584, kSmemBytes = 148624; };
template <> struct Entry<64, 128, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 16384, kQOff = 0, kKOff = 16384, kVOff = 81920, kOOff = 0, kBarOff = 147456, kBarCount = 18, kTileSlotOff = 147600, kSmemBytes = 148632; };
template <> struct Entry<64, 128, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 16384, kQOff = 0, kKOff = 32768, kVOff = 98304, kOOff = 163840, kBarOff = 180224, kBarCount = 20, kTileSlotOff = 180384, kSmemBytes = 181424; };
template <> struct Entry<64, 144, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 18432, kQOff = 0, kKOff = 16384, kVOff = 53248, kOOff = 0, kBarOff = 90112, kBarCount = 10, kTileSlotOff = 90192, kSmemBytes = 91224; };
template <> struct Entry<64, 144, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 18432, kQOff = 0, kKOff = 32768, kVOff = 69632, kOOff = 106496, kBarOff = 122880, kBarCount = 12, kTileSlotOff = 122976, kSmemBytes = 124016; };
template <> struct Entry<64, 144, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 18432, kQOff = 0, kKOff = 16384, kVOff = 71680, kOOff = 0, kBarOff = 126976, kBarCount = 14, kTileSlotOff = 127088, kSmemBytes = 128120; };
template <> struct Entry<64, 144, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 18432, kQOff = 0, kKOff = 32768, kVOff = 88064, kOOff = 143360, kBarOff = 159744, kBarCount = 16, kTileSlotOff = 159872, kSmemBytes = 160912; };
template <> struct Entry<64, 144, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 18432, kQOff = 0, kKOff = 16384, kVOff = 90112, kOOff = 0, kBarOff = 163840, kBarCount = 18, kTileSlotOff = 163984, kSmemBytes = 165016; };
template <> struct Entry<64, 144, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 18432, kQOff = 0, kKOff = 32768, kVOff = 106496, kOOff = 180224, kBarOff = 196608, kBarCount = 20, kTileSlotOff = 196768, kSmemBytes = 197808; };
template <> struct Entry<64, 160, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 20480, kQOff = 0, kKOff = 16384, kVOff = 57344, kOOff = 0, kBarOff = 98304, kBarCount = 10, kTileSlotOff = 98384, kSmemBytes = 99416; };
template <> struct Entry<64, 160, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 20480, kQOff = 0, kKOff = 32768, kVOff = 73728, kOOff = 114688, kBarOff = 131072, kBarCount = 12, kTileSlotOff = 131168, kSmemBytes = 132208; };
template <> struct Entry<64, 160, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 20480, kQOff = 0, kKOff = 16384, kVOff = 77824, kOOff = 0, kBarOff = 139264, kBarCount = 14, kTileSlotOff = 139376, kSmemBytes = 140408; };
template <> struct Entry<64, 160, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 20480, kQOff = 0, kKOff = 32768, kVOff = 94208, kOOff = 155648, kBarOff = 172032, kBarCount = 16, kTileSlotOff = 172160, kSmemBytes = 173200; };
template <> struct Entry<64, 160, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 20480, kQOff = 0, kKOff = 16384, kVOff = 98304, kOOff = 0, kBarOff = 180224, kBarCount = 18, kTileSlotOff = 180368, kSmemBytes = 181400; };
template <> struct Entry<64, 160, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 20480, kQOff = 0, kKOff = 32768, kVOff = 114688, kOOff = 196608, kBarOff = 212992, kBarCount = 20, kTileSlotOff = 213152, kSmemBytes = 214192; };
template <> struct Entry<64, 176, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 22528, kQOff = 0, kKOff = 16384, kVOff = 61440, kOOff = 0, kBarOff = 106496, kBarCount = 10, kTileSlotOff = 106576, kSmemBytes = 107608; };
template <> struct Entry<64, 176, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 22528, kQOff = 0, kKOff = 32768, kVOff = 77824, kOOff = 122880, kBarOff = 139264, kBarCount = 12, kTileSlotOff = 139360, kSmemBytes = 140400; };
template <> struct Entry<64, 176, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 22528, kQOff = 0, kKOff = 16384, kVOff = 83968, kOOff = 0, kBarOff = 151552, kBarCount = 14, kTileSlotOff = 151664, kSmemBytes = 152696; };
template <> struct Entry<64, 176, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 22528, kQOff = 0, kKOff = 32768, kVOff = 100352, kOOff = 167936, kBarOff = 184320, kBarCount = 16, kTileSlotOff = 184448, kSmemBytes = 185488; };
template <> struct Entry<64, 176, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 22528, kQOff = 0, kKOff = 16384, kVOff = 106496, kOOff = 0, kBarOff = 196608, kBarCount = 18, kTileSlotOff = 196752, kSmemBytes = 197784; };
template <> struct Entry<64, 176, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 22528, kQOff = 0, kKOff = 32768, kVOff = 122880, kOOff = 212992, kBarOff = 229376, kBarCount = 20, kTileSlotOff = 229536, kSmemBytes = 230576; };
template <> struct Entry<64, 192, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 24576, kQOff = 0, kKOff = 16384, kVOff = 65536, kOOff = 0, kBarOff = 114688, kBarCount = 10, kTileSlotOff = 114768, kSmemBytes = 115800; };
template <> struct Entry<64, 192, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 24576, kQOff = 0, kKOff = 32768, kVOff = 81920, kOOff = 131072, kBarOff = 147456, kBarCount = 12, kTileSlotOff = 147552, kSmemBytes = 148592; };
template <> struct Entry<64, 192, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 24576, kQOff = 0, kKOff = 16384, kVOff = 90112, kOOff = 0, kBarOff = 163840, kBarCount = 14, kTileSlotOff = 163952, kSmemBytes = 164984; };
template <> struct Entry<64, 192, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 24576, kQOff = 0, kKOff = 32768, kVOff = 106496, kOOff = 180224, kBarOff = 196608, kBarCount = 16, kTileSlotOff = 196736, kSmemBytes = 197776; };
template <> struct Entry<64, 192, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 16384, kKVBytes = 24576, kQOff = 0, kKOff = 16384, kVOff = 114688, kOOff = 0, kBarOff = 212992, kBarCount = 18, kTileSlotOff = 213136, kSmemBytes = 214168; };
template <> struct Entry<64, 192, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 16384, kKVBytes = 24576, kQOff = 0, kKOff = 32768, kVOff = 131072, kOOff = 229376, kBarOff = 245760, kBarCount = 20, kTileSlotOff = 245920, kSmemBytes = 246960; };
template <> struct Entry<128, 64, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 16384, kQOff = 0, kKOff = 32768, kVOff = 65536, kOOff = 0, kBarOff = 98304, kBarCount = 10, kTileSlotOff = 98384, kSmemBytes = 99416; };
template <> struct Entry<128, 64, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 16384, kQOff = 0, kKOff = 65536, kVOff = 98304, kOOff = 131072, kBarOff = 163840, kBarCount = 12, kTileSlotOff = 163936, kSmemBytes = 164976; };
template <> struct Entry<128, 64, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 16384, kQOff = 0, kKOff = 32768, kVOff = 81920, kOOff = 0, kBarOff = 131072, kBarCount = 14, kTileSlotOff = 131184, kSmemBytes = 132216; };
template <> struct Entry<128, 64, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 16384, kQOff = 0, kKOff = 65536, kVOff = 114688, kOOff = 163840, kBarOff = 196608, kBarCount = 16, kTileSlotOff = 196736, kSmemBytes = 197776; };
template <> struct Entry<128, 64, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 16384, kQOff = 0, kKOff = 32768, kVOff = 98304, kOOff = 0, kBarOff = 163840, kBarCount = 18, kTileSlotOff = 163984, kSmemBytes = 165016; };
template <> struct Entry<128, 64, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 16384, kQOff = 0, kKOff = 65536, kVOff = 131072, kOOff = 196608, kBarOff = 229376, kBarCount = 20, kTileSlotOff = 229536, kSmemBytes = 230576; };
template <> struct Entry<128, 80, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 20480, kQOff = 0, kKOff = 32768, kVOff = 73728, kOOff = 0, kBarOff = 114688, kBarCount = 10, kTileSlotOff = 114768, kSmemBytes = 115800; };
template <> struct Entry<128, 80, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 20480, kQOff = 0, kKOff = 65536, kVOff = 106496, kOOff = 147456, kBarOff = 180224, kBarCount = 12, kTileSlotOff = 180320, kSmemBytes = 181360; };
template <> struct Entry<128, 80, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 20480, kQOff = 0, kKOff = 32768, kVOff = 94208, kOOff = 0, kBarOff = 155648, kBarCount = 14, kTileSlotOff = 155760, kSmemBytes = 156792; };
template <> struct Entry<128, 80, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 20480, kQOff = 0, kKOff = 65536, kVOff = 126976, kOOff = 188416, kBarOff = 221184, kBarCount = 16, kTileSlotOff = 221312, kSmemBytes = 222352; };
template <> struct Entry<128, 80, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 20480, kQOff = 0, kKOff = 32768, kVOff = 114688, kOOff = 0, kBarOff = 196608, kBarCount = 18, kTileSlotOff = 196752, kSmemBytes = 197784; };
template <> struct Entry<128, 80, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 20480, kQOff = 0, kKOff = 65536, kVOff = 147456, kOOff = 229376, kBarOff = 262144, kBarCount = 20, kTileSlotOff = 262304, kSmemBytes = 263344; };
template <> struct Entry<128, 96, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 24576, kQOff = 0, kKOff = 32768, kVOff = 81920, kOOff = 0, kBarOff = 131072, kBarCount = 10, kTileSlotOff = 131152, kSmemBytes = 132184; };
template <> struct Entry<128, 96, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 24576, kQOff = 0, kKOff = 65536, kVOff = 114688, kOOff = 163840, kBarOff = 196608, kBarCount = 12, kTileSlotOff = 196704, kSmemBytes = 197744; };
template <> struct Entry<128, 96, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 24576, kQOff = 0, kKOff = 32768, kVOff = 106496, kOOff = 0, kBarOff = 180224, kBarCount = 14, kTileSlotOff = 180336, kSmemBytes = 181368; };
template <> struct Entry<128, 96, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 24576, kQOff = 0, kKOff = 65536, kVOff = 139264, kOOff = 212992, kBarOff = 245760, kBarCount = 16, kTileSlotOff = 245888, kSmemBytes = 246928; };
template <> struct Entry<128, 96, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 24576, kQOff = 0, kKOff = 32768, kVOff = 131072, kOOff = 0, kBarOff = 229376, kBarCount = 18, kTileSlotOff = 229520, kSmemBytes = 230552; };
template <> struct Entry<128, 96, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 24576, kQOff = 0, kKOff = 65536, kVOff = 163840, kOOff = 262144, kBarOff = 294912, kBarCount = 20, kTileSlotOff = 295072, kSmemBytes = 296112; };
template <> struct Entry<128, 112, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 28672, kQOff = 0, kKOff = 32768, kVOff = 90112, kOOff = 0, kBarOff = 147456, kBarCount = 10, kTileSlotOff = 147536, kSmemBytes = 148568; };
template <> struct Entry<128, 112, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 28672, kQOff = 0, kKOff = 65536, kVOff = 122880, kOOff = 180224, kBarOff = 212992, kBarCount = 12, kTileSlotOff = 213088, kSmemBytes = 214128; };
template <> struct Entry<128, 112, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 28672, kQOff = 0, kKOff = 32768, kVOff = 118784, kOOff = 0, kBarOff = 204800, kBarCount = 14, kTileSlotOff = 204912, kSmemBytes = 205944; };
template <> struct Entry<128, 112, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 28672, kQOff = 0, kKOff = 65536, kVOff = 151552, kOOff = 237568, kBarOff = 270336, kBarCount = 16, kTileSlotOff = 270464, kSmemBytes = 271504; };
template <> struct Entry<128, 112, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 28672, kQOff = 0, kKOff = 32768, kVOff = 147456, kOOff = 0, kBarOff = 262144, kBarCount = 18, kTileSlotOff = 262288, kSmemBytes = 263320; };
template <> struct Entry<128, 112, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 28672, kQOff = 0, kKOff = 65536, kVOff = 180224, kOOff = 294912, kBarOff = 327680, kBarCount = 20, kTileSlotOff = 327840, kSmemBytes = 328880; };
template <> struct Entry<128, 128, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 32768, kQOff = 0, kKOff = 32768, kVOff = 98304, kOOff = 0, kBarOff = 163840, kBarCount = 10, kTileSlotOff = 163920, kSmemBytes = 164952; };
template <> struct Entry<128, 128, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 131072, kOOff = 196608, kBarOff = 229376, kBarCount = 12, kTileSlotOff = 229472, kSmemBytes = 230512; };
template <> struct Entry<128, 128, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 32768, kQOff = 0, kKOff = 32768, kVOff = 131072, kOOff = 0, kBarOff = 229376, kBarCount = 14, kTileSlotOff = 229488, kSmemBytes = 230520; };
template <> struct Entry<128, 128, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 163840, kOOff = 262144, kBarOff = 294912, kBarCount = 16, kTileSlotOff = 295040, kSmemBytes = 296080; };
template <> struct Entry<128, 128, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 32768, kQOff = 0, kKOff = 32768, kVOff = 163840, kOOff = 0, kBarOff = 294912, kBarCount = 18, kTileSlotOff = 295056, kSmemBytes = 296088; };
template <> struct Entry<128, 128, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 196608, kOOff = 327680, kBarOff = 360448, kBarCount = 20, kTileSlotOff = 360608, kSmemBytes = 361648; };
template <> struct Entry<128, 144, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 36864, kQOff = 0, kKOff = 32768, kVOff = 106496, kOOff = 0, kBarOff = 180224, kBarCount = 10, kTileSlotOff = 180304, kSmemBytes = 181336; };
template <> struct Entry<128, 144, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 36864, kQOff = 0, kKOff = 65536, kVOff = 139264, kOOff = 212992, kBarOff = 245760, kBarCount = 12, kTileSlotOff = 245856, kSmemBytes = 246896; };
template <> struct Entry<128, 144, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 36864, kQOff = 0, kKOff = 32768, kVOff = 143360, kOOff = 0, kBarOff = 253952, kBarCount = 14, kTileSlotOff = 254064, kSmemBytes = 255096; };
template <> struct Entry<128, 144, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 36864, kQOff = 0, kKOff = 65536, kVOff = 176128, kOOff = 286720, kBarOff = 319488, kBarCount = 16, kTileSlotOff = 319616, kSmemBytes = 320656; };
template <> struct Entry<128, 144, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 36864, kQOff = 0, kKOff = 32768, kVOff = 180224, kOOff = 0, kBarOff = 327680, kBarCount = 18, kTileSlotOff = 327824, kSmemBytes = 328856; };
template <> struct Entry<128, 144, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 36864, kQOff = 0, kKOff = 65536, kVOff = 212992, kOOff = 360448, kBarOff = 393216, kBarCount = 20, kTileSlotOff = 393376, kSmemBytes = 394416; };
template <> struct Entry<128, 160, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 40960, kQOff = 0, kKOff = 32768, kVOff = 114688, kOOff = 0, kBarOff = 196608, kBarCount = 10, kTileSlotOff = 196688, kSmemBytes = 197720; };
template <> struct Entry<128, 160, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 147456, kOOff = 229376, kBarOff = 262144, kBarCount = 12, kTileSlotOff = 262240, kSmemBytes = 263280; };
template <> struct Entry<128, 160, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 40960, kQOff = 0, kKOff = 32768, kVOff = 155648, kOOff = 0, kBarOff = 278528, kBarCount = 14, kTileSlotOff = 278640, kSmemBytes = 279672; };
template <> struct Entry<128, 160, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 188416, kOOff = 311296, kBarOff = 344064, kBarCount = 16, kTileSlotOff = 344192, kSmemBytes = 345232; };
template <> struct Entry<128, 160, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 40960, kQOff = 0, kKOff = 32768, kVOff = 196608, kOOff = 0, kBarOff = 360448, kBarCount = 18, kTileSlotOff = 360592, kSmemBytes = 361624; };
template <> struct Entry<128, 160, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 229376, kOOff = 393216, kBarOff = 425984, kBarCount = 20, kTileSlotOff = 426144, kSmemBytes = 427184; };
template <> struct Entry<128, 176, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 45056, kQOff = 0, kKOff = 32768, kVOff = 122880, kOOff = 0, kBarOff = 212992, kBarCount = 10, kTileSlotOff = 213072, kSmemBytes = 214104; };
template <> struct Entry<128, 176, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 45056, kQOff = 0, kKOff = 65536, kVOff = 155648, kOOff = 245760, kBarOff = 278528, kBarCount = 12, kTileSlotOff = 278624, kSmemBytes = 279664; };
template <> struct Entry<128, 176, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 45056, kQOff = 0, kKOff = 32768, kVOff = 167936, kOOff = 0, kBarOff = 303104, kBarCount = 14, kTileSlotOff = 303216, kSmemBytes = 304248; };
template <> struct Entry<128, 176, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 45056, kQOff = 0, kKOff = 65536, kVOff = 200704, kOOff = 335872, kBarOff = 368640, kBarCount = 16, kTileSlotOff = 368768, kSmemBytes = 369808; };
template <> struct Entry<128, 176, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 45056, kQOff = 0, kKOff = 32768, kVOff = 212992, kOOff = 0, kBarOff = 393216, kBarCount = 18, kTileSlotOff = 393360, kSmemBytes = 394392; };
template <> struct Entry<128, 176, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 45056, kQOff = 0, kKOff = 65536, kVOff = 245760, kOOff = 425984, kBarOff = 458752, kBarCount = 20, kTileSlotOff = 458912, kSmemBytes = 459952; };
template <> struct Entry<128, 192, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 32768, kKVBytes = 49152, kQOff = 0, kKOff = 32768, kVOff = 131072, kOOff = 0, kBarOff = 229376, kBarCount = 10, kTileSlotOff = 229456, kSmemBytes = 230488; };
template <> struct Entry<128, 192, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 163840, kOOff = 262144, kBarOff = 294912, kBarCount = 12, kTileSlotOff = 295008, kSmemBytes = 296048; };
template <> struct Entry<128, 192, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 49152, kQOff = 0, kKOff = 32768, kVOff = 180224, kOOff = 0, kBarOff = 327680, kBarCount = 14, kTileSlotOff = 327792, kSmemBytes = 328824; };
template <> struct Entry<128, 192, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 212992, kOOff = 360448, kBarOff = 393216, kBarCount = 16, kTileSlotOff = 393344, kSmemBytes = 394384; };
template <> struct Entry<128, 192, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 49152, kQOff = 0, kKOff = 32768, kVOff = 229376, kOOff = 0, kBarOff = 425984, kBarCount = 18, kTileSlotOff = 426128, kSmemBytes = 427160; };
template <> struct Entry<128, 192, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 32768, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 262144, kOOff = 458752, kBarOff = 491520, kBarCount = 20, kTileSlotOff = 491680, kSmemBytes = 492720; };
template <> struct Entry<256, 64, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 65536, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 131072, kOOff = 0, kBarOff = 196608, kBarCount = 10, kTileSlotOff = 196688, kSmemBytes = 197720; };
template <> struct Entry<256, 64, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 65536, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 131072, kOOff = 0, kBarOff = 196608, kBarCount = 10, kTileSlotOff = 196688, kSmemBytes = 197720; };
template <> struct Entry<256, 64, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 163840, kOOff = 0, kBarOff = 262144, kBarCount = 14, kTileSlotOff = 262256, kSmemBytes = 263288; };
template <> struct Entry<256, 64, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 163840, kOOff = 0, kBarOff = 262144, kBarCount = 14, kTileSlotOff = 262256, kSmemBytes = 263288; };
template <> struct Entry<256, 64, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 196608, kOOff = 0, kBarOff = 327680, kBarCount = 18, kTileSlotOff = 327824, kSmemBytes = 328856; };
template <> struct Entry<256, 64, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 32768, kQOff = 0, kKOff = 65536, kVOff = 196608, kOOff = 0, kBarOff = 327680, kBarCount = 18, kTileSlotOff = 327824, kSmemBytes = 328856; };
template <> struct Entry<256, 80, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 65536, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 147456, kOOff = 0, kBarOff = 229376, kBarCount = 10, kTileSlotOff = 229456, kSmemBytes = 230488; };
template <> struct Entry<256, 80, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 65536, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 147456, kOOff = 0, kBarOff = 229376, kBarCount = 10, kTileSlotOff = 229456, kSmemBytes = 230488; };
template <> struct Entry<256, 80, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 188416, kOOff = 0, kBarOff = 311296, kBarCount = 14, kTileSlotOff = 311408, kSmemBytes = 312440; };
template <> struct Entry<256, 80, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 188416, kOOff = 0, kBarOff = 311296, kBarCount = 14, kTileSlotOff = 311408, kSmemBytes = 312440; };
template <> struct Entry<256, 80, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 229376, kOOff = 0, kBarOff = 393216, kBarCount = 18, kTileSlotOff = 393360, kSmemBytes = 394392; };
template <> struct Entry<256, 80, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 40960, kQOff = 0, kKOff = 65536, kVOff = 229376, kOOff = 0, kBarOff = 393216, kBarCount = 18, kTileSlotOff = 393360, kSmemBytes = 394392; };
template <> struct Entry<256, 96, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 163840, kOOff = 0, kBarOff = 262144, kBarCount = 10, kTileSlotOff = 262224, kSmemBytes = 263256; };
template <> struct Entry<256, 96, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 163840, kOOff = 0, kBarOff = 262144, kBarCount = 10, kTileSlotOff = 262224, kSmemBytes = 263256; };
template <> struct Entry<256, 96, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 212992, kOOff = 0, kBarOff = 360448, kBarCount = 14, kTileSlotOff = 360560, kSmemBytes = 361592; };
template <> struct Entry<256, 96, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 212992, kOOff = 0, kBarOff = 360448, kBarCount = 14, kTileSlotOff = 360560, kSmemBytes = 361592; };
template <> struct Entry<256, 96, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 262144, kOOff = 0, kBarOff = 458752, kBarCount = 18, kTileSlotOff = 458896, kSmemBytes = 459928; };
template <> struct Entry<256, 96, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 49152, kQOff = 0, kKOff = 65536, kVOff = 262144, kOOff = 0, kBarOff = 458752, kBarCount = 18, kTileSlotOff = 458896, kSmemBytes = 459928; };
template <> struct Entry<256, 112, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 57344, kQOff = 0, kKOff = 65536, kVOff = 180224, kOOff = 0, kBarOff = 294912, kBarCount = 10, kTileSlotOff = 294992, kSmemBytes = 296024; };
template <> struct Entry<256, 112, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 57344, kQOff = 0, kKOff = 65536, kVOff = 180224, kOOff = 0, kBarOff = 294912, kBarCount = 10, kTileSlotOff = 294992, kSmemBytes = 296024; };
template <> struct Entry<256, 112, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 57344, kQOff = 0, kKOff = 65536, kVOff = 237568, kOOff = 0, kBarOff = 409600, kBarCount = 14, kTileSlotOff = 409712, kSmemBytes = 410744; };
template <> struct Entry<256, 112, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 57344, kQOff = 0, kKOff = 65536, kVOff = 237568, kOOff = 0, kBarOff = 409600, kBarCount = 14, kTileSlotOff = 409712, kSmemBytes = 410744; };
template <> struct Entry<256, 112, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 57344, kQOff = 0, kKOff = 65536, kVOff = 294912, kOOff = 0, kBarOff = 524288, kBarCount = 18, kTileSlotOff = 524432, kSmemBytes = 525464; };
template <> struct Entry<256, 112, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 57344, kQOff = 0, kKOff = 65536, kVOff = 294912, kOOff = 0, kBarOff = 524288, kBarCount = 18, kTileSlotOff = 524432, kSmemBytes = 525464; };
template <> struct Entry<256, 128, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 65536, kQOff = 0, kKOff = 65536, kVOff = 196608, kOOff = 0, kBarOff = 327680, kBarCount = 10, kTileSlotOff = 327760, kSmemBytes = 328792; };
template <> struct Entry<256, 128, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 65536, kQOff = 0, kKOff = 65536, kVOff = 196608, kOOff = 0, kBarOff = 327680, kBarCount = 10, kTileSlotOff = 327760, kSmemBytes = 328792; };
template <> struct Entry<256, 128, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 65536, kQOff = 0, kKOff = 65536, kVOff = 262144, kOOff = 0, kBarOff = 458752, kBarCount = 14, kTileSlotOff = 458864, kSmemBytes = 459896; };
template <> struct Entry<256, 128, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 65536, kQOff = 0, kKOff = 65536, kVOff = 262144, kOOff = 0, kBarOff = 458752, kBarCount = 14, kTileSlotOff = 458864, kSmemBytes = 459896; };
template <> struct Entry<256, 128, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 65536, kQOff = 0, kKOff = 65536, kVOff = 327680, kOOff = 0, kBarOff = 589824, kBarCount = 18, kTileSlotOff = 589968, kSmemBytes = 591000; };
template <> struct Entry<256, 128, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 65536, kQOff = 0, kKOff = 65536, kVOff = 327680, kOOff = 0, kBarOff = 589824, kBarCount = 18, kTileSlotOff = 589968, kSmemBytes = 591000; };
template <> struct Entry<256, 144, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 73728, kQOff = 0, kKOff = 65536, kVOff = 212992, kOOff = 0, kBarOff = 360448, kBarCount = 10, kTileSlotOff = 360528, kSmemBytes = 361560; };
template <> struct Entry<256, 144, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 73728, kQOff = 0, kKOff = 65536, kVOff = 212992, kOOff = 0, kBarOff = 360448, kBarCount = 10, kTileSlotOff = 360528, kSmemBytes = 361560; };
template <> struct Entry<256, 144, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 73728, kQOff = 0, kKOff = 65536, kVOff = 286720, kOOff = 0, kBarOff = 507904, kBarCount = 14, kTileSlotOff = 508016, kSmemBytes = 509048; };
template <> struct Entry<256, 144, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 73728, kQOff = 0, kKOff = 65536, kVOff = 286720, kOOff = 0, kBarOff = 507904, kBarCount = 14, kTileSlotOff = 508016, kSmemBytes = 509048; };
template <> struct Entry<256, 144, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 73728, kQOff = 0, kKOff = 65536, kVOff = 360448, kOOff = 0, kBarOff = 655360, kBarCount = 18, kTileSlotOff = 655504, kSmemBytes = 656536; };
template <> struct Entry<256, 144, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 73728, kQOff = 0, kKOff = 65536, kVOff = 360448, kOOff = 0, kBarOff = 655360, kBarCount = 18, kTileSlotOff = 655504, kSmemBytes = 656536; };
template <> struct Entry<256, 160, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 81920, kQOff = 0, kKOff = 65536, kVOff = 229376, kOOff = 0, kBarOff = 393216, kBarCount = 10, kTileSlotOff = 393296, kSmemBytes = 394328; };
template <> struct Entry<256, 160, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 81920, kQOff = 0, kKOff = 65536, kVOff = 229376, kOOff = 0, kBarOff = 393216, kBarCount = 10, kTileSlotOff = 393296, kSmemBytes = 394328; };
template <> struct Entry<256, 160, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 81920, kQOff = 0, kKOff = 65536, kVOff = 311296, kOOff = 0, kBarOff = 557056, kBarCount = 14, kTileSlotOff = 557168, kSmemBytes = 558200; };
template <> struct Entry<256, 160, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 81920, kQOff = 0, kKOff = 65536, kVOff = 311296, kOOff = 0, kBarOff = 557056, kBarCount = 14, kTileSlotOff = 557168, kSmemBytes = 558200; };
template <> struct Entry<256, 160, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 81920, kQOff = 0, kKOff = 65536, kVOff = 393216, kOOff = 0, kBarOff = 720896, kBarCount = 18, kTileSlotOff = 721040, kSmemBytes = 722072; };
template <> struct Entry<256, 160, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 81920, kQOff = 0, kKOff = 65536, kVOff = 393216, kOOff = 0, kBarOff = 720896, kBarCount = 18, kTileSlotOff = 721040, kSmemBytes = 722072; };
template <> struct Entry<256, 176, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 90112, kQOff = 0, kKOff = 65536, kVOff = 245760, kOOff = 0, kBarOff = 425984, kBarCount = 10, kTileSlotOff = 426064, kSmemBytes = 427096; };
template <> struct Entry<256, 176, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 90112, kQOff = 0, kKOff = 65536, kVOff = 245760, kOOff = 0, kBarOff = 425984, kBarCount = 10, kTileSlotOff = 426064, kSmemBytes = 427096; };
template <> struct Entry<256, 176, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 90112, kQOff = 0, kKOff = 65536, kVOff = 335872, kOOff = 0, kBarOff = 606208, kBarCount = 14, kTileSlotOff = 606320, kSmemBytes = 607352; };
template <> struct Entry<256, 176, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 90112, kQOff = 0, kKOff = 65536, kVOff = 335872, kOOff = 0, kBarOff = 606208, kBarCount = 14, kTileSlotOff = 606320, kSmemBytes = 607352; };
template <> struct Entry<256, 176, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 90112, kQOff = 0, kKOff = 65536, kVOff = 425984, kOOff = 0, kBarOff = 786432, kBarCount = 18, kTileSlotOff = 786576, kSmemBytes = 787608; };
template <> struct Entry<256, 176, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 90112, kQOff = 0, kKOff = 65536, kVOff = 425984, kOOff = 0, kBarOff = 786432, kBarCount = 18, kTileSlotOff = 786576, kSmemBytes = 787608; };
template <> struct Entry<256, 192, 2, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 98304, kQOff = 0, kKOff = 65536, kVOff = 262144, kOOff = 0, kBarOff = 458752, kBarCount = 10, kTileSlotOff = 458832, kSmemBytes = 459864; };
template <> struct Entry<256, 192, 2, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 98304, kQOff = 0, kKOff = 65536, kVOff = 262144, kOOff = 0, kBarOff = 458752, kBarCount = 10, kTileSlotOff = 458832, kSmemBytes = 459864; };
template <> struct Entry<256, 192, 3, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 98304, kQOff = 0, kKOff = 65536, kVOff = 360448, kOOff = 0, kBarOff = 655360, kBarCount = 14, kTileSlotOff = 655472, kSmemBytes = 656504; };
template <> struct Entry<256, 192, 3, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 98304, kQOff = 0, kKOff = 65536, kVOff = 360448, kOOff = 0, kBarOff = 655360, kBarCount = 14, kTileSlotOff = 655472, kSmemBytes = 656504; };
template <> struct Entry<256, 192, 4, 0, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 98304, kQOff = 0, kKOff = 65536, kVOff = 458752, kOOff = 0, kBarOff = 851968, kBarCount = 18, kTileSlotOff = 852112, kSmemBytes = 853144; };
template <> struct Entry<256, 192, 4, 1, 2> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;  // over the SMEM limit
    static constexpr unsigned kQBytes = 65536, kKVBytes = 98304, kQOff = 0, kKOff = 65536, kVOff = 458752, kOOff = 0, kBarOff = 851968, kBarCount = 18, kTileSlotOff = 852112, kSmemBytes = 853144; };
template <> struct Entry<64, 64, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 8192, kQOff = 0, kKOff = 24576, kVOff = 40960, kOOff = 0, kBarOff = 57344, kBarCount = 10, kTileSlotOff = 57424, kSmemBytes = 58456; };
template <> struct Entry<64, 64, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 8192, kQOff = 0, kKOff = 49152, kVOff = 65536, kOOff = 81920, kBarOff = 106496, kBarCount = 12, kTileSlotOff = 106592, kSmemBytes = 107632; };
template <> struct Entry<64, 64, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 8192, kQOff = 0, kKOff = 24576, kVOff = 49152, kOOff = 0, kBarOff = 73728, kBarCount = 14, kTileSlotOff = 73840, kSmemBytes = 74872; };
template <> struct Entry<64, 64, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 8192, kQOff = 0, kKOff = 49152, kVOff = 73728, kOOff = 98304, kBarOff = 122880, kBarCount = 16, kTileSlotOff = 123008, kSmemBytes = 124048; };
template <> struct Entry<64, 64, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 8192, kQOff = 0, kKOff = 24576, kVOff = 57344, kOOff = 0, kBarOff = 90112, kBarCount = 18, kTileSlotOff = 90256, kSmemBytes = 91288; };
template <> struct Entry<64, 64, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 8192, kQOff = 0, kKOff = 49152, kVOff = 81920, kOOff = 114688, kBarOff = 139264, kBarCount = 20, kTileSlotOff = 139424, kSmemBytes = 140464; };
template <> struct Entry<64, 80, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 10240, kQOff = 0, kKOff = 24576, kVOff = 45056, kOOff = 0, kBarOff = 65536, kBarCount = 10, kTileSlotOff = 65616, kSmemBytes = 66648; };
template <> struct Entry<64, 80, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 10240, kQOff = 0, kKOff = 49152, kVOff = 69632, kOOff = 90112, kBarOff = 114688, kBarCount = 12, kTileSlotOff = 114784, kSmemBytes = 115824; };
template <> struct Entry<64, 80, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 10240, kQOff = 0, kKOff = 24576, kVOff = 55296, kOOff = 0, kBarOff = 86016, kBarCount = 14, kTileSlotOff = 86128, kSmemBytes = 87160; };
template <> struct Entry<64, 80, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 10240, kQOff = 0, kKOff = 49152, kVOff = 79872, kOOff = 110592, kBarOff = 135168, kBarCount = 16, kTileSlotOff = 135296, kSmemBytes = 136336; };
template <> struct Entry<64, 80, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 10240, kQOff = 0, kKOff = 24576, kVOff = 65536, kOOff = 0, kBarOff = 106496, kBarCount = 18, kTileSlotOff = 106640, kSmemBytes = 107672; };
template <> struct Entry<64, 80, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 10240, kQOff = 0, kKOff = 49152, kVOff = 90112, kOOff = 131072, kBarOff = 155648, kBarCount = 20, kTileSlotOff = 155808, kSmemBytes = 156848; };
template <> struct Entry<64, 96, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 12288, kQOff = 0, kKOff = 24576, kVOff = 49152, kOOff = 0, kBarOff = 73728, kBarCount = 10, kTileSlotOff = 73808, kSmemBytes = 74840; };
template <> struct Entry<64, 96, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 12288, kQOff = 0, kKOff = 49152, kVOff = 73728, kOOff = 98304, kBarOff = 122880, kBarCount = 12, kTileSlotOff = 122976, kSmemBytes = 124016; };
template <> struct Entry<64, 96, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 12288, kQOff = 0, kKOff = 24576, kVOff = 61440, kOOff = 0, kBarOff = 98304, kBarCount = 14, kTileSlotOff = 98416, kSmemBytes = 99448; };
template <> struct Entry<64, 96, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 12288, kQOff = 0, kKOff = 49152, kVOff = 86016, kOOff = 122880, kBarOff = 147456, kBarCount = 16, kTileSlotOff = 147584, kSmemBytes = 148624; };
template <> struct Entry<64, 96, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 12288, kQOff = 0, kKOff = 24576, kVOff = 73728, kOOff = 0, kBarOff = 122880, kBarCount = 18, kTileSlotOff = 123024, kSmemBytes = 124056; };
template <> struct Entry<64, 96, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 12288, kQOff = 0, kKOff = 49152, kVOff = 98304, kOOff = 147456, kBarOff = 172032, kBarCount = 20, kTileSlotOff = 172192, kSmemBytes = 173232; };
template <> struct Entry<64, 112, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 14336, kQOff = 0, kKOff = 24576, kVOff = 53248, kOOff = 0, kBarOff = 81920, kBarCount = 10, kTileSlotOff = 82000, kSmemBytes = 83032; };
template <> struct Entry<64, 112, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 14336, kQOff = 0, kKOff = 49152, kVOff = 77824, kOOff = 106496, kBarOff = 131072, kBarCount = 12, kTileSlotOff = 131168, kSmemBytes = 132208; };
template <> struct Entry<64, 112, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 14336, kQOff = 0, kKOff = 24576, kVOff = 67584, kOOff = 0, kBarOff = 110592, kBarCount = 14, kTileSlotOff = 110704, kSmemBytes = 111736; };
template <> struct Entry<64, 112, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 14336, kQOff = 0, kKOff = 49152, kVOff = 92160, kOOff = 135168, kBarOff = 159744, kBarCount = 16, kTileSlotOff = 159872, kSmemBytes = 160912; };
template <> struct Entry<64, 112, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 14336, kQOff = 0, kKOff = 24576, kVOff = 81920, kOOff = 0, kBarOff = 139264, kBarCount = 18, kTileSlotOff = 139408, kSmemBytes = 140440; };
template <> struct Entry<64, 112, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 14336, kQOff = 0, kKOff = 49152, kVOff = 106496, kOOff = 163840, kBarOff = 188416, kBarCount = 20, kTileSlotOff = 188576, kSmemBytes = 189616; };
template <> struct Entry<64, 128, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 16384, kQOff = 0, kKOff = 24576, kVOff = 57344, kOOff = 0, kBarOff = 90112, kBarCount = 10, kTileSlotOff = 90192, kSmemBytes = 91224; };
template <> struct Entry<64, 128, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 16384, kQOff = 0, kKOff = 49152, kVOff = 81920, kOOff = 114688, kBarOff = 139264, kBarCount = 12, kTileSlotOff = 139360, kSmemBytes = 140400; };
template <> struct Entry<64, 128, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 16384, kQOff = 0, kKOff = 24576, kVOff = 73728, kOOff = 0, kBarOff = 122880, kBarCount = 14, kTileSlotOff = 122992, kSmemBytes = 124024; };
template <> struct Entry<64, 128, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 16384, kQOff = 0, kKOff = 49152, kVOff = 98304, kOOff = 147456, kBarOff = 172032, kBarCount = 16, kTileSlotOff = 172160, kSmemBytes = 173200; };
template <> struct Entry<64, 128, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 16384, kQOff = 0, kKOff = 24576, kVOff = 90112, kOOff = 0, kBarOff = 155648, kBarCount = 18, kTileSlotOff = 155792, kSmemBytes = 156824; };
template <> struct Entry<64, 128, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 16384, kQOff = 0, kKOff = 49152, kVOff = 114688, kOOff = 180224, kBarOff = 204800, kBarCount = 20, kTileSlotOff = 204960, kSmemBytes = 206000; };
template <> struct Entry<64, 144, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 18432, kQOff = 0, kKOff = 24576, kVOff = 61440, kOOff = 0, kBarOff = 98304, kBarCount = 10, kTileSlotOff = 98384, kSmemBytes = 99416; };
template <> struct Entry<64, 144, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 18432, kQOff = 0, kKOff = 49152, kVOff = 86016, kOOff = 122880, kBarOff = 147456, kBarCount = 12, kTileSlotOff = 147552, kSmemBytes = 148592; };
template <> struct Entry<64, 144, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 18432, kQOff = 0, kKOff = 24576, kVOff = 79872, kOOff = 0, kBarOff = 135168, kBarCount = 14, kTileSlotOff = 135280, kSmemBytes = 136312; };
template <> struct Entry<64, 144, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 18432, kQOff = 0, kKOff = 49152, kVOff = 104448, kOOff = 159744, kBarOff = 184320, kBarCount = 16, kTileSlotOff = 184448, kSmemBytes = 185488; };
template <> struct Entry<64, 144, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 18432, kQOff = 0, kKOff = 24576, kVOff = 98304, kOOff = 0, kBarOff = 172032, kBarCount = 18, kTileSlotOff = 172176, kSmemBytes = 173208; };
template <> struct Entry<64, 144, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 18432, kQOff = 0, kKOff = 49152, kVOff = 122880, kOOff = 196608, kBarOff = 221184, kBarCount = 20, kTileSlotOff = 221344, kSmemBytes = 222384; };
template <> struct Entry<64, 160, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 20480, kQOff = 0, kKOff = 24576, kVOff = 65536, kOOff = 0, kBarOff = 106496, kBarCount = 10, kTileSlotOff = 106576, kSmemBytes = 107608; };
template <> struct Entry<64, 160, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 20480, kQOff = 0, kKOff = 49152, kVOff = 90112, kOOff = 131072, kBarOff = 155648, kBarCount = 12, kTileSlotOff = 155744, kSmemBytes = 156784; };
template <> struct Entry<64, 160, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 20480, kQOff = 0, kKOff = 24576, kVOff = 86016, kOOff = 0, kBarOff = 147456, kBarCount = 14, kTileSlotOff = 147568, kSmemBytes = 148600; };
template <> struct Entry<64, 160, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 20480, kQOff = 0, kKOff = 49152, kVOff = 110592, kOOff = 172032, kBarOff = 196608, kBarCount = 16, kTileSlotOff = 196736, kSmemBytes = 197776; };
template <> struct Entry<64, 160, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 20480, kQOff = 0, kKOff = 24576, kVOff = 106496, kOOff = 0, kBarOff = 188416, kBarCount = 18, kTileSlotOff = 188560, kSmemBytes = 189592; };
template <> struct Entry<64, 160, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 24576, kKVBytes = 20480, kQOff = 0, kKOff = 49152, kVOff = 131072, kOOff = 212992, kBarOff = 237568, kBarCount = 20, kTileSlotOff = 237728, kSmemBytes = 238768; };
template <> struct Entry<64, 176, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 22528, kQOff = 0, kKOff = 24576, kVOff = 69632, kOOff = 0, kBarOff = 114688, kBarCount = 10, kTileSlotOff = 114768, kSmemBytes = 115800; };
template <> struct Entry<64, 176, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 22528, kQOff = 0, kKOff = 49152, kVOff = 94208, kOOff = 139264, kBarOff = 163840, kBarCount = 12, kTileSlotOff = 163936, kSmemBytes = 164976; };
template <> struct Entry<64, 176, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 22528, kQOff = 0, kKOff = 24576, kVOff = 92160, kOOff = 0, kBarOff = 159744, kBarCount = 14, kTileSlotOff = 159856, kSmemBytes = 160888; };
template <> struct Entry<64, 176, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 22528, kQOff = 0, kKOff = 49152, kVOff = 116736, kOOff = 184320, kBarOff = 208896, kBarCount = 16, kTileSlotOff = 209024, kSmemBytes = 210064; };
template <> struct Entry<64, 176, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 22528, kQOff = 0, kKOff = 24576, kVOff = 114688, kOOff = 0, kBarOff = 204800, kBarCount = 18, kTileSlotOff = 204944, kSmemBytes = 205976; };
template <> struct Entry<64, 176, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 24576, kKVBytes = 22528, kQOff = 0, kKOff = 49152, kVOff = 139264, kOOff = 229376, kBarOff = 253952, kBarCount = 20, kTileSlotOff = 254112, kSmemBytes = 255152; };
template <> struct Entry<64, 192, 2, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 24576, kQOff = 0, kKOff = 24576, kVOff = 73728, kOOff = 0, kBarOff = 122880, kBarCount = 10, kTileSlotOff = 122960, kSmemBytes = 123992; };
template <> struct Entry<64, 192, 2, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 24576, kQOff = 0, kKOff = 49152, kVOff = 98304, kOOff = 147456, kBarOff = 172032, kBarCount = 12, kTileSlotOff = 172128, kSmemBytes = 173168; };
template <> struct Entry<64, 192, 3, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 24576, kQOff = 0, kKOff = 24576, kVOff = 98304, kOOff = 0, kBarOff = 172032, kBarCount = 14, kTileSlotOff = 172144, kSmemBytes = 173176; };
template <> struct Entry<64, 192, 3, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 24576, kQOff = 0, kKOff = 49152, kVOff = 122880, kOOff = 196608, kBarOff = 221184, kBarCount = 16, kTileSlotOff = 221312, kSmemBytes = 222352; };
template <> struct Entry<64, 192, 4, 0, 3> { static constexpr bool kDeclared = true, kSeparateO = false; static constexpr int kQStages = 1;
    static constexpr unsigned kQBytes = 24576, kKVBytes = 24576, kQOff = 0, kKOff = 24576, kVOff = 122880, kOOff = 0, kBarOff = 221184, kBarCount = 18, kTileSlotOff = 221328, kSmemBytes = 222360; };
template <> struct Entry<64, 192, 4, 1, 3> { static constexpr bool kDeclared = true, kSeparateO = true; static constexpr int kQStages = 2;  // over the SMEM limit
    static constexpr unsigned kQBytes = 24576, kKVBytes = 24576, kQOff = 0, kKOff = 49152, kVOff = 147456, kOOff = 245760, kBarOff = 270336, kBarCount = 20, kTileSlotOff = 270496, kSmemBytes = 271536; };

}  // namespace fmha_sm90_plan
