// The native SM90 (Hopper) FMHA forward kernel: TMA + wgmma, warp-specialized.
//
// One CTA = 128 query rows of one (batch, head); 3 warpgroups (384 threads):
//   WG0  producer: gives registers back (setmaxnreg.dec), one thread issues the TMA loads:
//        Q once, then K and V tiles into a ring of FMHA_STAGES stages (full/empty mbarriers).
//   WG1  consumer for query rows 0-63 of the tile, WG2 for rows 64-127 (setmaxnreg.inc):
//        S = Q K^T as SS wgmma (both operands from 128B-swizzled SMEM), online softmax in
//        registers, P converted in place to 16-bit A fragments, O += P V as RS wgmma.
//        Epilogue: O / l into the WG's half of the Q tile (swizzled), one TMA store per 64
//        columns; LSE straight from registers.
//
// Compile-time switches, one per feature (kernels/family.toml names the variants):
//   FMHA_STAGES    K/V ring depth (>= 2)
//   FMHA_OVERLAP   1: the next tile's QK^T is issued before this tile's softmax finishes and PV
//                  runs while the softmax of the next tile does (intra-warpgroup overlap)
//   FMHA_PINGPONG  1: the two consumer WGs take turns issuing GEMMs, ordered by named barriers,
//                  so one WG's softmax runs under the other's GEMMs (needs FMHA_OVERLAP)
//   FMHA_RESCALE_THRESHOLD  log2 units: O and l are rescaled only when a row max grows by more
//                  than this; otherwise the stale max stays the reference (P <= 2^threshold)
//   FMHA_BN_D64 / FMHA_BN_D128 / FMHA_BN_D256   KV tile (wgmma N of QK^T) per head dim
#pragma once

#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/mbarrier.cuh"
#include "common/sm90_tma.cuh"
#include "common/sw128.cuh"
#include "common/tma.cuh"
#include "common/wgmma.cuh"

#ifndef FMHA_STAGES
#define FMHA_STAGES 2
#endif
#ifndef FMHA_OVERLAP
#define FMHA_OVERLAP 0
#endif
#ifndef FMHA_PINGPONG
#define FMHA_PINGPONG 0
#endif
#ifndef FMHA_RESCALE_THRESHOLD
#define FMHA_RESCALE_THRESHOLD 8
#endif
#ifndef FMHA_BN_D64
#define FMHA_BN_D64 128
#endif
#ifndef FMHA_BN_D128
#define FMHA_BN_D128 128
#endif
#ifndef FMHA_BN_D256
#define FMHA_BN_D256 64
#endif
#if FMHA_PINGPONG && !FMHA_OVERLAP
#error "FMHA_PINGPONG needs FMHA_OVERLAP"
#endif

struct Sm90TmaMaps {
    TmaMap q, k, v, o;
};

namespace fmha_sm90 {

constexpr int kBlockM = 128;
constexpr int kThreads = 384;
constexpr int kConsumerThreads = 256;
constexpr int kProducerRegs = 24;   // 128*24 + 256*240 = 64512 <= 65536
constexpr int kConsumerRegs = 240;
constexpr int kEmptyArrivals = 8;   // lane 0 of each consumer warp
constexpr float kRescaleThreshold = static_cast<float>(FMHA_RESCALE_THRESHOLD);
// Named barrier ids: 1, 2 = "consumer WG c may issue its GEMMs" (ping-pong); 3, 4 = epilogue per WG.
constexpr int kBarSchedBase = 1;
constexpr int kBarEpilogueBase = 3;
static_assert(FMHA_STAGES >= 2 && FMHA_STAGES <= 4, "K/V ring of 2 to 4 stages");

// Mirrored by fmhactl/runtime/launchers.py::Sm90Plan (tests/sm90 keep them equal).
template <int D>
struct Plan {
    static constexpr int kBlockN = D == 64 ? FMHA_BN_D64 : D == 128 ? FMHA_BN_D128 : FMHA_BN_D256;
    static_assert(D == 64 || D == 128 || D == 256, "head dims 64, 128, 256");
    static_assert(kBlockN % 16 == 0 && kBlockN >= 64 && kBlockN <= 192, "KV tile: a multiple of 16 in 64..192");
    static constexpr int kStages = FMHA_STAGES;
    static constexpr unsigned kQBytes = kBlockM * D * 2;
    static constexpr unsigned kKVBytes = kBlockN * D * 2;
    static constexpr unsigned kQOff = 0;
    static constexpr unsigned kKOff = kQOff + kQBytes;
    static constexpr unsigned kVOff = kKOff + kStages * kKVBytes;
    static constexpr unsigned kBarOff = kVOff + kStages * kKVBytes;
    // q_full, k_full[], v_full[], k_empty[], v_empty[]: K and V are released separately, so the
    // next K tile can land while this tile's PV still reads V.
    static constexpr unsigned kBarCount = 1 + 4 * kStages;
    // +1024: the dynamic window is re-aligned to the 1024-B swizzle repeat inside the kernel.
    static constexpr unsigned kSmemBytes = kBarOff + 8 * kBarCount + 1024;
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
    unsigned long long* k_full;
    unsigned long long* v_full;
    unsigned long long* k_empty;
    unsigned long long* v_empty;
};

// Per-thread softmax state for its two rows (r and r + 8 of its warp's 16).
struct RowState {
    float m[2];  // reference max, already in scaled log2 units; -inf until a key was seen
    float l[2];  // this thread's partial row sums (the quad is reduced once, in the epilogue)
};

// Which query rows / keys a CTA covers and which KV tiles need masking.
struct Tiles {
    int n_blocks;      // KV tiles this CTA visits (tiles n_blocks-1 down to 0)
    int offset;        // seq_k - seq_q: bottom-right causal alignment
};

template <int D>
__device__ __forceinline__ Tiles tiles_for(const FmhaParams& p, int m_block) {
    constexpr int BN = Plan<D>::kBlockN;
    Tiles t;
    t.offset = p.seq_k - p.seq_q;
    int limit = p.seq_k;
    if (p.causal) {
        const int last_row_sees = (m_block + 1) * kBlockM - 1 + t.offset;  // keys <= this
        limit = min(limit, last_row_sees + 1);
    }
    t.n_blocks = limit <= 0 ? 0 : (limit + BN - 1) / BN;
    return t;
}

// The softmax of one S tile, in place: S becomes P (unnormalised, fp32). Returns per-row alpha,
// the factor O and l must be multiplied by (1 where the reference max did not move).
template <int D, bool kMask>
__device__ __forceinline__ void softmax_tile(float (&s)[Plan<D>::kSRegs], RowState& st, float (&alpha)[2],
                                             const FmhaParams& p, int n, int row0, int offset, int lane) {
    constexpr int BN = Plan<D>::kBlockN;
    constexpr int R = Plan<D>::kSRegs;
    if (kMask) {
        const int key_base = n * BN + 2 * (lane % 4);
#pragma unroll
        for (int i = 0; i < R; ++i) {
            const int key = key_base + 8 * (i / 4) + (i % 2);
            const int row = row0 + 8 * ((i / 2) % 2);
            const bool hidden = key >= p.seq_k || (p.causal && key > row + offset);
            if (hidden) s[i] = -FMHA_INF;
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

template <int D>
__device__ __forceinline__ bool tile_needs_mask(const FmhaParams& p, int n, int wg_first_row, int offset) {
    constexpr int BN = Plan<D>::kBlockN;
    const int last_key = n * BN + BN - 1;
    return last_key >= p.seq_k || (p.causal && last_key > wg_first_row + offset);
}

template <int D>
__device__ __forceinline__ void producer(const FmhaParams& p, const Sm90TmaMaps& maps, unsigned char* smem,
                                         const Barriers& bars, int m_block, int head, int batch, int kv_head,
                                         int n_blocks) {
    using P = Plan<D>;
    constexpr int BN = P::kBlockN;
    mbar::arrive_expect_tx(bars.q_full, P::kQBytes);
#pragma unroll
    for (int a = 0; a < D / 64; ++a)
        tma::load_4d(smem + P::kQOff + a * kBlockM * 128, &maps.q, bars.q_full, a * 64, m_block * kBlockM, head, batch);
    for (int i = 0; i < n_blocks; ++i) {
        const int n = n_blocks - 1 - i;
        const int stage = i % P::kStages;
        const unsigned phase = (i / P::kStages) & 1;
        unsigned char* k_tile = smem + P::kKOff + stage * P::kKVBytes;
        unsigned char* v_tile = smem + P::kVOff + stage * P::kKVBytes;
        mbar::wait_parity(&bars.k_empty[stage], phase ^ 1);
        mbar::arrive_expect_tx(&bars.k_full[stage], P::kKVBytes);
#pragma unroll
        for (int a = 0; a < D / 64; ++a)
            tma::load_4d(k_tile + a * BN * 128, &maps.k, &bars.k_full[stage], a * 64, n * BN, kv_head, batch);
        mbar::wait_parity(&bars.v_empty[stage], phase ^ 1);
        mbar::arrive_expect_tx(&bars.v_full[stage], P::kKVBytes);
#pragma unroll
        for (int a = 0; a < D / 64; ++a)
            tma::load_4d(v_tile + a * BN * 128, &maps.v, &bars.v_full[stage], a * 64, n * BN, kv_head, batch);
    }
}

template <int D, bool F16>
__device__ __forceinline__ void consumer(const FmhaParams& p, const Sm90TmaMaps& maps, unsigned char* smem,
                                         const Barriers& bars, int cw, int m_block, int head, int batch,
                                         const Tiles& tiles) {
    using P = Plan<D>;
    const int t = threadIdx.x - 128 * (cw + 1);
    const int warp = t / 32;
    const int lane = t % 32;
    const int wg_row0 = cw * 64;  // within the CTA tile
    const int wg_first_row = m_block * kBlockM + wg_row0;
    const int row0 = wg_first_row + warp * 16 + lane / 4;  // this thread's rows: row0, row0 + 8
    const unsigned char* q_tile = smem + P::kQOff;

    float o[P::kORegs];
#pragma unroll
    for (int i = 0; i < P::kORegs; ++i) o[i] = 0.0f;
    RowState st = {{-FMHA_INF, -FMHA_INF}, {0.0f, 0.0f}};
    const int n_blocks = tiles.n_blocks;

    if (n_blocks > 0) {
        mbar::wait_parity(bars.q_full, 0);
        float s[P::kSRegs];
        unsigned pf[P::kPRegs][4];
        float alpha[2];
#if FMHA_OVERLAP
        // First tile: S, softmax, P; its PV is issued together with the next tile's QK^T.
        if (FMHA_PINGPONG && cw == 1) wg::bar_arrive(kBarSchedBase + 0, kConsumerThreads);
        {
            const int n = n_blocks - 1;
            mbar::wait_parity(&bars.k_full[0], 0);
            if (FMHA_PINGPONG) wg::bar_sync(kBarSchedBase + cw, kConsumerThreads);
            wg::fence();
            issue_qk<D, F16>(s, q_tile, wg_row0, smem + P::kKOff);
            wg::commit();
            if (FMHA_PINGPONG && !(cw == 1 && n_blocks == 1)) wg::bar_arrive(kBarSchedBase + (1 - cw), kConsumerThreads);
            wg::wait<0>();
            wg::fence_regs(s);
            if (lane == 0) mbar::arrive(&bars.k_empty[0]);
            if (tile_needs_mask<D>(p, n, wg_first_row, tiles.offset))
                softmax_tile<D, true>(s, st, alpha, p, n, row0, tiles.offset, lane);
            else
                softmax_tile<D, false>(s, st, alpha, p, n, row0, tiles.offset, lane);
            convert_p<D, F16>(s, pf);
        }
        for (int i = 1; i < n_blocks; ++i) {
            const int n = n_blocks - 1 - i;
            const int stage = i % P::kStages;
            const unsigned phase = (i / P::kStages) & 1;
            const int prev = (i - 1) % P::kStages;
            const unsigned prev_phase = ((i - 1) / P::kStages) & 1;
            mbar::wait_parity(&bars.k_full[stage], phase);
            if (FMHA_PINGPONG) wg::bar_sync(kBarSchedBase + cw, kConsumerThreads);
            wg::fence();
            issue_qk<D, F16>(s, q_tile, wg_row0, smem + P::kKOff + stage * P::kKVBytes);
            wg::commit();
            mbar::wait_parity(&bars.v_full[prev], prev_phase);
            issue_pv<D, F16>(o, pf, smem + P::kVOff + prev * P::kKVBytes);
            wg::commit();
            if (FMHA_PINGPONG && !(cw == 1 && i == n_blocks - 1))
                wg::bar_arrive(kBarSchedBase + (1 - cw), kConsumerThreads);
            wg::wait<1>();
            wg::fence_regs(s);
            if (lane == 0) mbar::arrive(&bars.k_empty[stage]);
            if (tile_needs_mask<D>(p, n, wg_first_row, tiles.offset))
                softmax_tile<D, true>(s, st, alpha, p, n, row0, tiles.offset, lane);
            else
                softmax_tile<D, false>(s, st, alpha, p, n, row0, tiles.offset, lane);
            wg::wait<0>();
            wg::fence_regs(o);
            wg::fence_regs(pf[0]);
            if (lane == 0) mbar::arrive(&bars.v_empty[prev]);
            rescale_o<D>(o, alpha);
            convert_p<D, F16>(s, pf);
        }
        {
            const int last = n_blocks - 1;
            const int stage = last % P::kStages;
            mbar::wait_parity(&bars.v_full[stage], (last / P::kStages) & 1);
            wg::fence();
            issue_pv<D, F16>(o, pf, smem + P::kVOff + stage * P::kKVBytes);
            wg::commit();
            wg::wait<0>();
            wg::fence_regs(o);
            if (lane == 0) mbar::arrive(&bars.v_empty[stage]);
        }
#else
        for (int i = 0; i < n_blocks; ++i) {
            const int n = n_blocks - 1 - i;
            const int stage = i % P::kStages;
            const unsigned phase = (i / P::kStages) & 1;
            mbar::wait_parity(&bars.k_full[stage], phase);
            wg::fence();
            issue_qk<D, F16>(s, q_tile, wg_row0, smem + P::kKOff + stage * P::kKVBytes);
            wg::commit();
            wg::wait<0>();
            wg::fence_regs(s);
            if (lane == 0) mbar::arrive(&bars.k_empty[stage]);
            if (tile_needs_mask<D>(p, n, wg_first_row, tiles.offset))
                softmax_tile<D, true>(s, st, alpha, p, n, row0, tiles.offset, lane);
            else
                softmax_tile<D, false>(s, st, alpha, p, n, row0, tiles.offset, lane);
            rescale_o<D>(o, alpha);
            convert_p<D, F16>(s, pf);
            mbar::wait_parity(&bars.v_full[stage], phase);
            wg::fence();
            issue_pv<D, F16>(o, pf, smem + P::kVOff + stage * P::kKVBytes);
            wg::commit();
            wg::wait<0>();
            wg::fence_regs(o);
            if (lane == 0) mbar::arrive(&bars.v_empty[stage]);
        }
#endif
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
        if (p.lse != nullptr && lane % 4 == 0 && row < p.seq_q) {
            constexpr float kLn2 = 0.6931471805599453f;
            const float lse = l > 0.0f ? (st.m[h] + __log2f(l)) * kLn2 : -FMHA_INF;
            p.lse[(static_cast<fmha_i64>(batch) * p.heads + head) * p.seq_q + row] = lse;
        }
    }
    unsigned char* o_tile = smem + P::kQOff;  // this WG's half of the Q tile: its QK^T is done
    const int tile_row = wg_row0 + warp * 16 + lane / 4;
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
            tma::store_4d(&maps.o, o_tile + a * kBlockM * 128 + wg_row0 * 128, a * 64, wg_first_row, head, batch);
        tma::store_commit();
        tma::store_wait_read();
    }
}

template <int D, bool F16>
__device__ __forceinline__ void attention(const FmhaParams& p, const Sm90TmaMaps& maps) {
    using P = Plan<D>;
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<unsigned long long>(smem_raw) + 1023) & ~static_cast<unsigned long long>(1023));
    // Heaviest query tiles first: under causal masking the last tiles see the most keys.
    const int m_block = gridDim.x - 1 - blockIdx.x;
    const int head = blockIdx.y;
    const int batch = blockIdx.z;
    const int kv_head = head / (p.heads / p.heads_kv);
    const Tiles tiles = tiles_for<D>(p, m_block);

    auto* bar_base = reinterpret_cast<unsigned long long*>(smem + P::kBarOff);
    const Barriers bars = {bar_base, bar_base + 1, bar_base + 1 + P::kStages, bar_base + 1 + 2 * P::kStages,
                           bar_base + 1 + 3 * P::kStages};
    if (threadIdx.x == 0) {
        mbar::init(bars.q_full, 1);
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
    if (warpgroup == 0) {
        wg::setmaxnreg_dec<kProducerRegs>();
        if (threadIdx.x == 0 && tiles.n_blocks > 0)
            producer<D>(p, maps, smem, bars, m_block, head, batch, kv_head, tiles.n_blocks);
    } else {
        wg::setmaxnreg_inc<kConsumerRegs>();
        consumer<D, F16>(p, maps, smem, bars, warpgroup - 1, m_block, head, batch, tiles);
    }
}

}  // namespace fmha_sm90

#define FMHA_SM90_ENTRY(D, NAME, F16)                                                                    \
    extern "C" __global__ void __launch_bounds__(fmha_sm90::kThreads, 1)                                 \
        NAME(const FmhaParams p, const __grid_constant__ Sm90TmaMaps maps) {                             \
        fmha_sm90::attention<D, F16>(p, maps);                                                           \
    }
