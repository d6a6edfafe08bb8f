// The SM100 6-warp FMHA forward kernel (seeds 000-003, finished), written once against the
// tcgen05 device API of kernels/common: built for sm_100a it is native, built for sm_90a with
// FMHACTL_TCGEN05_EMULATE=1 its tensor-memory work is emulated and everything else runs for real.
//
// One CTA = 128 query rows of one (batch, head) (and, for D=512, one half of the head dim).
// Warp roles (one method each):
//   warps 0-3  softmax / correction / epilogue: warp w owns TMEM lanes (= query rows) 32w..32w+31
//   warp 4     MMA issue; owns TMEM alloc/dealloc
//   warp 5     loads: Q once, then K/V tiles into a ring of FMHA_STAGES stages
// The plan (BlockN keys per tile, TMEM columns, SMEM carve-up, CTAs per SM) is declared once in
// fmhactl/plans/sm100.py and reaches this file as the generated fmha_sm100_plan.h:
// TMEM columns: S (BlockN fp32), P (16-bit) written over the S columns it came from | O (D/passes fp32).
//
// Compile-time switches, one per feature:
//   FMHA_LOAD_TMA   0: the load warp copies GMEM into the SW128 layout itself (M1); 1: TMA (M2)
//   FMHA_STAGES     K/V ring depth: 1, or 2 for the double-buffered pipeline (M3)
//   FMHA_P_SMEM     0: P goes to TMEM and PV is a TS MMA; 1: P goes to SMEM and PV is an SS MMA
//   FMHA_EXP2_POLY  of every 4 consecutive keys, how many exponentials a cubic polynomial on the
//                   FMA pipe computes instead of MUFU.EX2 (seed 004, FA4's ex2 emulation); 0: none
// Features (docs/features.md): a compile switch each says the build supports it (0: the
// FmhaParams field is ignored and its code is compiled out, so the other variants are unchanged);
// the FmhaParams field turns it on per launch (its default leaves the launch as it was):
//   FMHA_WINDOW     window_left/right: keys outside the sliding window are masked, KV tiles wholly
//                   outside it are neither loaded nor multiplied (Tile::j0 .. j0 + n_tiles)
//   FMHA_SINK       sinks: a per-head logit added to the final normaliser and the LSE only
//   FMHA_KV_SHARED  kv_shared: V is K's buffer, so V is not loaded and PV reads its columns from
//                   K's SMEM stage (a K tile's SW128 bytes are those of the MN-major V tile)
//   FMHA_TOPK       topk_idx/topk: sparse top-k. A top-k launch (p.topk > 0) has a different
//                   geometry: a CTA's 128 rows are the query heads of ONE token that share a KV
//                   head (rows past the group are padding, never written), so every row sees the
//                   same key list; the load warp gathers BlockN list entries per KV tile with
//                   cp.async into the SW128 K (and V) stage, zero rows for entries that -1,
//                   out-of-range, causal or the window drop; softmax masks those slots.
#pragma once

#include "common/cp_async.cuh"
#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/mbarrier.cuh"
#include "common/sw128.cuh"
#include "common/tcgen05.cuh"
#include "common/tma.cuh"
#include "sm100/fmha_sm100_plan.h"

#ifndef FMHA_LOAD_TMA
#define FMHA_LOAD_TMA 0
#endif
#ifndef FMHA_STAGES
#define FMHA_STAGES 1
#endif
#ifndef FMHA_P_SMEM
#define FMHA_P_SMEM 0
#endif
#ifndef FMHA_EXP2_POLY
#define FMHA_EXP2_POLY 0
#endif
static_assert(FMHA_EXP2_POLY >= 0 && FMHA_EXP2_POLY <= 4, "FMHA_EXP2_POLY counts keys out of every 4");
#ifndef FMHA_WINDOW
#define FMHA_WINDOW 0
#endif
#ifndef FMHA_SINK
#define FMHA_SINK 0
#endif
#ifndef FMHA_KV_SHARED
#define FMHA_KV_SHARED 0
#endif
#ifndef FMHA_TOPK
#define FMHA_TOPK 0
#endif
// Debug builds copy the first CTA's intermediates to p.checkpoints (fmhactl dump); see Checkpoints.
#ifndef FMHA_CHECKPOINTS
#define FMHA_CHECKPOINTS 0
#endif

struct FmhaTmaMaps {
    TmaMap q, k, v;
};

namespace fmha_sm100 {

constexpr int kBlockM = fmha_sm100_plan::kBlockM;  // query rows per CTA = MMA M = TMEM lanes
constexpr int kThreads = fmha_sm100_plan::kThreads;
constexpr int kMmaWarp = 4;
constexpr int kLoadWarp = 5;
constexpr int kMmaK = 16;  // K of one kind::f16 MMA
static_assert(FMHA_STAGES >= 1 && FMHA_STAGES <= 4, "K/V ring of 1 to 4 stages");

__host__ __device__ constexpr int pow2_at_least(int n) {
    int p = 32;
    while (p < n) p *= 2;
    return p;
}

// The plan for head dim D, from the generated header; the byte carving is recomputed here from
// BlockN and D and must agree with the declaration (fmhactl/plans/sm100.py).
template <int D>
struct Plan {
    using Declared = fmha_sm100_plan::Entry<D, FMHA_STAGES, FMHA_P_SMEM>;
    static_assert(Declared::kSupported, "no SM100 plan fits this head dim with these switches");
    static constexpr int kBlockN = Declared::kBlockN;  // keys per KV tile = QK MMA N
    static constexpr int kDPasses = Declared::kDPasses;  // 2: O split over two CTAs, one half of D each
    static constexpr int kDPart = D / kDPasses;          // O / V columns this CTA owns = PV MMA N
    static_assert(kBlockN % 32 == 0 && kBlockN >= 32 && kBlockN <= 128, "S is read in 32-column chunks");
    static_assert(kDPart % 64 == 0 && kDPart <= 256, "PV MMA N <= 256, whole SW128 atom columns");

    static constexpr int kColS = 0;
    static constexpr int kColP = kColS;  // P (16-bit pairs) overwrites the S columns it came from
    static constexpr int kColO = kColS + kBlockN;
    static constexpr int kColsUsed = kBlockN + kDPart;
    static_assert(kColsUsed <= fmha_sm100_plan::kTmemColumns, "TMEM holds 512 columns: S BlockN + O D/passes must fit");
    static constexpr int kColsAlloc = pow2_at_least(kColsUsed);

    static constexpr unsigned kQBytes = kBlockM * D * 2;
    static constexpr unsigned kKBytes = kBlockN * D * 2;
    static constexpr unsigned kVBytes = kBlockN * kDPart * 2;
    static constexpr unsigned kPBytes = FMHA_P_SMEM ? kBlockM * (kBlockN > 64 ? kBlockN : 64) * 2 : 0;
    static constexpr unsigned kQOff = 0;
    static constexpr unsigned kKOff = kQOff + kQBytes;
    static constexpr unsigned kVOff = kKOff + FMHA_STAGES * kKBytes;
    static constexpr unsigned kPOff = kVOff + FMHA_STAGES * kVBytes;
    static constexpr unsigned kBarOff = kPOff + kPBytes;
    static constexpr unsigned kBarCount = 4 + 2 * FMHA_STAGES;  // q_full s_full p_full o_ready + kv_full/empty
    static constexpr unsigned kTmemSlotOff = kBarOff + 8 * kBarCount;
    // +1024: the dynamic window is re-aligned to the 1024-B swizzle repeat inside the kernel.
    static constexpr unsigned kSmemNeeded = kTmemSlotOff + 16 + 1024;
    // What the launch asks for: possibly padded so SMEM admits no more CTAs/SM than TMEM holds.
    static constexpr unsigned kSmemBytes = Declared::kSmemBytes;
    static constexpr int kCtasPerSm = Declared::kCtasPerSm;
    static_assert(Declared::kColS == kColS && Declared::kColP == kColP && Declared::kColO == kColO &&
                      Declared::kColsUsed == kColsUsed && Declared::kColsAlloc == kColsAlloc,
                  "TMEM columns disagree with fmhactl/plans/sm100.py: regenerate fmha_sm100_plan.h");
    static_assert(Declared::kQOff == kQOff && Declared::kKOff == kKOff && Declared::kVOff == kVOff &&
                      Declared::kPOff == kPOff && Declared::kBarOff == kBarOff &&
                      Declared::kTmemSlotOff == kTmemSlotOff && Declared::kSmemNeeded == kSmemNeeded,
                  "SMEM carve-up disagrees with fmhactl/plans/sm100.py: regenerate fmha_sm100_plan.h");
    static_assert(kSmemBytes >= kSmemNeeded && kSmemBytes <= fmha_sm100_plan::kMaxDynamicSmem, "dynamic SMEM within 227 KiB");
    static_assert(kCtasPerSm * kColsAlloc <= fmha_sm100_plan::kTmemColumns, "co-resident CTAs must fit their TMEM allocations");
    // Checkpoint dumps mirror a 128-key tile of the whole head dim (fmhactl/runtime/checkpoints.py).
    static constexpr bool kCheckpointable = kBlockN == 128 && kDPasses == 1;
};

// Byte layout of the checkpoint buffer (fmhactl/runtime/checkpoints.py mirrors it): the raw SMEM
// images of Q and of K/V tile 0, S and P of KV tile 0 as fp32 [row][key], and the unnormalised
// O accumulator before the epilogue as fp32 [row][d]. Only CTA (0, 0, 0) writes.
template <int D>
struct Checkpoints {
    static constexpr int kBlockN = 128;
    static constexpr unsigned kQ = 0;
    static constexpr unsigned kK = kQ + kBlockM * D * 2;
    static constexpr unsigned kV = kK + kBlockN * D * 2;
    static constexpr unsigned kS = kV + kBlockN * D * 2;
    static constexpr unsigned kP = kS + kBlockM * kBlockN * 4;
    static constexpr unsigned kO = kP + kBlockM * kBlockN * 4;
    static constexpr unsigned kBytes = kO + kBlockM * D * 4;
};

template <int D>
__device__ __forceinline__ bool checkpointing(const FmhaParams& p) {
    return FMHA_CHECKPOINTS && Plan<D>::kCheckpointable && p.checkpoints != nullptr && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
}

__device__ __forceinline__ void checkpoint_copy(const FmhaParams& p, unsigned offset, const unsigned char* src,
                                                unsigned bytes, int lane) {
    unsigned char* dst = static_cast<unsigned char*>(p.checkpoints) + offset;
    for (unsigned i = 16 * lane; i < bytes; i += 32 * 16)
        *reinterpret_cast<uint4*>(dst + i) = *reinterpret_cast<const uint4*>(src + i);
}

__device__ __forceinline__ void checkpoint_float(const FmhaParams& p, unsigned offset, int index, float value) {
    reinterpret_cast<float*>(static_cast<unsigned char*>(p.checkpoints) + offset)[index] = value;
}

struct Barriers {
    unsigned long long* q_full;
    unsigned long long* s_full;   // QK of the current tile is in TMEM (tcgen05.commit)
    unsigned long long* p_full;   // softmax wrote P and rescaled O (128 arrivals)
    unsigned long long* o_ready;  // PV of a tile is done: O and P may be touched again (commit)
    unsigned long long* kv_full;  // [stage]: K and V landed
    unsigned long long* kv_empty; // [stage]: both MMAs that read the stage completed (commit)
};

struct Tile {
    int m0, h, h_kv, b, n_tiles;
    int d0;  // first head-dim column of O (and V) this CTA computes: 0 unless O is split over D
    int j0;  // first KV tile this CTA visits (a sliding window skips the tiles left of it); j counts from it
#if FMHA_TOPK
    int rows;  // top-k launch: m0 is the token, h the first of `rows` query heads (rows past them: padding)
#endif
};

// The keys [lo, hi] one query row sees under the sliding window (bottom-right aligned like causal),
// clamped to [-1, seq_k]; without a window, [-1, seq_k] (no bound). 64-bit: the window may be 2^31-1.
struct KeyRange {
    int lo, hi;
};
__device__ __forceinline__ bool windowed(const FmhaParams& p) {
    return FMHA_WINDOW && (p.window_left >= 0 || p.window_right >= 0);
}
__device__ __forceinline__ bool kv_shared(const FmhaParams& p) { return FMHA_KV_SHARED && p.kv_shared; }
__device__ __forceinline__ KeyRange window_of_row(const FmhaParams& p, int row) {
    const long long diagonal = static_cast<long long>(row) + p.seq_k - p.seq_q;
    long long lo = p.window_left >= 0 ? diagonal - p.window_left : -1;
    long long hi = p.window_right >= 0 ? diagonal + p.window_right : p.seq_k;
    lo = lo < -1 ? -1 : (lo > p.seq_k ? p.seq_k : lo);
    hi = hi < -1 ? -1 : (hi > p.seq_k ? p.seq_k : hi);
    return KeyRange{static_cast<int>(lo), static_cast<int>(hi)};
}

#if FMHA_TOPK
__device__ __forceinline__ bool topk_launch(const FmhaParams& p) { return p.topk > 0; }

// The CTA's token's list (b, token, h_kv): p.topk int32 entries.
__device__ __forceinline__ const int* topk_list(const FmhaParams& p, int b, int token, int h_kv) {
    return p.topk_idx + ((static_cast<fmha_i64>(b) * p.seq_q + token) * p.heads_kv + h_kv) * p.topk;
}

// The key of list slot `slot` for query token `token`, or -1 when the slot is past the list or its
// entry is dropped: -1 padding, out of range (< -1 or >= seq_k: skipped like -1), masked by causal or
// the window. A duplicate is kept (each entry is one term of the softmax).
__device__ __forceinline__ int topk_key(const FmhaParams& p, const int* list, int slot, int token) {
    if (slot >= p.topk) return -1;
    const int key = list[slot];
    if (key < 0 || key >= p.seq_k) return -1;
    if (p.causal && key > token + p.seq_k - p.seq_q) return -1;
    if (windowed(p)) {
        const KeyRange w = window_of_row(p, token);
        if (key < w.lo || key > w.hi) return -1;
    }
    return key;
}

// Top-k launch: blockIdx.x = (token * head chunks + chunk) * passes over D + pass, y = KV head,
// z = batch (fmhactl/plans/sm100.py topk_grid). The rows are the group's query heads
// chunk*kBlockM.. of KV head y; every tile holds BlockN list slots (n_tiles = ceil(topk / BlockN)).
template <int D>
__device__ __forceinline__ Tile locate_topk(const FmhaParams& p) {
    constexpr int kRows = fmha_sm100_plan::kTopkHeadsPerCta;
    const int group = p.heads / p.heads_kv;
    const int chunks = (group + kRows - 1) / kRows;
    const int rest = blockIdx.x / Plan<D>::kDPasses;
    Tile t;
    t.d0 = (blockIdx.x % Plan<D>::kDPasses) * Plan<D>::kDPart;
    t.m0 = rest / chunks;
    t.h_kv = blockIdx.y;
    t.b = blockIdx.z;
    t.h = t.h_kv * group + (rest % chunks) * kRows;
    t.rows = min(kRows, group - (rest % chunks) * kRows);
    t.j0 = 0;
    t.n_tiles = (p.topk + Plan<D>::kBlockN - 1) / Plan<D>::kBlockN;
    return t;
}
#endif

// blockIdx.x = query tile * passes over D + pass.
template <int D>
__device__ __forceinline__ Tile locate(const FmhaParams& p) {
    constexpr int kBlockN = Plan<D>::kBlockN;
#if FMHA_TOPK
    if (topk_launch(p)) return locate_topk<D>(p);
#endif
    Tile t;
    t.m0 = (blockIdx.x / Plan<D>::kDPasses) * kBlockM;
    t.d0 = (blockIdx.x % Plan<D>::kDPasses) * Plan<D>::kDPart;
    t.h = blockIdx.y;
    t.b = blockIdx.z;
    t.h_kv = t.h / (p.heads / p.heads_kv);
    int n_end = p.seq_k;
    if (p.causal) {  // bottom-right: row i sees keys j <= i + seq_k - seq_q
        const int last_row = min(t.m0 + kBlockM, p.seq_q) - 1;
        n_end = min(p.seq_k, max(0, last_row + p.seq_k - p.seq_q + 1));
    }
#if FMHA_WINDOW
    const int last_row = min(t.m0 + kBlockM, p.seq_q) - 1;
    // The window: the last row's right bound ends the tiles, the first row's left bound starts them.
    if (p.window_right >= 0) n_end = min(n_end, window_of_row(p, last_row).hi + 1);
    const int n_begin = p.window_left >= 0 ? max(0, min(n_end, window_of_row(p, t.m0).lo)) : 0;
    t.j0 = n_begin / kBlockN;
    t.n_tiles = max(0, (n_end + kBlockN - 1) / kBlockN - t.j0);
#else
    t.j0 = 0;
    t.n_tiles = (n_end + kBlockN - 1) / kBlockN;
#endif
    return t;
}

// ---- load warp ------------------------------------------------------------------------------

// Copy `rows` rows x D of a (seq, D) slice into the SW128 tile, zero past `valid_rows` rows and
// `valid_cols` columns (a head dim padded up to the entry's D; valid_cols is a multiple of 8).
template <int D>
__device__ __forceinline__ void copy_tile(unsigned char* dst, const unsigned short* src, long long row_stride,
                                          int rows, int valid_rows, int valid_cols, int lane) {
    constexpr int kChunks = D / 8;  // 16-byte chunks per row
    for (int idx = lane; idx < rows * kChunks; idx += 32) {
        const int r = idx / kChunks, c = (idx % kChunks) * 8;
        uint4 value = make_uint4(0, 0, 0, 0);
        if (r < valid_rows && c < valid_cols) value = *reinterpret_cast<const uint4*>(src + r * row_stride + c);
        *reinterpret_cast<uint4*>(dst + sw128::offset(r, c, rows)) = value;
    }
}

#if FMHA_TOPK
// Top-k: Q is the heads t.h.. of token t.m0 (rows of the head stride, copied; padding rows zero),
// then per KV tile the BlockN list slots' K rows (and V's columns d0.. unless K = V) gathered with
// cp.async into the stage's SW128 layout; a dropped slot is a zero row (softmax masks it; zeros
// keep 0 * V finite). Generic-proxy writes: wait, fence.proxy.async, then the full barrier's arrive.
template <int D>
__device__ void load_warp_topk(const FmhaParams& p, const Tile& t, unsigned char* smem, const Barriers& bar,
                               int lane) {
    using P = Plan<D>;
    constexpr int kBlockN = P::kBlockN;
    const unsigned short* q = static_cast<const unsigned short*>(p.q) + t.b * p.q_batch_stride +
                              static_cast<fmha_i64>(t.m0) * p.q_seq_stride + t.h * p.q_head_stride;
    const unsigned short* k = static_cast<const unsigned short*>(p.k) + t.b * p.k_batch_stride + t.h_kv * p.k_head_stride;
    const unsigned short* v =
        static_cast<const unsigned short*>(p.v) + t.b * p.v_batch_stride + t.h_kv * p.v_head_stride + t.d0;
    const int* list = topk_list(p, t.b, t.m0, t.h_kv);

    copy_tile<D>(smem + P::kQOff, q, p.q_head_stride, kBlockM, t.rows, p.head_dim, lane);
    tma::fence_proxy_async_shared();
    __syncwarp();
    if (lane == 0) mbar::arrive(bar.q_full);

    for (int j = 0; j < t.n_tiles; ++j) {
        const int stage = j % FMHA_STAGES;
        if (j >= FMHA_STAGES) mbar::wait_parity(&bar.kv_empty[stage], ((j / FMHA_STAGES) - 1) & 1);
        int keys[kBlockN / 32];
#pragma unroll
        for (int m = 0; m < kBlockN / 32; ++m) keys[m] = topk_key(p, list, j * kBlockN + 32 * m + lane, t.m0);
        cp_async::gather_rows_sw128<D, kBlockN>(tc5::smem_addr(smem + P::kKOff + stage * P::kKBytes), k,
                                                p.k_seq_stride, keys, p.head_dim, lane);
        if (!kv_shared(p))
            cp_async::gather_rows_sw128<P::kDPart, kBlockN>(tc5::smem_addr(smem + P::kVOff + stage * P::kVBytes), v,
                                                            p.v_seq_stride, keys, p.head_dim - t.d0, lane);
        cp_async::wait_all();
        tma::fence_proxy_async_shared();
        __syncwarp();
        if (lane == 0) mbar::arrive(&bar.kv_full[stage]);
    }
}
#endif

template <int D>
__device__ void load_warp(const FmhaParams& p, const FmhaTmaMaps& maps, const Tile& t, unsigned char* smem,
                          const Barriers& bar, int lane) {
    using P = Plan<D>;
    constexpr int kBlockN = P::kBlockN;
#if FMHA_TOPK
    if (topk_launch(p)) {
        load_warp_topk<D>(p, t, smem, bar, lane);
        return;
    }
#endif
    // A tile with no key to visit (causal, seq_q > seq_k: rows above the diagonal) loads nothing,
    // as CUTLASS's load warp does: nobody would wait on q_full, and a TMA issued here could still be
    // writing shared memory when the CTA exits.
    if (t.n_tiles == 0) return;
#if !FMHA_LOAD_TMA
    const unsigned short* q = static_cast<const unsigned short*>(p.q) + t.b * p.q_batch_stride + t.h * p.q_head_stride;
    const unsigned short* k = static_cast<const unsigned short*>(p.k) + t.b * p.k_batch_stride + t.h_kv * p.k_head_stride;
    const unsigned short* v = static_cast<const unsigned short*>(p.v) + t.b * p.v_batch_stride + t.h_kv * p.v_head_stride;
#endif

#if FMHA_LOAD_TMA
    // Columns past the real head dim (d=96 in the d128 entry) are out of the tensor map's bounds:
    // TMA zero-fills them and still counts their bytes.
    if (lane == 0) {
        mbar::arrive_expect_tx(bar.q_full, P::kQBytes);
        for (int c = 0; c < D / 64; ++c)
            tma::load_4d(smem + P::kQOff + c * kBlockM * 128, &maps.q, bar.q_full, c * 64, t.m0, t.h, t.b);
    }
#else
    copy_tile<D>(smem + P::kQOff, q + t.m0 * p.q_seq_stride, p.q_seq_stride, kBlockM, p.seq_q - t.m0, p.head_dim,
                 lane);
    tma::fence_proxy_async_shared();
    __syncwarp();
    if (lane == 0) mbar::arrive(bar.q_full);
#endif

    for (int j = 0; j < t.n_tiles; ++j) {
        const int stage = j % FMHA_STAGES;
        if (j >= FMHA_STAGES) mbar::wait_parity(&bar.kv_empty[stage], ((j / FMHA_STAGES) - 1) & 1);
        unsigned char* k_dst = smem + P::kKOff + stage * P::kKBytes;
        unsigned char* v_dst = smem + P::kVOff + stage * P::kVBytes;
        const int n0 = (FMHA_WINDOW ? t.j0 + j : j) * kBlockN;
#if FMHA_LOAD_TMA
        if (lane == 0) {
            // Out-of-bounds keys are zero-filled by TMA, and still count towards the bytes.
            mbar::arrive_expect_tx(&bar.kv_full[stage], P::kKBytes + (kv_shared(p) ? 0u : P::kVBytes));
            for (int c = 0; c < D / 64; ++c)
                tma::load_4d(k_dst + c * kBlockN * 128, &maps.k, &bar.kv_full[stage], c * 64, n0, t.h_kv, t.b);
            // Only this CTA's part of V's head dim: PV produces only its part of O. K = V: none.
            for (int c = 0; c < (kv_shared(p) ? 0 : P::kDPart / 64); ++c)
                tma::load_4d(v_dst + c * kBlockN * 128, &maps.v, &bar.kv_full[stage], t.d0 + c * 64, n0, t.h_kv,
                             t.b);
        }
#else
        copy_tile<D>(k_dst, k + n0 * p.k_seq_stride, p.k_seq_stride, kBlockN, p.seq_k - n0, p.head_dim, lane);
        // V (keys x D, D contiguous) is the MN-major B operand of PV; its SW128 bytes are those of
        // a K-major tile with rows = keys. Only this CTA's part of the head dim.
        if (!kv_shared(p))
            copy_tile<P::kDPart>(v_dst, v + n0 * p.v_seq_stride + t.d0, p.v_seq_stride, kBlockN, p.seq_k - n0,
                                 p.head_dim - t.d0, lane);
        tma::fence_proxy_async_shared();
        __syncwarp();
        if (lane == 0) mbar::arrive(&bar.kv_full[stage]);
#endif
    }
}

// ---- MMA warp -------------------------------------------------------------------------------

__device__ __forceinline__ tc5::u64 sw128_desc(const unsigned char* base, unsigned byte_offset, unsigned lbo) {
    return tc5::make_smem_desc(tc5::smem_addr(base) + byte_offset, lbo, sw128::kAtomBytes, tc5::Layout::swizzle_128b);
}

template <int D, tc5::Fmt F>
__device__ void mma_warp(const FmhaParams& p, const Tile& t, unsigned char* smem, tc5::u32 tmem, const Barriers& bar,
                         int lane) {
    using P = Plan<D>;
    constexpr int kBlockN = P::kBlockN;
    constexpr tc5::u32 kIdescQK = tc5::make_idesc(kBlockM, kBlockN, F, F, tc5::DFmt::f32, tc5::Major::k, tc5::Major::k);
    constexpr tc5::u32 kIdescPV =
        tc5::make_idesc(kBlockM, P::kDPart, F, F, tc5::DFmt::f32, tc5::Major::k, tc5::Major::mn);
    // P lives inside S: the next QK may only overwrite S once the PV that reads P has completed.
    constexpr bool kPInS = !FMHA_P_SMEM;
    const unsigned char* q = smem + P::kQOff;

    auto issue_qk = [&](int j) {
        const int stage = j % FMHA_STAGES;
        mbar::wait_parity(&bar.kv_full[stage], (j / FMHA_STAGES) & 1);
        tc5::fence_after_thread_sync();
        const unsigned char* k = smem + P::kKOff + stage * P::kKBytes;
        if (FMHA_CHECKPOINTS && j == 0 && checkpointing<D>(p)) {
            checkpoint_copy(p, Checkpoints<D>::kQ, q, P::kQBytes, lane);
            checkpoint_copy(p, Checkpoints<D>::kK, k, P::kKBytes, lane);
            checkpoint_copy(p, Checkpoints<D>::kV, smem + P::kVOff, P::kVBytes, lane);
        }
        for (int kk = 0; kk < D / kMmaK; ++kk) {
            // K-major SW128: a K step of 16 elements is 32 B inside the 128-B line; LBO unused.
            const tc5::u64 a = sw128_desc(q, sw128::kmajor_k_offset(kk * kMmaK, kBlockM), 16);
            const tc5::u64 b = sw128_desc(k, sw128::kmajor_k_offset(kk * kMmaK, kBlockN), 16);
            tc5::mma_ss(tmem + P::kColS, a, b, kIdescQK, kk > 0);
        }
        tc5::commit(bar.s_full);
    };

    if (t.n_tiles == 0) return;
    mbar::wait_parity(bar.q_full, 0);
    issue_qk(0);
    for (int j = 0; j < t.n_tiles; ++j) {
        const int stage = j % FMHA_STAGES;
        mbar::wait_parity(bar.p_full, j & 1);
        tc5::fence_after_thread_sync();
        // With P in SMEM, S is free again once softmax has read it: with a second stage, the next QK
        // overlaps this PV. With one stage the next K can only land after this PV released the
        // stage, so the next QK waits until after the PV (issuing it first deadlocks).
        if (!kPInS && FMHA_STAGES > 1 && j + 1 < t.n_tiles) issue_qk(j + 1);
        // K = V: this CTA's columns d0.. of the K stage are 64-wide SW128 atoms d0/64.. of kBlockN rows.
        const unsigned char* v = kv_shared(p) ? smem + P::kKOff + stage * P::kKBytes + (t.d0 / 64) * kBlockN * 128
                                             : smem + P::kVOff + stage * P::kVBytes;
        for (int kk = 0; kk < kBlockN / kMmaK; ++kk) {
            // MN-major SW128 V: 16 keys = 16 rows of 128 B per MMA; LBO steps 64-wide D atoms.
            const tc5::u64 b = sw128_desc(v, kk * kMmaK * 128, kBlockN * 128);
            const bool accumulate = j > 0 || kk > 0;
#if FMHA_P_SMEM
            const tc5::u64 a = sw128_desc(smem + P::kPOff, sw128::kmajor_k_offset(kk * kMmaK, kBlockM), 16);
            tc5::mma_ss(tmem + P::kColO, a, b, kIdescPV, accumulate);
#else
            // P in TMEM packs two 16-bit values per column: 16 keys = 8 columns.
            tc5::mma_ts(tmem + P::kColO, tmem + P::kColP + kk * (kMmaK / 2), b, kIdescPV, accumulate);
#endif
        }
        tc5::commit(bar.o_ready);
        tc5::commit(&bar.kv_empty[stage]);
        if (j + 1 < t.n_tiles && (kPInS || FMHA_STAGES == 1)) {
            if (kPInS) {
                // MMAs into different accumulators are not ordered (spec 7.2): PV reading P from
                // the S columns must complete before QK writes them.
                mbar::wait_parity(bar.o_ready, j & 1);
                tc5::fence_after_thread_sync();
            }
            issue_qk(j + 1);
        }
    }
    // Leave no commit in flight at exit: every stage's last release has arrived.
    for (int stage = 0; stage < FMHA_STAGES && stage < t.n_tiles; ++stage) {
        const int last = t.n_tiles - 1 - ((t.n_tiles - 1 - stage) % FMHA_STAGES);
        mbar::wait_parity(&bar.kv_empty[stage], (last / FMHA_STAGES) & 1);
    }
}

// ---- softmax / correction / epilogue warps -------------------------------------------------

template <class Traits>
__device__ __forceinline__ tc5::u32 pack2(float lo, float hi) {
    return static_cast<tc5::u32>(Traits::from_float(lo)) | (static_cast<tc5::u32>(Traits::from_float(hi)) << 16);
}

// 2^x for x <= 0 without MUFU.EX2 (seed 004; FA4's ex2 emulation): floor(x) by one FADD in
// round-down mode against 1.5 * 2^23 (the integer lands in the low mantissa bits), 2^frac by a
// cubic minimax polynomial (max relative error 8.6e-5, below 16-bit P's rounding), and the
// exponent added as an integer shift. FMA and ALU pipes only.
__device__ __forceinline__ float exp2_poly(float x) {
    x = fmaxf(x, -127.f);
    const float shifted = __fadd_rd(x, 12582912.f);
    const float frac = x - (shifted - 12582912.f);
    const float poly = fmaf(fmaf(fmaf(0.07706724f, frac, 0.22764498f), frac, 0.69511664f), frac, 1.f);
    return __int_as_float(__float_as_int(poly) + (__float_as_int(shifted) << 23));
}

// Key i of a 4-key group: the polynomial takes the last FMHA_EXP2_POLY of every 4 (compile-time).
__device__ __forceinline__ float exp2_mixed(float x, int key_in_group) {
    return key_in_group >= 4 - FMHA_EXP2_POLY ? exp2_poly(x) : exp2f(x);
}

template <int D, class Traits>
__device__ void softmax_warps(const FmhaParams& p, const Tile& t, unsigned char* smem, tc5::u32 tmem,
                              const Barriers& bar, int warp, int lane) {
    using P = Plan<D>;
    constexpr int kBlockN = P::kBlockN;
    const int local_row = 32 * warp + lane;
#if FMHA_TOPK
    // Top-k: the rows are the query heads t.h.. of one token t.m0; each list slot is masked by the
    // bit its lane's topk_key gives (the same for every row).
    const bool topk = topk_launch(p);
    const int row = topk ? t.m0 : t.m0 + local_row;  // the query token of this row
    const bool row_valid = topk ? local_row < t.rows : row < p.seq_q;
    const int* list = topk ? topk_list(p, t.b, t.m0, t.h_kv) : nullptr;
#else
    const int row = t.m0 + local_row;
    const bool row_valid = row < p.seq_q;
#endif
    const int diagonal = p.seq_k - p.seq_q;
    const tc5::u32 lanes = static_cast<tc5::u32>(32 * warp) << 16;  // this warp's TMEM lane quarter
#if FMHA_WINDOW
    const KeyRange window = window_of_row(p, row);
#endif
    float row_max = -FMHA_INF, row_sum = 0.f;

    for (int j = 0; j < t.n_tiles; ++j) {
        mbar::wait_parity(bar.s_full, j & 1);
        tc5::fence_after_thread_sync();
        const int n0 = (FMHA_WINDOW ? t.j0 + j : j) * kBlockN;
#if FMHA_WINDOW
        auto visible_key = [&](int key) {
            return row_valid && key < p.seq_k && (!p.causal || key <= row + diagonal) &&
                   (!windowed(p) || (key >= window.lo && key <= window.hi));
        };
#else
        auto visible_key = [&](int key) { return row_valid && key < p.seq_k && (!p.causal || key <= row + diagonal); };
#endif
#if FMHA_TOPK
        // listed: bit i = slot n0 + c + i holds a key this token sees (top-k launches only).
        auto listed_bits = [&](int c) {
            return topk ? __ballot_sync(0xffffffffu, topk_key(p, list, n0 + c + lane, row) >= 0) : 0u;
        };
        auto visible = [&](int key, unsigned listed, int i) {
            return topk ? row_valid && ((listed >> i) & 1u) : visible_key(key);
        };
#else
        auto listed_bits = [](int) { return 0u; };
        auto visible = [&](int key, unsigned, int) { return visible_key(key); };
#endif

        // Pass 1: the tile's row max. S is read twice rather than held in 128 registers.
        float tile_max = -FMHA_INF;
        for (int c = 0; c < kBlockN; c += 32) {
            tc5::u32 s[32];
            tc5::ld<tc5::Shape::k32x32b, 32>(tmem + lanes + P::kColS + c, s);
            tc5::wait_ld();
            const unsigned listed = listed_bits(c);
#pragma unroll
            for (int i = 0; i < 32; ++i)
                if (visible(n0 + c + i, listed, i)) tile_max = fmaxf(tile_max, __uint_as_float(s[i]) * p.scale_log2);
            if (FMHA_CHECKPOINTS && j == 0 && checkpointing<D>(p))
                for (int i = 0; i < 32; ++i)
                    checkpoint_float(p, Checkpoints<D>::kS, local_row * Checkpoints<D>::kBlockN + c + i,
                                     __uint_as_float(s[i]));
        }
        const float new_max = fmaxf(row_max, tile_max);
        const float rescale = new_max == -FMHA_INF ? 1.f : exp2f(row_max - new_max);
        row_max = new_max;

        // O and P are still in use by the previous tile's PV until it commits.
        if (j > 0) {
            mbar::wait_parity(bar.o_ready, (j - 1) & 1);
            tc5::fence_after_thread_sync();
            if (!__all_sync(0xffffffffu, rescale == 1.f)) {
                for (int c = 0; c < P::kDPart; c += 32) {
                    tc5::u32 o[32];
                    tc5::ld<tc5::Shape::k32x32b, 32>(tmem + lanes + P::kColO + c, o);
                    tc5::wait_ld();
#pragma unroll
                    for (int i = 0; i < 32; ++i) o[i] = __float_as_uint(__uint_as_float(o[i]) * rescale);
                    tc5::st<tc5::Shape::k32x32b, 32>(tmem + lanes + P::kColO + c, o);
                }
                tc5::wait_st();
            }
        }

        // Pass 2: P = exp2(S*scale - max), rounded to 16 bits for PV; the row sum (normaliser and
        // LSE) adds the unrounded values, so the LSE carries no 16-bit rounding bias. With P in
        // TMEM, keys c..c+31 go to columns c/2..c/2+15 of S: columns this thread has already read.
        float tile_sum = 0.f;
        for (int c = 0; c < kBlockN; c += 32) {
            tc5::u32 s[32];
            tc5::ld<tc5::Shape::k32x32b, 32>(tmem + lanes + P::kColS + c, s);
            tc5::wait_ld();
            tc5::u32 packed[16];
            const unsigned listed = listed_bits(c);
#pragma unroll
            for (int i = 0; i < 32; i += 2) {
                const float p0 = visible(n0 + c + i, listed, i)
                                     ? exp2_mixed(__uint_as_float(s[i]) * p.scale_log2 - row_max, i % 4)
                                     : 0.f;
                const float p1 = visible(n0 + c + i + 1, listed, i + 1)
                                     ? exp2_mixed(__uint_as_float(s[i + 1]) * p.scale_log2 - row_max, (i + 1) % 4)
                                     : 0.f;
                packed[i / 2] = pack2<Traits>(p0, p1);
                if (FMHA_CHECKPOINTS && j == 0 && checkpointing<D>(p)) {
                    checkpoint_float(p, Checkpoints<D>::kP, local_row * Checkpoints<D>::kBlockN + c + i,
                                     Traits::to_float(static_cast<unsigned short>(packed[i / 2] & 0xffffu)));
                    checkpoint_float(p, Checkpoints<D>::kP, local_row * Checkpoints<D>::kBlockN + c + i + 1,
                                     Traits::to_float(static_cast<unsigned short>(packed[i / 2] >> 16)));
                }
                tile_sum += p0 + p1;
            }
#if FMHA_P_SMEM
            // Row local_row of the A operand, K-major SW128: keys c..c+31 are four 16-B chunks.
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const uint4 chunk = make_uint4(packed[4 * q], packed[4 * q + 1], packed[4 * q + 2], packed[4 * q + 3]);
                *reinterpret_cast<uint4*>(smem + P::kPOff + sw128::offset(local_row, c + 8 * q, kBlockM)) = chunk;
            }
#else
            tc5::st<tc5::Shape::k32x32b, 16>(tmem + lanes + P::kColP + c / 2, packed);
#endif
        }
        row_sum = row_sum * rescale + tile_sum;
#if FMHA_P_SMEM
        tma::fence_proxy_async_shared();
#else
        tc5::wait_st();
#endif
        tc5::fence_before_thread_sync();
        mbar::arrive(bar.p_full);
    }

    // Epilogue: O / row_sum to GMEM, LSE. A CTA that saw no key writes zeros without reading TMEM.
    if (t.n_tiles > 0) {
        mbar::wait_parity(bar.o_ready, (t.n_tiles - 1) & 1);
        tc5::fence_after_thread_sync();
    }
#if FMHA_TOPK
    // Top-k: row local_row is query head t.h + local_row; a padding row (never written) reads the
    // sink of the CTA's last head rather than past the array.
    const int head = topk ? t.h + min(local_row, t.rows - 1) : t.h;
#else
    const int head = t.h;
#endif
    unsigned short* o = static_cast<unsigned short*>(p.o) + t.b * p.o_batch_stride + head * p.o_head_stride +
                        static_cast<long long>(row) * p.o_seq_stride + t.d0;
#if FMHA_SINK
    float inv = row_sum > 0.f ? 1.f / row_sum : 0.f;
    float lse2 = row_sum > 0.f ? row_max + log2f(row_sum) : -FMHA_INF;  // log2 units
    if (p.sinks != nullptr) {
        // The sink joins the normaliser only: O = acc / (row_sum + 2^(sink - row_max)), both sides
        // scaled by 2^-m, m = max(row_max, sink), so neither term overflows. A row with no key
        // gets O = 0 and LSE = sink; a sink of -inf changes nothing.
        const float sink2 = p.sinks[head] * 1.4426950408889634f;
        const float m = fmaxf(row_max, sink2);
        if (m != -FMHA_INF) {
            const float key_scale = row_sum > 0.f ? exp2f(row_max - m) : 0.f;
            const float denom = row_sum * key_scale + exp2f(sink2 - m);
            inv = key_scale / denom;
            lse2 = m + log2f(denom);
        }
    }
#else
    const float inv = row_sum > 0.f ? 1.f / row_sum : 0.f;
#endif
    for (int c = 0; c < P::kDPart; c += 32) {
        tc5::u32 acc[32];
        if (t.n_tiles > 0) {
            tc5::ld<tc5::Shape::k32x32b, 32>(tmem + lanes + P::kColO + c, acc);
            tc5::wait_ld();
        } else {
#pragma unroll
            for (int i = 0; i < 32; ++i) acc[i] = 0u;
        }
        if (FMHA_CHECKPOINTS && checkpointing<D>(p))
            for (int i = 0; i < 32; ++i)
                checkpoint_float(p, Checkpoints<D>::kO, local_row * D + c + i, __uint_as_float(acc[i]));
        if (row_valid) {
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                if (t.d0 + c + 8 * q >= p.head_dim) continue;  // padding columns of a smaller head dim
                uint4 chunk;
                chunk.x = pack2<Traits>(__uint_as_float(acc[8 * q + 0]) * inv, __uint_as_float(acc[8 * q + 1]) * inv);
                chunk.y = pack2<Traits>(__uint_as_float(acc[8 * q + 2]) * inv, __uint_as_float(acc[8 * q + 3]) * inv);
                chunk.z = pack2<Traits>(__uint_as_float(acc[8 * q + 4]) * inv, __uint_as_float(acc[8 * q + 5]) * inv);
                chunk.w = pack2<Traits>(__uint_as_float(acc[8 * q + 6]) * inv, __uint_as_float(acc[8 * q + 7]) * inv);
                *reinterpret_cast<uint4*>(o + c + 8 * q) = chunk;
            }
        }
    }
    if (row_valid && p.lse != nullptr && t.d0 == 0) {  // both passes over D know the LSE; one writes it
        p.lse[(static_cast<fmha_i64>(t.b) * p.heads + head) * p.seq_q + row] =
#if FMHA_SINK
            lse2 * 0.69314718055994531f;
#else
            row_sum > 0.f ? (row_max + log2f(row_sum)) * 0.69314718055994531f : -FMHA_INF;
#endif
    }
}

// ---- the kernel -------------------------------------------------------------------------------

template <int D, class Traits, tc5::Fmt F>
__device__ __forceinline__ void attention(const FmhaParams& p, const FmhaTmaMaps& maps) {
    using P = Plan<D>;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // The swizzle follows absolute shared addresses: start every tile on a 1024-B boundary.
    const unsigned raw = tc5::smem_addr(smem_raw);
    unsigned char* smem = smem_raw + ((1024 - (raw & 1023)) & 1023);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + P::kBarOff);
    Barriers bar{bars, bars + 1, bars + 2, bars + 3, bars + 4, bars + 4 + FMHA_STAGES};
    tc5::u32* tmem_slot = reinterpret_cast<tc5::u32*>(smem + P::kTmemSlotOff);
    const Tile t = locate<D>(p);

    if (warp == kMmaWarp) {
        tc5::alloc(tmem_slot, P::kColsAlloc);
        tc5::relinquish_alloc_permit();
    }
    if (threadIdx.x == 0) {
        mbar::init(bar.q_full, 1);
        mbar::init(bar.s_full, 1);
        mbar::init(bar.p_full, 4 * 32);
        mbar::init(bar.o_ready, 1);
        for (int s = 0; s < FMHA_STAGES; ++s) {
            mbar::init(&bar.kv_full[s], 1);
            mbar::init(&bar.kv_empty[s], 1);
        }
        mbar::fence_init();
    }
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
    const tc5::u32 tmem = *tmem_slot;

    if (warp < 4) {
        softmax_warps<D, Traits>(p, t, smem, tmem, bar, warp, lane);
    } else if (warp == kMmaWarp) {
        mma_warp<D, F>(p, t, smem, tmem, bar, lane);
    } else {
        load_warp<D>(p, maps, t, smem, bar, lane);
    }

    tc5::fence_before_thread_sync();
    __syncthreads();
    if (warp == kMmaWarp) {
        tc5::fence_after_thread_sync();
        tc5::dealloc(tmem, P::kColsAlloc);
    }
}

}  // namespace fmha_sm100

#define FMHA_SM100_ENTRY(D, NAME, TRAITS, FMT)                                                              \
    /* min blocks = the plan's CTAs/SM: registers must not undo the residency the plan decided */          \
    extern "C" __global__ void __launch_bounds__(fmha_sm100::kThreads, fmha_sm100::Plan<D>::kCtasPerSm)     \
        NAME(const FmhaParams p, const __grid_constant__ FmhaTmaMaps maps) {                                \
        fmha_sm100::attention<D, TRAITS, FMT>(p, maps);                                                     \
    }
