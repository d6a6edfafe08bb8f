// The native SM90 (Hopper) FMHA forward kernel: TMA + wgmma, warp-specialized.
//
// One CTA = 128 query rows of one (batch, head); 3 warpgroups (384 threads; FMHA_CONSUMERS=3: 192
// rows, a third consumer WG for rows 128-191, 512 threads):
//   WG0  producer: gives registers back (setmaxnreg.dec), one thread issues the TMA loads:
//        Q once, then K and V tiles into a ring of FMHA_STAGES stages (full/empty mbarriers).
//   WG1  consumer for query rows 0-63 of the tile, WG2 for rows 64-127 (setmaxnreg.inc):
//        S = Q K^T as SS wgmma (both operands from 128B-swizzled SMEM), online softmax in
//        registers, P converted in place to 16-bit A fragments, O += P V as RS wgmma.
//        Epilogue: O / l into the WG's half of the Q tile (swizzled), one TMA store per 64
//        columns; LSE straight from registers.
//
// Compile-time switches, one per feature (kernels/family.toml names the variants):
//   FMHA_STAGES    K/V ring depth (>= 2); FMHA_STAGES_D64 / _D128 / _D256 override it per head dim
//   FMHA_OVERLAP   1: the next tile's QK^T is issued before this tile's softmax finishes and PV
//                  runs while the softmax of the next tile does (intra-warpgroup overlap)
//   FMHA_PINGPONG  1: the two consumer WGs take turns issuing GEMMs, ordered by named barriers,
//                  so one WG's softmax runs under the other's GEMMs (needs FMHA_OVERLAP)
//   FMHA_RESCALE_THRESHOLD  log2 units: O and l are rescaled only when a row max grows by more
//                  than this; otherwise the stale max stays the reference (P <= 2^threshold)
//   FMHA_BN_D64 / FMHA_BN_D128 / FMHA_BN_D256   KV tile (wgmma N of QK^T) per head dim
//   FMHA_CONSUMERS 2 or 3 consumer WGs of 64 rows each; 3 (hd64 only, no ping-pong): FA3's 192-row
//                  hd64 tile. Each K/V tile is read by 1.5x the rows, and with three WGs in flight
//                  one's softmax runs under the others' GEMMs without ping-pong's turn barriers; the
//                  register file then gives a consumer 160 (hd64's O, S and P fit, hd128's do not)
//   FMHA_PERSISTENT 1: one CTA per SM; its producer claims tiles from a global counter (dynamic,
//                  so a CTA that drew light causal tiles takes more) and loads the next tile's K and
//                  Q while the consumers finish this one, so the per-tile prologue (launch, Q and
//                  first K latency) leaves the critical path. The tile index reaches the consumers
//                  through an SMEM slot published with q_full. Where SMEM allows (D <= 128) O gets
//                  its own buffer and Q is released after the last QK^T; at D = 256 O reuses the
//                  Q tile and Q is released once the O store has read it.
// Attention features (docs/features.md), one switch each; at 0 their code is compiled out, and at
// 1 the runtime fields' defaults (window -1/-1, sinks null, kv_shared 0) leave a launch as it was:
//   FMHA_WINDOW    window_left/right: KV tiles wholly outside the sliding window of the CTA's rows
//                  are neither loaded nor multiplied (both ends); a tile that crosses a row's window
//                  edge is masked per key in the softmax
//   FMHA_SINK      sinks: a per-head fp32 logit joins the final normaliser and the LSE only
//   FMHA_KV_SHARED kv_shared: V is K's buffer, so the producer issues no V loads and PV reads its B
//                  operand from the K stage (a K-major SW128 K tile holds the bytes of the MN-major
//                  V tile of the same keys); the idle V buffers become K stages: a ring of twice the
//                  stages (KvSlot), each going back once PV, its last reader, is done
//   FMHA_KEY_RANGES key_ranges: each batch row sees only its keys [start, end) (a padded batch in
//                  one launch); tiles_for reads the CTA's pair once and narrows the KV tiles to it,
//                  like the window, and a tile crossing start or end is masked per key. Causal
//                  stays aligned to the full tensors (offset seq_k - seq_q), so a padded row's
//                  queries keep their positions; rows left with no key take the no-key path
#pragma once

#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/mbarrier.cuh"
#include "common/sm90_tma.cuh"
#include "common/sw128.cuh"
#include "common/tma.cuh"
#include "common/wgmma.cuh"
#include "sm90/fmha_sm90_plan.h"  // generated: head dims, FMHA_BN_D* / FMHA_STAGES* defaults, SMEM carving

#ifndef FMHA_OVERLAP
#define FMHA_OVERLAP 0
#endif
#ifndef FMHA_PINGPONG
#define FMHA_PINGPONG 0
#endif
#ifndef FMHA_RESCALE_THRESHOLD
#define FMHA_RESCALE_THRESHOLD 8
#endif
#ifndef FMHA_PERSISTENT
#define FMHA_PERSISTENT 0
#endif
#ifndef FMHA_WINDOW
#define FMHA_WINDOW 0
#endif
#ifndef FMHA_SINK
#define FMHA_SINK 0
#endif
#ifndef FMHA_KV_SHARED
#define FMHA_KV_SHARED 0
#endif
#ifndef FMHA_KEY_RANGES
#define FMHA_KEY_RANGES 0
#endif
#if FMHA_PINGPONG && !FMHA_OVERLAP
#error "FMHA_PINGPONG needs FMHA_OVERLAP"
#endif
#if FMHA_PINGPONG && FMHA_CONSUMERS != 2
#error "FMHA_PINGPONG alternates two consumer warpgroups: it needs FMHA_CONSUMERS 2"
#endif

struct Sm90TmaMaps {
    TmaMap q, k, v, o;
};

namespace fmha_sm90 {

constexpr int kBlockM = fmha_sm90_plan::kBlockM;
constexpr int kThreads = fmha_sm90_plan::kThreads;
constexpr int kConsumers = fmha_sm90_plan::kConsumers;
constexpr int kConsumerThreads = 128 * kConsumers;
// The setmaxnreg split comes from the plan (fmhactl/plans/sm90.py REGISTER_SPLIT): 2 consumers
// 24/240 (64512 of 65536); persistent 32/232, as the producer also claims and decodes tiles and
// spilled in 24; 3 consumers 32/160, the whole register file.
#ifndef FMHA_PRODUCER_REGS
#define FMHA_PRODUCER_REGS (fmha_sm90_plan::Geometry<FMHA_CONSUMERS>::kProducerRegs[FMHA_PERSISTENT ? 1 : 0])
#endif
#ifndef FMHA_CONSUMER_REGS
#define FMHA_CONSUMER_REGS (fmha_sm90_plan::Geometry<FMHA_CONSUMERS>::kConsumerRegs[FMHA_PERSISTENT ? 1 : 0])
#endif
constexpr int kProducerRegs = FMHA_PRODUCER_REGS;
constexpr int kConsumerRegs = FMHA_CONSUMER_REGS;
static_assert(128 * kProducerRegs + kConsumerThreads * kConsumerRegs <= fmha_sm90_plan::kRegistersPerSm,
              "register split exceeds the register file");
constexpr int kEmptyArrivals = 4 * kConsumers;  // lane 0 of each consumer warp
constexpr float kRescaleThreshold = static_cast<float>(FMHA_RESCALE_THRESHOLD);
// Named barrier ids: 1, 2 = "consumer WG c may issue its GEMMs" (ping-pong); 3 + c = consumer WG c's
// epilogue (3..5 with 3 consumers: one id per WG, as each syncs only its own 128 threads).
constexpr int kBarSchedBase = 1;
constexpr int kBarEpilogueBase = 3;

// The tile plan of head dim D under this build's switches. Its numbers (KV tile, stages, SMEM
// carving) are declared once in fmhactl/plans/sm90.py and reach the kernel through the generated
// fmha_sm90_plan.h (`python -m fmhactl.plans --write`).
template <int D>
struct Plan : fmha_sm90_plan::Entry<D, fmha_sm90_plan::Switches<D>::kBlockN, fmha_sm90_plan::Switches<D>::kStages,
                                    FMHA_PERSISTENT ? 1 : 0, kConsumers> {
    using Base = fmha_sm90_plan::Entry<D, fmha_sm90_plan::Switches<D>::kBlockN,
                                       fmha_sm90_plan::Switches<D>::kStages, FMHA_PERSISTENT ? 1 : 0, kConsumers>;
    static_assert(Base::kDeclared,
                  "head dim, KV tile (FMHA_BN_D*), stages or consumers (FMHA_CONSUMERS) outside the plan of "
                  "fmhactl/plans/sm90.py");
    static constexpr int kBlockN = fmha_sm90_plan::Switches<D>::kBlockN;
    static constexpr int kStages = fmha_sm90_plan::Switches<D>::kStages;
    // q_empty: lane 0 of every consumer warp after its last QK^T (separate O), or the storing
    // thread of each consumer WG once the O store no longer reads the Q tile.
    static constexpr unsigned kQEmptyArrivals = Base::kSeparateO ? kEmptyArrivals : kConsumers;
    static constexpr int kSRegs = kBlockN / 2;  // S accumulator per thread
    static constexpr int kORegs = D / 2;        // O accumulator per thread
    static constexpr int kPRegs = kBlockN / 16; // P A-fragments (4 x 32-bit each) per thread
};

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <bool F16>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
    unsigned r;
    if (F16) {
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    } else {
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    }
    return r;
}

struct Barriers {
    unsigned long long* q_full;
    unsigned long long* q_empty;
    unsigned long long* k_full;
    unsigned long long* v_full;
    unsigned long long* k_empty;
    unsigned long long* v_empty;
};

template <int D>
__device__ __forceinline__ Barriers barriers_at(unsigned char* smem) {
    auto* base = reinterpret_cast<unsigned long long*>(smem + Plan<D>::kBarOff);
    constexpr int S = Plan<D>::kStages;
    constexpr int Q = Plan<D>::kQStages;
    return {base, base + Q, base + 2 * Q, base + 2 * Q + S, base + 2 * Q + 2 * S, base + 2 * Q + 3 * S};
}

// Per-thread softmax state for its two rows (r and r + 8 of its warp's 16).
struct RowState {
    float m[2];  // reference max, already in scaled log2 units; -inf until a key was seen
    float l[2];  // this thread's partial row sums (the quad is reduced once, in the epilogue)
};

// Which query rows / keys a CTA covers and which KV tiles need masking.
struct Tiles {
    int n_blocks;      // KV tiles this CTA visits (tiles first + n_blocks-1 down to first)
    int offset;        // seq_k - seq_q: bottom-right causal alignment
    int first;         // first KV tile visited (> 0 only where a sliding window skips the ones left of it)
#if FMHA_KEY_RANGES
    int key_lo, key_hi;  // the batch row's keys [key_lo, key_hi): [0, seq_k) without key_ranges
#endif
};

// The keys [lo, hi] one query row sees under the sliding window (bottom-right aligned like causal),
// clamped to [-1, seq_k]; an unbounded side gives -1 or seq_k. 32-bit without overflow for windows
// up to 2^31-1: each side compares before it adds.
struct KeyRange {
    int lo, hi;
};

// The host folds causal into window_right = 0; that alone is plain causal, which the causal code
// below already handles, so a causal launch without a left bound stays on exactly that code.
__device__ __forceinline__ bool windowed(const FmhaParams& p) {
    return FMHA_WINDOW && (p.window_left >= 0 || (p.window_right >= 0 && !(p.causal && p.window_right == 0)));
}

__device__ __forceinline__ bool kv_shared(const FmhaParams& p) { return FMHA_KV_SHARED && p.kv_shared != 0; }

__device__ __forceinline__ KeyRange window_of_row(const FmhaParams& p, int row) {
    const int diagonal = row + p.seq_k - p.seq_q;
    KeyRange r;
    r.lo = (p.window_left < 0 || p.window_left > diagonal) ? -1 : min(p.seq_k, diagonal - p.window_left);
    r.hi = (p.window_right < 0 || p.window_right >= p.seq_k - diagonal) ? p.seq_k : max(-1, diagonal + p.window_right);
    return r;
}

// One past the last key query row `row` sees (0: none) under causal (bottom-right aligned) and the
// sliding window's right edge, before a key range narrows it. One rule for the CTA's tile range
// (tiles_for, its last row) and a WG's masked leading tiles (masked_lead_blocks).
__device__ __forceinline__ int keys_end_seen(const FmhaParams& p, int row, int offset) {
    int end = p.seq_k;
    if (p.causal) end = min(end, row + offset + 1);
#if FMHA_WINDOW
    if (windowed(p)) end = min(end, window_of_row(p, row).hi + 1);
#endif
    return end;
}

// The first key query row `row` sees under the sliding window's left edge (0 without one), before a
// key range narrows it. One rule for the CTA's tile range (tiles_for, its first row) and a WG's
// masked trailing tiles (masked_trail_blocks).
__device__ __forceinline__ int keys_begin_seen(const FmhaParams& p, int row) {
#if FMHA_WINDOW
    if (windowed(p)) return max(0, window_of_row(p, row).lo);
#endif
    return 0;
}

struct TileCoord {
    int first_row;  // the tile's first query row: negative (a multiple of 64) for a causal first tile
    int head, batch;
};

// The 192-row tile (3 consumer WGs) ends causal tiles at seq_q and skips fully masked KV tiles per
// WG (TileScheduler, masked_lead_blocks): S1k hd64 causal 0.87 -> 0.98 of cuDNN. On 128-row tiles
// the two barely apply (one spare WG at most) and cost 1-2% per tile start (b32 S512 hd128 against
// main's kernel in one call), so those keep their tiles from row 0.
constexpr bool kCausalEndAligned = kConsumers > 2;

// Where a tile's Q box starts: row 0 for a tile starting before it. A TMA store whose box starts
// at a negative row is an illegal instruction, while a load there zero-fills the rows before 0
// (H200, scripts/device/tma_negative_probe.cu, session 19): whole-WG shifts keep every WG's O store
// at row >= 0. The Q box from row 0 dates from the first fix (a load from first_row would be legal);
// the WGs read and stage their rows min(first_row, 0) rows up in the Q and O tiles (WG row offsets
// stay multiples of 64).
__device__ __forceinline__ int q_box_row(const TileCoord& c) { return max(c.first_row, 0); }

// Which output tiles this CTA computes. Non-persistent: the one its block index names. Persistent:
// tile blockIdx.x first, then whatever the producer claims next from p.tile_counter; tiles are
// numbered so that claiming them in order is a good schedule:
//   non-causal: (batch, head) major, query tile fastest: the CTAs running at one time share the
//     K/V of few heads, so it stays in L2 (numbering query tiles across all heads first streamed
//     the K/V of 132 heads at once and ran at 0.6x);
//   causal: heads in groups whose K/V fits the L2 budget; inside a group the heaviest query tile
//     of every head first, then the next lighter one (longest-processing-time first), so the
//     light tiles fill the tail. A static stride here gave some CTAs twice the work of others
//     (0.71x cuDNN at S1k hd64).
// The last CTA to stop claiming puts the counter back to zero for the next launch on the stream.
// kCausalEndAligned: causal tiles end at seq_q, to within 63 rows (first_row). Where seq_q is no
// multiple of the tile, the spare WGs sit in the first tile, which sees the fewest keys, as whole
// WGs before row 0 that pass (pass_tile). Tiles starting at row 0 put them in the heaviest tile: at
// S1k a 192-row tiling multiplied 32 KV tiles a head of 192 rows where this takes 27, and the last
// tile's spare WGs held an SM for its 8 KV tiles.
struct TileScheduler {
    static constexpr long long kL2KvBudget = 32ll << 20;  // bytes of K/V a causal head group may keep in L2

    static __device__ int m_blocks(const FmhaParams& p) { return (p.seq_q + kBlockM - 1) / kBlockM; }
    static __device__ int total(const FmhaParams& p) { return m_blocks(p) * p.heads * p.batch; }
    static __device__ int first() { return FMHA_PERSISTENT ? static_cast<int>(blockIdx.x) : 0; }
    static __device__ bool valid(const FmhaParams& p, int idx) { return FMHA_PERSISTENT ? idx < total(p) : idx == 0; }
    static __device__ int first_row(const FmhaParams& p, int m_block) {
        constexpr int kWgRows = kBlockM / kConsumers;
        const bool aligned = kCausalEndAligned && p.causal;
        return m_block * kBlockM - (aligned ? (m_blocks(p) * kBlockM - p.seq_q) / kWgRows * kWgRows : 0);
    }

    // Producer thread only. Without a counter (a host that passed none) the walk is a static stride.
    static __device__ int claim_next(const FmhaParams& p, int idx) {
        if (!FMHA_PERSISTENT) return 1;
        if (p.tile_counter == nullptr) return idx + gridDim.x;
        return static_cast<int>(gridDim.x + atomicAdd(&p.tile_counter[0], 1u));
    }

    // Producer thread only, once, after its last claim.
    static __device__ void retire(const FmhaParams& p) {
        if (!FMHA_PERSISTENT || p.tile_counter == nullptr) return;
        __threadfence();  // this CTA's claims are ordered before its retirement
        if (atomicAdd(&p.tile_counter[1], 1u) == gridDim.x - 1) {
            atomicExch(&p.tile_counter[0], 0u);
            atomicExch(&p.tile_counter[1], 0u);
        }
    }

    // Query heads per causal group: as many K/V heads as the budget holds, times the query heads
    // that share each of them (GQA/MQA). 32-bit on purpose: the producer runs in 24 registers.
    template <int D>
    static __device__ int causal_group(const FmhaParams& p, int bh_total) {
        constexpr int kKeysInBudget = static_cast<int>(kL2KvBudget / (4 * D));  // K and V rows, 2 B each
        const int kv_heads = max(1, kKeysInBudget / max(1, p.seq_k));
        return min(bh_total, kv_heads * (p.heads / p.heads_kv));
    }

    template <int D>
    static __device__ TileCoord coord(const FmhaParams& p, int idx) {
        if (!FMHA_PERSISTENT) return {first_row(p, static_cast<int>(gridDim.x - 1 - blockIdx.x)),
                                      static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z)};
        const int n_m = m_blocks(p);
        int m, bh;
        if (!p.causal) {
            bh = idx / n_m;
            m = n_m - 1 - idx % n_m;
        } else {
            const int bh_total = p.heads * p.batch;
            const int group = causal_group<D>(p, bh_total);
            const int g = idx / (group * n_m);
            const int in_group = idx - g * group * n_m;
            const int group_heads = min(group, bh_total - g * group);
            m = n_m - 1 - in_group / group_heads;
            bh = g * group + in_group % group_heads;
        }
        return {first_row(p, m), bh % p.heads, bh / p.heads};
    }
};

// Running positions in the pipelines, carried from tile to tile by a persistent CTA.
struct PipeState {
    int kv = 0;     // K/V ring iterations so far: stage = kv % stages, phase = (kv / stages) & 1
    int q = 0;      // tiles handed to the consumers so far (Q stage and parity: QSlot)
};

template <int D>
__device__ __forceinline__ Tiles tiles_for(const FmhaParams& p, int first_row, int batch) {
    constexpr int BN = Plan<D>::kBlockN;
    Tiles t;
    t.offset = p.seq_k - p.seq_q;
    // The last row's last key ends the tiles, the first row's window left bound starts them.
    int limit = keys_end_seen(p, first_row + kBlockM - 1, t.offset);
    int begin = keys_begin_seen(p, first_row);
#if FMHA_KEY_RANGES
    t.key_lo = 0;
    t.key_hi = p.seq_k;
    if (p.key_ranges != nullptr) {
        // Clamped so a bad pair can only narrow the keys, never read outside K/V.
        t.key_lo = max(0, p.key_ranges[2 * batch]);
        t.key_hi = min(p.seq_k, p.key_ranges[2 * batch + 1]);
        limit = min(limit, t.key_hi);
        begin = max(begin, t.key_lo);
    }
#endif
#if FMHA_WINDOW || FMHA_KEY_RANGES
    if (begin >= limit) limit = 0;  // no row of the tile sees a key
#endif
    t.first = begin / BN;
    t.n_blocks = limit <= 0 ? 0 : (limit + BN - 1) / BN - t.first;
    return t;
}

// The softmax of one S tile, in place: S becomes P (unnormalised, fp32). Returns per-row alpha,
// the factor O and l must be multiplied by (1 where the reference max did not move). kMask: keys
// past each row's last are masked; kLeft: keys before each row's first too (a window or key range
// start inside the tile: tile_mask).
template <int D, bool kMask, bool kLeft = false>
__device__ __forceinline__ void softmax_tile(float (&s)[Plan<D>::kSRegs], RowState& st, float (&alpha)[2],
                                             const FmhaParams& p, int n, int row0, const Tiles& tiles, int lane) {
    const int offset = tiles.offset;
    constexpr int BN = Plan<D>::kBlockN;
    constexpr int R = Plan<D>::kSRegs;
    if (kMask) {
        // The last key each of this thread's two rows sees, counted from the thread's first key
        // column: then each element is one compare against a compile-time column offset.
        const int key_base = n * BN + 2 * (lane % 4);
        int last[2];
        int first[2] = {-1, -1};  // the window's or key range's left edge, likewise (kLeft)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row_last = p.causal ? row0 + 8 * h + offset : p.seq_k - 1;
            last[h] = min(p.seq_k - 1, row_last) - key_base;
#if FMHA_WINDOW
            if (windowed(p)) {
                const KeyRange w = window_of_row(p, row0 + 8 * h);
                last[h] = min(last[h], w.hi - key_base);
                if (kLeft) first[h] = w.lo - key_base;
            }
#endif
#if FMHA_KEY_RANGES
            last[h] = min(last[h], tiles.key_hi - 1 - key_base);
            if (kLeft) first[h] = max(first[h], tiles.key_lo - key_base);
#endif
        }
#pragma unroll
        for (int i = 0; i < R; ++i) {
            const int col = 8 * (i / 4) + (i % 2);
            if (col > last[(i / 2) % 2] || (kLeft && col < first[(i / 2) % 2]))
                s[i] = -FMHA_INF;
        }
    }
    float mx[2] = {-FMHA_INF, -FMHA_INF};
#pragma unroll
    for (int i = 0; i < R; ++i) mx[(i / 2) % 2] = fmaxf(mx[(i / 2) % 2], s[i]);
    float use[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
        mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
        const float scaled = mx[h] * p.scale_log2;
        // Keep the stale reference unless the max grew by more than the threshold: P stays
        // <= 2^threshold and O is left alone (alpha = 1) for most tiles.
        const float ref = scaled > st.m[h] + kRescaleThreshold ? scaled : st.m[h];
        alpha[h] = ref == st.m[h] ? 1.0f : ex2(st.m[h] - ref);  // m = -inf first: alpha = 0
        st.m[h] = ref;
        use[h] = ref == -FMHA_INF ? 0.0f : ref;  // a row with no key yet: exp2(-inf) = 0, not NaN
    }
    float sum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int i = 0; i < R; ++i) {
        const int h = (i / 2) % 2;
        s[i] = ex2(fmaf(s[i], p.scale_log2, -use[h]));
        sum[h] += s[i];
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) st.l[h] = st.l[h] * alpha[h] + sum[h];
}

template <int D>
__device__ __forceinline__ void rescale_o(float (&o)[Plan<D>::kORegs], const float (&alpha)[2]) {
    // Warp-uniform skip: with the threshold most tiles leave every row's reference max alone.
    if (__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f)) {
#pragma unroll
        for (int i = 0; i < Plan<D>::kORegs; ++i) o[i] *= alpha[(i / 2) % 2];
    }
}

template <int D, bool F16>
__device__ __forceinline__ void convert_p(const float (&s)[Plan<D>::kSRegs], unsigned (&pf)[Plan<D>::kPRegs][4]) {
#pragma unroll
    for (int kb = 0; kb < Plan<D>::kPRegs; ++kb) {
#pragma unroll
        for (int j = 0; j < 4; ++j) pf[kb][j] = pack2<F16>(s[8 * kb + 2 * j], s[8 * kb + 2 * j + 1]);
    }
}

template <int D, bool F16>
__device__ __forceinline__ void issue_qk(float (&s)[Plan<D>::kSRegs], const unsigned char* q_tile, int wg_row0,
                                         const unsigned char* k_tile) {
    constexpr int BN = Plan<D>::kBlockN;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        WgmmaSS<BN, F16>::run(s, wg::kmajor_desc(q_tile, wg_row0, kk * 16, kBlockM),
                              wg::kmajor_desc(k_tile, 0, kk * 16, BN), kk > 0);
    }
}

template <int D, bool F16>
__device__ __forceinline__ void issue_pv(float (&o)[Plan<D>::kORegs], const unsigned (&pf)[Plan<D>::kPRegs][4],
                                         const unsigned char* v_tile) {
    constexpr int BN = Plan<D>::kBlockN;
#pragma unroll
    for (int kb = 0; kb < Plan<D>::kPRegs; ++kb) WgmmaRS<D, F16>::run(o, pf[kb], wg::mnmajor_desc(v_tile, kb * 16, BN), 1);
}

// How KV tile n must be masked for this WG's 64 rows: not at all, past each row's last key (the
// causal diagonal, s_k, a window's right edge or key range end crosses the tile), or also before
// each row's first (a window's left edge or key range start does). The third is apart so that
// tiles no left edge crosses skip the left compares. Its own gain was not told from noise: session
// 19, b8 S4k hd64 causal with FMHA_KEY_RANGES alone on, 567-570 us before the split and 567-569
// after, against the plain kernel's 560-562 and 566-567 in the same two calls.
enum TileMask { kNoMask, kMaskRight, kMaskBoth };

template <int D>
__device__ __forceinline__ TileMask tile_mask(const FmhaParams& p, int n, int wg_first_row, const Tiles& tiles) {
    constexpr int BN = Plan<D>::kBlockN;
    const int offset = tiles.offset;
    const int last_key = n * BN + BN - 1;
#if FMHA_KEY_RANGES
    // key_hi <= seq_k: the row's end subsumes the sequence edge.
    bool right = last_key >= tiles.key_hi || (p.causal && last_key > wg_first_row + offset);
    bool left = n * BN < tiles.key_lo;
#else
    bool right = last_key >= p.seq_k || (p.causal && last_key > wg_first_row + offset);
    bool left = false;
#endif
#if FMHA_WINDOW
    // A key right of the WG's first row's window, or left of its last row's.
    if (windowed(p)) {
        right = right || last_key > window_of_row(p, wg_first_row).hi;
        left = left || n * BN < window_of_row(p, wg_first_row + 64 - 1).lo;
    }
#endif
    return left ? kMaskBoth : right ? kMaskRight : kNoMask;
}

// Position `it` of a ring of N buffers: its stage and the parity of that stage's current phase.
template <int N>
struct PipeSlot {
    int stage;
    unsigned phase;
    __device__ explicit PipeSlot(int it) : stage(it % N), phase((it / N) & 1) {}
};

// Position `it` of the K/V ring: its stage, phase, buffers and barriers. K and V apart: kStages
// stages, K and V each in its own buffer with its own full/empty barriers (k_empty once QK^T has
// read K, v_empty once PV has read V). kv_shared: V is K, so the V buffers serve as more K stages:
// a ring of 2 x kStages K-only stages over the K and V buffers (contiguous in the plan), stage s
// with full barrier k_full[s] (v_full's past kStages) and empty barrier k_empty[s] (v_empty's
// likewise), which the consumers arrive on once PV, the stage's last reader, is done. (Reusing
// K's kStages stages alone made each K load wait for the PV one ring turn back: no lead left.)
// kShared is the compile-time fork `attention` makes once (FMHA_KV_SHARED off: never shared).
template <int D, bool kShared>
struct KvSlot {
    static_assert(Plan<D>::kVOff == Plan<D>::kKOff + Plan<D>::kStages * Plan<D>::kKVBytes,
                  "kv_shared's ring spans the K and V buffers: V must follow K");
    static constexpr bool shared = FMHA_KV_SHARED && kShared;
    static constexpr int kRing = shared ? 2 * Plan<D>::kStages : Plan<D>::kStages;
    int stage;
    unsigned phase;
    __device__ explicit KvSlot(int it) : stage(it % kRing), phase((it / kRing) & 1) {}
    template <class Byte>
    __device__ Byte* k_tile(Byte* smem) const { return smem + Plan<D>::kKOff + stage * Plan<D>::kKVBytes; }
    template <class Byte>
    __device__ Byte* v_tile(Byte* smem) const {
        return shared ? k_tile(smem) : smem + Plan<D>::kVOff + stage * Plan<D>::kKVBytes;
    }
    __device__ unsigned long long* k_full(const Barriers& b) const { return b.k_full + stage; }
    __device__ unsigned long long* v_full(const Barriers& b) const { return b.v_full + stage; }  // K and V apart only
    __device__ unsigned long long* k_empty(const Barriers& b) const { return b.k_empty + stage; }
    __device__ unsigned long long* v_empty(const Barriers& b) const { return (shared ? b.k_empty : b.v_empty) + stage; }
};

// The Q buffers, with where a stage's Q tile and tile-index slot live.
template <int D>
struct QSlot : PipeSlot<Plan<D>::kQStages> {
    __device__ explicit QSlot(int q) : PipeSlot<Plan<D>::kQStages>(q) {}
    __device__ unsigned char* tile(unsigned char* smem) const {
        return smem + Plan<D>::kQOff + this->stage * Plan<D>::kQBytes;
    }
    __device__ volatile int* slot(unsigned char* smem) const {
        return reinterpret_cast<volatile int*>(smem + Plan<D>::kTileSlotOff + 8 * this->stage);
    }
};

// The softmax of KV tile n, masked only where the tile crosses s_k (the row's key range), the causal
// diagonal or a window edge.
template <int D>
__device__ __forceinline__ void softmax_step(float (&s)[Plan<D>::kSRegs], RowState& st, float (&alpha)[2],
                                             const FmhaParams& p, int n, int wg_first_row, int row0,
                                             const Tiles& tiles, int lane) {
    const TileMask mask = tile_mask<D>(p, n, wg_first_row, tiles);
    // Only a window's or key range's left edge masks keys before a row's first (kMaskBoth): a build
    // without them instantiates the compare of the right edge alone, on both branches below.
    constexpr bool kLeftEdge = FMHA_WINDOW || FMHA_KEY_RANGES;
    if (mask != kNoMask) {
        if (kLeftEdge && mask == kMaskBoth)
            softmax_tile<D, true, kLeftEdge>(s, st, alpha, p, n, row0, tiles, lane);
        else
            softmax_tile<D, true>(s, st, alpha, p, n, row0, tiles, lane);
    } else {
        softmax_tile<D, false>(s, st, alpha, p, n, row0, tiles, lane);
    }
}

// The V tile PV reads at ring position `v`: its own stage, once loaded; with kv_shared the K tile
// of the same position, which this thread's QK^T already waited for (k_full) and which the
// producer refills only after PV's arrive on the stage's empty barrier.
template <int D, bool kShared>
__device__ __forceinline__ const unsigned char* v_tile_at(const unsigned char* smem, const Barriers& bars,
                                                          const KvSlot<D, kShared>& v) {
    if constexpr (!KvSlot<D, kShared>::shared) mbar::wait_parity(v.v_full(bars), v.phase);
    return v.v_tile(smem);
}

// QK^T has read K at ring position `k`: its stage goes back, unless PV still reads it (kv_shared).
template <int D, bool kShared>
__device__ __forceinline__ void release_k(const Barriers& bars, const KvSlot<D, kShared>& k, int lane) {
    if (!KvSlot<D, kShared>::shared && lane == 0) mbar::arrive(k.k_empty(bars));
}

// O += P V for ring position `it`, waited to completion; then V's stage goes back to the producer.
template <int D, bool F16, bool kShared>
__device__ __forceinline__ void pv_step(float (&o)[Plan<D>::kORegs], const unsigned (&pf)[Plan<D>::kPRegs][4],
                                        const unsigned char* smem, const Barriers& bars, int it, int lane) {
    const KvSlot<D, kShared> v(it);
    const unsigned char* v_tile = v_tile_at<D>(smem, bars, v);
    wg::fence();
    issue_pv<D, F16>(o, pf, v_tile);
    wg::commit();
    wg::wait<0>();
    wg::fence_regs(o);
    if (lane == 0) mbar::arrive(v.v_empty(bars));
}

// The producer hands the next tile to the consumers: once they have released the previous Q (and
// read the previous tile index), the index goes into the SMEM slot and q_full is armed with the Q
// bytes about to be loaded (0: a tile with no key, or the end-of-work sentinel). q_full's arrive
// releases the slot write; the consumers' wait acquires it.
template <int D>
__device__ __forceinline__ void publish_tile(unsigned char* smem, const Barriers& bars, int tile, const PipeState& ps,
                                             unsigned q_bytes) {
    const QSlot<D> q(ps.q);
    mbar::wait_parity(&bars.q_empty[q.stage], q.phase ^ 1);
    if (FMHA_PERSISTENT) *q.slot(smem) = tile;
    if (q_bytes > 0)
        mbar::arrive_expect_tx(&bars.q_full[q.stage], q_bytes);
    else
        mbar::arrive(&bars.q_full[q.stage]);
}

// One tile's loads: K first (its stage may already be free), then Q once the consumers have
// released that Q buffer, then V; then the rest of the ring. KV tiles first + n_blocks - 1 down to
// first. kv_shared: no V loads, over the ring of K-only stages (KvSlot).
template <int D, bool kShared>
__device__ __forceinline__ void producer_tile(const Sm90TmaMaps& maps, unsigned char* smem, const Barriers& bars,
                                              int tile, const TileCoord& c, int kv_head, const Tiles& tiles,
                                              PipeState& ps) {
    using P = Plan<D>;
    constexpr int BN = P::kBlockN;
    const int n_blocks = tiles.n_blocks;
    for (int i = 0; i < n_blocks; ++i) {
        const int n = tiles.first + n_blocks - 1 - i;
        const KvSlot<D, kShared> slot(ps.kv + i);
        const int stage = slot.stage;
        const unsigned phase = slot.phase;
        unsigned char* k_tile = smem + P::kKOff + stage * P::kKVBytes;
        unsigned char* v_tile = smem + P::kVOff + stage * P::kKVBytes;  // unused with kv_shared
        mbar::wait_parity(&bars.k_empty[stage], phase ^ 1);
        mbar::arrive_expect_tx(&bars.k_full[stage], P::kKVBytes);
#pragma unroll
        for (int a = 0; a < D / 64; ++a)
            tma::load_4d(k_tile + a * BN * 128, &maps.k, &bars.k_full[stage], a * 64, n * BN, kv_head, c.batch);
        if (i == 0) {
            publish_tile<D>(smem, bars, tile, ps, P::kQBytes);
            const QSlot<D> q(ps.q);
#pragma unroll
            for (int a = 0; a < D / 64; ++a)
                tma::load_4d(q.tile(smem) + a * kBlockM * 128, &maps.q, &bars.q_full[q.stage], a * 64,
                             q_box_row(c), c.head, c.batch);
        }
        if constexpr (KvSlot<D, kShared>::shared) continue;  // V is K: no second load
        mbar::wait_parity(&bars.v_empty[stage], phase ^ 1);
        mbar::arrive_expect_tx(&bars.v_full[stage], P::kKVBytes);
#pragma unroll
        for (int a = 0; a < D / 64; ++a)
            tma::load_4d(v_tile + a * BN * 128, &maps.v, &bars.v_full[stage], a * 64, n * BN, kv_head, c.batch);
    }
    ps.kv += n_blocks;
    ps.q += 1;
}

template <int D, bool kShared>
__device__ __forceinline__ void producer(const FmhaParams& p, const Sm90TmaMaps& maps, unsigned char* smem,
                                         const Barriers& bars) {
    PipeState ps;
    int tile = TileScheduler::first();
    for (; TileScheduler::valid(p, tile); tile = TileScheduler::claim_next(p, tile)) {
        const TileCoord c = TileScheduler::coord<D>(p, tile);
        const Tiles tiles = tiles_for<D>(p, c.first_row, c.batch);
        if (tiles.n_blocks > 0) {
            producer_tile<D, kShared>(maps, smem, bars, tile, c, c.head / (p.heads / p.heads_kv), tiles, ps);
        } else if (FMHA_PERSISTENT) {  // rows that see no key: the consumers only store zeros
            publish_tile<D>(smem, bars, tile, ps, 0);
            ps.q += 1;
        }
    }
    if (FMHA_PERSISTENT) {
        publish_tile<D>(smem, bars, tile, ps, 0);  // an invalid index: the consumers stop
        TileScheduler::retire(p);
    }
}

// Q is no longer read by this warp's GEMMs (separate O tile: after the last QK^T has completed).
template <int D>
__device__ __forceinline__ void release_q_after_last_qk(const Barriers& bars, const QSlot<D>& q, int lane) {
    if (Plan<D>::kSeparateO && lane == 0) mbar::arrive(&bars.q_empty[q.stage]);
}

// Rows that see no key (causal T > s_k, a window or key range holding none): O = 0 straight to
// global memory. Nothing goes through SMEM, so a persistent CTA never writes the Q tile while the
// producer may be loading the next Q.
template <int D>
__device__ __forceinline__ void store_zero_rows(const FmhaParams& p, const TileCoord& c, int wg_first_row, int t) {
    auto* o = static_cast<unsigned short*>(p.o);
    for (int e = t; e < 64 * D; e += 128) {
        const int row = wg_first_row + e / D;
        if (row >= 0 && row < p.seq_q)
            o[c.batch * p.o_batch_stride + static_cast<fmha_i64>(row) * p.o_seq_stride + c.head * p.o_head_stride + e % D] = 0;
    }
}

// KV tiles a WG does not multiply keep their protocol: per KV tile the WG waits for the loads and
// arrives on the empty barriers (its arrivals complete each stage's phase; an arrival before the
// load would count toward the stage's previous fill) and takes its ping-pong turn.
template <int D, bool kShared>
__device__ __forceinline__ void pass_blocks(const Barriers& bars, int cw, int n_blocks, int kv0, int lane) {
    for (int i = 0; i < n_blocks; ++i) {
        const KvSlot<D, kShared> kv(kv0 + i);
        mbar::wait_parity(kv.k_full(bars), kv.phase);
        if (FMHA_PINGPONG) {
            wg::bar_sync(kBarSchedBase + cw, kConsumerThreads);
            wg::bar_arrive(kBarSchedBase + (1 - cw), kConsumerThreads);
        }
        release_k(bars, kv, lane);
        if (!KvSlot<D, kShared>::shared) mbar::wait_parity(kv.v_full(bars), kv.phase);
        if (lane == 0) mbar::arrive(kv.v_empty(bars));
    }
}

// A WG whose rows all lie outside [0, seq_q) (a partial tile's spare WGs: S1k in 192-row tiles
// leaves 64 rows to one tile, the last, or for causal calls the first) computes nothing: it passes
// every KV tile and releases Q as the computing path does. It stores nothing: its rows are not in
// O or LSE.
template <int D, bool kShared>
__device__ __forceinline__ void pass_tile(const Barriers& bars, int cw, int n_blocks, int kv0, const QSlot<D>& qs,
                                          int t) {
    const int lane = t % 32;
    pass_blocks<D, kShared>(bars, cw, n_blocks, kv0, lane);
    if (Plan<D>::kSeparateO ? lane == 0 : t == 0) mbar::arrive(&bars.q_empty[qs.stage]);
}

// How many of the tile's leading KV tiles (the highest keys, visited first) hold no key that any
// of this WG's 64 rows sees: the tile's KV range is set by its last row, so on a causal diagonal a
// 192-row tile's upper WGs would multiply up to two fully masked KV tiles (7 of 79 WG-tiles a head
// at S1k). At most n_blocks - 1: rows with no key at all still take the computing path's no-key
// result (O = 0, LSE = -inf).
template <int D>
__device__ __forceinline__ int masked_lead_blocks(const FmhaParams& p, const Tiles& tiles, int wg_first_row) {
    constexpr int BN = Plan<D>::kBlockN;
    int last_key = keys_end_seen(p, wg_first_row + 63, tiles.offset) - 1;
#if FMHA_KEY_RANGES
    last_key = min(last_key, tiles.key_hi - 1);
#endif
    const int last_tile_seen = last_key < 0 ? -1 : last_key / BN;
    return max(0, min(tiles.n_blocks - 1, tiles.first + tiles.n_blocks - 1 - last_tile_seen));
}

// How many of the tile's trailing KV tiles (the lowest keys, visited last) hold no key that any of
// this WG's rows sees: the tile's range starts at its first row's window left edge, so under a
// sliding window a 192-row tile's lower WGs would multiply KV tiles wholly left of their own rows'
// windows. At most n_blocks - 1 - lead: one KV tile is always kept.
template <int D>
__device__ __forceinline__ int masked_trail_blocks(const FmhaParams& p, const Tiles& tiles, int wg_first_row, int lead) {
#if FMHA_WINDOW
    if (windowed(p)) {
        constexpr int BN = Plan<D>::kBlockN;
        const int first_tile_seen = keys_begin_seen(p, wg_first_row) / BN;
        return max(0, min(tiles.n_blocks - 1 - lead, first_tile_seen - tiles.first));
    }
#endif
    return 0;
}

template <int D, bool F16, bool kShared>
__device__ __forceinline__ void consumer_tile(const FmhaParams& p, const Sm90TmaMaps& maps, unsigned char* smem,
                                              const Barriers& bars, int cw, const TileCoord& c, const Tiles& tiles,
                                              PipeState& ps) {
    using P = Plan<D>;
    const int t = threadIdx.x - 128 * (cw + 1);
    const int warp = t / 32;
    const int lane = t % 32;
    const int wg_first_row = c.first_row + cw * 64;
    // this WG's first row in the Q and O tiles
    const int wg_row0 = kCausalEndAligned ? wg_first_row - q_box_row(c) : cw * 64;
    const int row0 = wg_first_row + warp * 16 + lane / 4;  // this thread's rows: row0, row0 + 8
    const QSlot<D> qs(ps.q);
    const unsigned char* q_tile = qs.tile(smem);

    float o[P::kORegs];
#pragma unroll
    for (int i = 0; i < P::kORegs; ++i) o[i] = 0.0f;
    RowState st = {{-FMHA_INF, -FMHA_INF}, {0.0f, 0.0f}};
    const int skipped = kCausalEndAligned ? masked_lead_blocks<D>(p, tiles, wg_first_row) : 0;
    const int trailing = kCausalEndAligned ? masked_trail_blocks<D>(p, tiles, wg_first_row, skipped) : 0;
    pass_blocks<D, kShared>(bars, cw, skipped, ps.kv, lane);
    const int n_blocks = tiles.n_blocks - skipped - trailing;  // this WG's KV tiles: first .. first + n_blocks - 1
    const int first = tiles.first + trailing;
    const int kv0 = ps.kv + skipped;

    if (n_blocks > 0) {
        if (!FMHA_PERSISTENT) mbar::wait_parity(&bars.q_full[qs.stage], qs.phase);  // persistent: consumer() waited
        float s[P::kSRegs];
        unsigned pf[P::kPRegs][4];
        float alpha[2];
#if FMHA_OVERLAP
        // First KV tile: S, softmax, P; its PV is issued together with the next KV tile's QK^T.
        {
            const KvSlot<D, kShared> k(kv0);
            mbar::wait_parity(k.k_full(bars), k.phase);
            if (FMHA_PINGPONG) wg::bar_sync(kBarSchedBase + cw, kConsumerThreads);
            wg::fence();
            issue_qk<D, F16>(s, q_tile, wg_row0, k.k_tile(smem));
            wg::commit();
            if (FMHA_PINGPONG) wg::bar_arrive(kBarSchedBase + (1 - cw), kConsumerThreads);
            wg::wait<0>();
            wg::fence_regs(s);
            release_k(bars, k, lane);
            if (n_blocks == 1) release_q_after_last_qk<D>(bars, qs, lane);
            softmax_step<D>(s, st, alpha, p, first + n_blocks - 1, wg_first_row, row0, tiles, lane);
            convert_p<D, F16>(s, pf);
        }
        for (int i = 1; i < n_blocks; ++i) {
            const KvSlot<D, kShared> k(kv0 + i);
            const KvSlot<D, kShared> v(kv0 + i - 1);  // PV of the previous tile runs under this softmax
            mbar::wait_parity(k.k_full(bars), k.phase);
            if (FMHA_PINGPONG) wg::bar_sync(kBarSchedBase + cw, kConsumerThreads);
            wg::fence();
            issue_qk<D, F16>(s, q_tile, wg_row0, k.k_tile(smem));
            wg::commit();
            issue_pv<D, F16>(o, pf, v_tile_at(smem, bars, v));
            wg::commit();
            if (FMHA_PINGPONG) wg::bar_arrive(kBarSchedBase + (1 - cw), kConsumerThreads);
            wg::wait<1>();
            wg::fence_regs(s);
            release_k(bars, k, lane);
            if (i == n_blocks - 1) release_q_after_last_qk<D>(bars, qs, lane);
            softmax_step<D>(s, st, alpha, p, first + n_blocks - 1 - i, wg_first_row, row0, tiles, lane);
            wg::wait<0>();
            wg::fence_regs(o);
            wg::fence_regs(pf[0]);
            if (lane == 0) mbar::arrive(v.v_empty(bars));
            rescale_o<D>(o, alpha);
            convert_p<D, F16>(s, pf);
        }
        pv_step<D, F16, kShared>(o, pf, smem, bars, kv0 + n_blocks - 1, lane);
#else
        for (int i = 0; i < n_blocks; ++i) {
            const KvSlot<D, kShared> k(kv0 + i);
            mbar::wait_parity(k.k_full(bars), k.phase);
            wg::fence();
            issue_qk<D, F16>(s, q_tile, wg_row0, k.k_tile(smem));
            wg::commit();
            wg::wait<0>();
            wg::fence_regs(s);
            release_k(bars, k, lane);
            if (i == n_blocks - 1) release_q_after_last_qk<D>(bars, qs, lane);
            softmax_step<D>(s, st, alpha, p, first + n_blocks - 1 - i, wg_first_row, row0, tiles, lane);
            rescale_o<D>(o, alpha);
            convert_p<D, F16>(s, pf);
            pv_step<D, F16, kShared>(o, pf, smem, bars, kv0 + i, lane);
        }
#endif
        pass_blocks<D, kShared>(bars, cw, trailing, kv0 + n_blocks, lane);
        ps.kv += skipped + n_blocks + trailing;
    }

    // Epilogue: finish the row sums across the quad, normalise, LSE, O through SMEM and TMA.
    float inv[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float l = st.l[h];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        inv[h] = l > 0.0f ? 1.0f / l : 0.0f;
        const int row = row0 + 8 * h;
#if FMHA_SINK
        float lse2 = l > 0.0f ? st.m[h] + __log2f(l) : -FMHA_INF;  // log2 units
        if (p.sinks != nullptr) {
            // The sink joins the normaliser only: O = acc / (l + 2^(sink - m_ref)), both terms
            // scaled by 2^-M, M = max(m_ref, sink), so neither overflows. A row with no key gets
            // O = 0 and LSE = sink; a sink of -inf changes nothing.
            const float sink2 = p.sinks[c.head] * 1.4426950408889634f;
            const float m_ref = l > 0.0f ? st.m[h] : -FMHA_INF;
            const float m = fmaxf(m_ref, sink2);
            if (m != -FMHA_INF) {
                const float key_scale = l > 0.0f ? exp2f(m_ref - m) : 0.0f;
                const float denom = l * key_scale + exp2f(sink2 - m);
                inv[h] = key_scale / denom;
                lse2 = m + __log2f(denom);
            }
        }
        if (p.lse != nullptr && lane % 4 == 0 && row >= 0 && row < p.seq_q)
            p.lse[(static_cast<fmha_i64>(c.batch) * p.heads + c.head) * p.seq_q + row] = lse2 * 0.6931471805599453f;
#else
        if (p.lse != nullptr && lane % 4 == 0 && row >= 0 && row < p.seq_q) {
            constexpr float kLn2 = 0.6931471805599453f;
            const float lse = l > 0.0f ? (st.m[h] + __log2f(l)) * kLn2 : -FMHA_INF;
            p.lse[(static_cast<fmha_i64>(c.batch) * p.heads + c.head) * p.seq_q + row] = lse;
        }
#endif
    }
    if (n_blocks == 0) {
        store_zero_rows<D>(p, c, wg_first_row, t);
        if (FMHA_PERSISTENT) {  // Q unused; the tile index was read (by lane 0 of each warp)
            if (!P::kSeparateO) wg::bar_sync(kBarEpilogueBase + cw, 128);  // order the WG's reads before t 0's arrive
            if (P::kSeparateO ? lane == 0 : t == 0) mbar::arrive(&bars.q_empty[qs.stage]);
        }
        return;
    }
    // O tile: its own buffer, or this WG's half of the Q tile (its QK^T is done). A persistent CTA
    // first waits for the storing thread, whose previous store must have finished reading it.
    unsigned char* o_tile = smem + P::kOOff;
    if (FMHA_PERSISTENT) {
        // The storing thread waits for its previous store to have read O only now, not right
        // after issuing it: waiting there held warp 0, and with it the WG's next wgmma.
        if (t == 0) tma::store_wait_read();
        wg::bar_sync(kBarEpilogueBase + cw, 128);
    }
    int tile_row = wg_row0 + warp * 16 + lane / 4;
    if constexpr (kConsumers > 2) {
        // At 160 registers ptxas kept this thread's O-tile offset from the tile loop's prologue
        // through the main loop and spilled it; an opaque re-read of the thread index rebuilds it
        // here, after the main loop (an S2R and a few integer ops per tile).
        unsigned tid;
        asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
        tile_row = wg_row0 + (tid % 128) / 32 * 16 + (tid % 32) / 4;
    }
#pragma unroll
    for (int i = 0; i < P::kORegs; i += 2) {
        const int h = (i / 2) % 2;
        const int col = 8 * (i / 4) + 2 * (lane % 4);
        const unsigned packed = pack2<F16>(o[i] * inv[h], o[i + 1] * inv[h]);
        *reinterpret_cast<unsigned*>(o_tile + sw128::offset(tile_row + 8 * h, col, kBlockM)) = packed;
    }
    tma::fence_proxy_async_shared();
    wg::bar_sync(kBarEpilogueBase + cw, 128);
    if (t == 0 && wg_first_row < p.seq_q) {
#pragma unroll
        for (int a = 0; a < D / 64; ++a)
            tma::store_4d(&maps.o, o_tile + a * kBlockM * 128 + wg_row0 * 128, a * 64, wg_first_row, c.head, c.batch);
        tma::store_commit();
        if (!P::kSeparateO) tma::store_wait_read();  // O sits in the Q tile, which goes back to the producer
    }
    if (!P::kSeparateO && t == 0) mbar::arrive(&bars.q_empty[qs.stage]);  // the store no longer reads the Q tile
}

template <int D, bool F16, bool kShared>
__device__ __forceinline__ void consumer(const FmhaParams& p, const Sm90TmaMaps& maps, unsigned char* smem, int cw) {
    PipeState ps;
    const int lane = threadIdx.x % 32;
    // Ping-pong turns run on across tiles: WG 0 issues first, then each WG hands the turn over
    // after every GEMM issue, so WG 0 starts the next tile as soon as WG 1 has issued its last
    // GEMMs of this one (handing it over only at WG 1's next tile start made WG 0 wait for WG 1's
    // whole epilogue). WG 0 takes the one turn left over at the end.
    if (FMHA_PINGPONG && cw == 1) wg::bar_arrive(kBarSchedBase + 0, kConsumerThreads);
    for (int tile = TileScheduler::first();; ps.q += 1) {
        if (FMHA_PERSISTENT) {
            const QSlot<D> q(ps.q);
            mbar::wait_parity(&barriers_at<D>(smem).q_full[q.stage], q.phase);
            // Lane 0 reads, the only lane whose q_empty arrive releases the slot to the producer
            // (other lanes' reads would not be ordered before it). The shuffle also tells ptxas the
            // index, and all that follows from it (ring position, every wgmma descriptor), is
            // warp-uniform: read by every lane, the descriptors moved to vector registers (an
            // R2UR per wgmma) and the kernel ran 10-15 % slower.
            tile = __shfl_sync(0xffffffffu, lane == 0 ? *q.slot(smem) : 0, 0);
        }
        if (!TileScheduler::valid(p, tile)) break;
        const TileCoord c = TileScheduler::coord<D>(p, tile);
        // An opaque copy of the SMEM base per tile: otherwise ptxas hoists every wgmma descriptor
        // (Q's for each K step, K/V's per stage) out of the tile loop and spills them.
        unsigned char* tile_smem;
        asm volatile("mov.b64 %0, %1;" : "=l"(tile_smem) : "l"(smem));
        const Tiles tiles = tiles_for<D>(p, c.first_row, c.batch);
        const int wg_first_row = c.first_row + cw * 64;
        if (tiles.n_blocks > 0 && (wg_first_row >= p.seq_q || wg_first_row + 64 <= 0)) {
            pass_tile<D, kShared>(barriers_at<D>(tile_smem), cw, tiles.n_blocks, ps.kv, QSlot<D>(ps.q),
                                  threadIdx.x - 128 * (cw + 1));
            ps.kv += tiles.n_blocks;
        } else {
            consumer_tile<D, F16, kShared>(p, maps, tile_smem, barriers_at<D>(tile_smem), cw, c, tiles, ps);
        }
        if (!FMHA_PERSISTENT) break;
    }
    if (FMHA_PINGPONG && cw == 0) wg::bar_sync(kBarSchedBase + 0, kConsumerThreads);
    // The last O store must have read its SMEM before the CTA exits (a no-op where it already did).
    if (threadIdx.x % 128 == 0) tma::store_wait_read();
}

template <int D, bool F16>
__device__ __forceinline__ void attention(const FmhaParams& p, const Sm90TmaMaps& maps) {
    using P = Plan<D>;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<unsigned long long>(smem_raw) + 1023) & ~static_cast<unsigned long long>(1023));
    const Barriers bars = barriers_at<D>(smem);
    if (threadIdx.x == 0) {
        for (int q = 0; q < P::kQStages; ++q) {
            mbar::init(&bars.q_full[q], 1);
            mbar::init(&bars.q_empty[q], P::kQEmptyArrivals);
        }
        for (int s = 0; s < P::kStages; ++s) {
            mbar::init(&bars.k_full[s], 1);
            mbar::init(&bars.v_full[s], 1);
            mbar::init(&bars.k_empty[s], kEmptyArrivals);
            mbar::init(&bars.v_empty[s], kEmptyArrivals);
        }
        mbar::fence_init();
    }
    __syncthreads();

    // Read through a shuffle so ptxas knows the role is warp-uniform; otherwise it treats the
    // consumer branch as divergent and serializes every wgmma (ptxas C7519).
    const int warpgroup = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
    // K = V is a compile-time fork of both roles: read at run time in the ring's every stage,
    // phase, buffer and barrier choice, the flag cost the 192-row tile 10% on calls without it
    // (session 19, b8 S4k hd64 causal: 617 against 561 us with FMHA_KV_SHARED alone on).
    const bool shared = kv_shared(p);
    if (warpgroup == 0) {
        wg::setmaxnreg_dec<kProducerRegs>();
        if (threadIdx.x == 0) {
            if (shared)
                producer<D, true>(p, maps, smem, bars);
            else
                producer<D, false>(p, maps, smem, bars);
        }
    } else {
        wg::setmaxnreg_inc<kConsumerRegs>();
        if (shared)
            consumer<D, F16, true>(p, maps, smem, warpgroup - 1);
        else
            consumer<D, F16, false>(p, maps, smem, warpgroup - 1);
    }
}

}  // namespace fmha_sm90

#define FMHA_SM90_ENTRY(D, NAME, F16)                                                                    \
    extern "C" __global__ void __launch_bounds__(fmha_sm90::kThreads, 1)                                 \
        NAME(const FmhaParams p, const __grid_constant__ Sm90TmaMaps maps) {                             \
        fmha_sm90::attention<D, F16>(p, maps);                                                           \
    }
