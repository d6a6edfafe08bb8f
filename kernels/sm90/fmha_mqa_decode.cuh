// sm90_mqa_decode: DeepSeek-V4 sparse MQA decode on sm_90a with wgmma (FlashMLA's SM90 decode
// design): hd512, K = V, top-k lists or the window/causal range, sinks, LSE, split-K.
//
// * M = the 64 query heads of ONE token that share a KV head: each gathered key row feeds all 64
//   rows of a wgmma, and the causal/window range and the top-k list (one per token) make the
//   mask one per key for the whole tile.
// * WG2, the producer, gathers: Q once, then each block of kBlockN listed keys with 16-byte
//   cp.async into a ring stage in the canonical SW128 K-major layout (sw128::offset), the layout
//   a TMA box of the same rows would produce. Each producer thread hands its copies of a block
//   to the stage's `full` mbarrier with cp.async.mbarrier.arrive.noinc (128 arrivals): the
//   barrier completes when every thread's copies have landed, and the producer never waits for
//   data, only for free stages, so every stage the consumers are not reading is in flight. (It
//   used to wait for its own copies kStages-1 blocks later, cp.async.wait_group, before it could
//   arrive: with the consumers holding two stages a block's hand-over then waited on the
//   consumers' previous block, which serialised the ring; measured in docs/features.md.)
//   The consumers fence their view to the async proxy (fence.proxy.async) after each wait,
//   before a wgmma reads the stage: cp.async writes are generic-proxy writes.
// * WG0 / WG1 each own half of the head dim (256 columns of O: 128 fp32 registers a thread).
//   QK^T is split over D the same way: S_w = Q[:, half_w] K[:, half_w]^T (SS wgmma), the two
//   partials meet in SMEM (each thread stores its fragment, the WGs' fragments coincide element
//   by element) and both WGs add them: S = S_0 + S_1 bit-identically in both (fp32 addition
//   commutes), so both run the same softmax and no max or sum crosses warpgroups. O_w += P V_w
//   with P from registers (RS wgmma, N = 256) and V = the same K stage read MN-major.
// * Barriers: full[s] (producer -> consumers, 128 arrivals), empty[s] (consumers -> producer, 256
//   arrivals), q_full (128); named barrier kBarX (the 256 consumer threads: both partials
//   stored) and kBarFree + w (WG 1-w has read WG w's partial, which WG w may then overwrite);
//   kBarEpilogue + w (WG w's O staged in its half of Q's SMEM, then stored row by row).
// * Split-K: GatherSplit (fmhactl/plans/sm90_gather.py) as sm90_mqa_gather; the last split CTA
//   merges (kernels/common/split_merge.cuh), run by the consumer warpgroups only (the producer
//   has exited by then: no CTA-wide barrier after the role split).
// Requirements (fmhactl's launch path meets them): contiguous head dim, 16-byte aligned rows,
// K = V, the block and SMEM of fmhactl/plans/sm90_decode.py.
#pragma once

#include "common/cp_async.cuh"
#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/mbarrier.cuh"
#include "common/mma_sync.cuh"  // pack2, quad_max / quad_sum: the wgmma C fragment has the same 4-lane rows
#include "common/split_merge.cuh"
#include "common/sw128.cuh"
#include "common/tma.cuh"
#include "common/topk_list.cuh"
#include "common/wgmma.cuh"
#include "common/wgmma_ops_decode.cuh"  // WgmmaSS<32, F16>: the QK^T of a 32-key block
#include "sm90/fmha_mqa_decode_plan.h"
#include "sm90/fmha_mqa_gather_plan.h"

namespace fmha_mqa_decode {

using namespace fmha_decode_plan;

constexpr int kBarX = 1;     // both consumer WGs' partial S stored
constexpr int kBarFree = 2;  // + w: WG w's partial read by the other WG (2, 3)
constexpr int kBarMerge = 4; // the consumers' merge
constexpr int kBarEpilogue = 5;  // + w: WG w's O staged in SMEM (5, 6)
constexpr int kConsumerThreads = 128 * kConsumers;
constexpr float kRescaleSlack = 8.f;  // base-2 units: P <= 256 between rescales
static_assert(kConsumers == 2, "the partial-S exchange pairs two warpgroups");
static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536, "setmaxnreg budget");

template <int D>
struct Shape {
    using Declared = HeadDim<D>;
    static_assert(Declared::kDeclared, "head dim not declared in fmhactl/plans/sm90_decode.py");
    static constexpr int kHalf = D / kConsumers;          // O columns per consumer WG
    static constexpr int kChunks = D / 8;                 // 16-byte chunks per row
    static constexpr int kSRegs = kBlockN / 2;            // S accumulator per thread (m64 nBlockN)
    static constexpr int kORegs = kHalf / 2;              // O accumulator per thread (m64 n kHalf)
    static constexpr int kPRegs = kBlockN / 16;           // P A-fragments per thread
    static constexpr int kQCopies = kRows * kChunks / 128;     // per producer thread
    static_assert(kChunks % 128 == 0 || 128 % kChunks == 0, "copy index split");
    static_assert(kHalf == 256, "PV is one m64n256 RS wgmma per 16 keys");
};

using cp_async::copy16;
using cp_async::wait_all;
// The mbarrier gets this thread's arrival once all of its earlier cp.async have completed (their
// writes visible to a thread that then waits on it); noinc: the arrival is one of the init count.
__device__ __forceinline__ void arrive_when_landed(unsigned long long* bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(wg::smem_u32(bar)) : "memory");
}

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

struct Bars {
    unsigned long long* full;   // [kStages]
    unsigned long long* empty;  // [kStages]
    unsigned long long* q_full;
};

template <int D>
__device__ __forceinline__ Bars bars_at(unsigned char* smem) {
    auto* b = reinterpret_cast<unsigned long long*>(smem + HeadDim<D>::kBarOffset);
    return Bars{b, b + kStages, b + 2 * kStages};
}

// The CTA's work: which token, heads and keys (the same in every warpgroup).
struct Work {
    int b, t, kvh, head0, rows_valid, split, group_x;
    int count;   // keys this CTA multiplies
    int first;   // dense: its first key (keys first .. first + count - 1); top-k: the SMEM list
    bool sparse;
};

// Which (row, 16-byte chunk) of a K block producer thread tp copies with its i-th copy, and where
// in the stage it lands: thread tp takes chunk tp % kChunks of kRowsPerThread consecutive rows
// (a warp's 32 lanes read 512 contiguous bytes of one row per copy). Because a thread's first row
// is a multiple of 8, sw128::offset(row, 8 chunk, kBlockN) splits into a per-thread base and
// step(i, swizzle(tp)), a compile-time offset XOR the thread's chunk bits; copies_tile_the_stage
// proves that for every copy, and that the copies write each chunk of the stage once.
template <int D>
struct KCopy {
    static constexpr int kChunks = Shape<D>::kChunks;
    static constexpr int kRowsPerThread = kBlockN * kChunks / 128;
    static_assert(128 % kChunks == 0 && kRowsPerThread % 8 == 0, "a thread's rows start on an 8-row swizzle atom");
    __host__ __device__ static constexpr int chunk(int tp) { return tp % kChunks; }
    __host__ __device__ static constexpr int row(int tp, int i) { return (tp / kChunks) * kRowsPerThread + i; }
    __host__ __device__ static constexpr unsigned swizzle(int tp) { return static_cast<unsigned>(chunk(tp) % 8) * 16; }
    __host__ __device__ static constexpr unsigned step(int i, unsigned swz) { return i * 128 + (swz ^ ((i % 8) * 16)); }
    __host__ __device__ static constexpr unsigned base(int tp) { return (chunk(tp) / 8) * kBlockN * 128 + row(tp, 0) * 128; }
    __host__ __device__ static constexpr unsigned dst(int tp, int i) { return base(tp) + step(i, swizzle(tp)); }
    __host__ __device__ static constexpr bool copies_tile_the_stage() {
        bool seen[kBlockN * kChunks] = {};
        for (int tp = 0; tp < 128; ++tp)
            for (int i = 0; i < kRowsPerThread; ++i) {
                const int r = row(tp, i), c = chunk(tp);
                if (dst(tp, i) != sw128::offset(r, c * 8, kBlockN) || seen[r * kChunks + c]) return false;
                seen[r * kChunks + c] = true;
            }
        for (bool s : seen)
            if (!s) return false;
        return true;
    }
};
static_assert(KCopy<512>::copies_tile_the_stage(), "the producer's copies must write the SW128 stage, each chunk once");

// Producer (WG2, 128 threads): Q, then every block of the CTA's keys into the first free stage.
template <int D>
__device__ __forceinline__ void producer(const FmhaParams& p, unsigned char* smem, const Bars& bars, const Work& w,
                                         const int* list) {
    using S = Shape<D>;
    const int tp = threadIdx.x % 128;
    const unsigned q_s = wg::smem_u32(smem + HeadDim<D>::kQOffset);
    const unsigned ring_s = wg::smem_u32(smem + HeadDim<D>::kRingOffset);
    {
        const unsigned short* qbase = static_cast<const unsigned short*>(p.q) + w.b * p.q_batch_stride +
                                      static_cast<fmha_i64>(w.t) * p.q_seq_stride;
#pragma unroll 4
        for (int i = 0; i < S::kQCopies; ++i) {
            const int idx = i * 128 + tp, r = idx / S::kChunks, c = idx % S::kChunks;
            const bool ok = r < w.rows_valid;
            const unsigned short* src = ok ? qbase + (w.head0 + r) * p.q_head_stride + c * 8 : qbase;
            copy16(q_s + sw128::offset(r, c * 8, kRows), src, ok);
        }
        arrive_when_landed(bars.q_full);
    }
    // K blocks. The per-copy instructions, not HBM, bounded a block here: the producer's 4 warps
    // issue every copy's index math themselves, and with no copies at all the former loop (~28
    // instructions a copy: the key's select and bounds per copy, 64-bit row math) still held the
    // consumers at ~1 us a 32-key block on `full` (ncu, session 31). KCopy<D> gives each thread
    // one chunk of kRowsPerThread consecutive rows, so a thread's keys come as int4 from the SMEM
    // list, its destinations are a per-thread base plus compile-time offsets, and a dense range
    // steps one row stride a copy with no multiply.
    using KC = KCopy<D>;
    const char* kbase_c = reinterpret_cast<const char*>(static_cast<const unsigned short*>(p.k) + w.b * p.k_batch_stride +
                                                        w.kvh * p.k_head_stride + KC::chunk(tp) * 8);
    const long long row_bytes = p.k_seq_stride * 2;
    const int row0 = KC::row(tp, 0);
    const unsigned dst_c = KC::base(tp), cx = KC::swizzle(tp);
    const unsigned list_s = wg::smem_u32(list);
    const int nblocks = (w.count + kBlockN - 1) / kBlockN;
    for (int blk = 0; blk < nblocks; ++blk) {
        const int slot = blk % kStages;
        mbar::wait_parity(&bars.empty[slot], ((blk / kStages) & 1) ^ 1);
        const unsigned k_s = ring_s + slot * HeadDim<D>::kStageBytes + dst_c;
        const int n0 = blk * kBlockN + row0;
        const int valid = w.count - n0;  // this thread's rows i < valid are keys; the rest zeros
        if (w.sparse) {
            int keys[KC::kRowsPerThread];
#pragma unroll
            for (int q = 0; q < KC::kRowsPerThread / 4; ++q)  // n0 + kRowsPerThread <= 32 nblocks <= kListCap: in the list
                asm volatile("ld.shared.v4.s32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(keys[4 * q]), "=r"(keys[4 * q + 1]), "=r"(keys[4 * q + 2]), "=r"(keys[4 * q + 3])
                             : "r"(list_s + (n0 + 4 * q) * 4)
                             : "memory");
#pragma unroll
            for (int i = 0; i < KC::kRowsPerThread; ++i) {
                const bool ok = i < valid;
                copy16(k_s + KC::step(i, cx), kbase_c + (ok ? keys[i] : 0) * row_bytes, ok);
            }
        } else {
            const char* src = kbase_c + static_cast<long long>(w.first + n0) * row_bytes;
#pragma unroll
            for (int i = 0; i < KC::kRowsPerThread; ++i) {
                const bool ok = i < valid;
                copy16(k_s + KC::step(i, cx), ok ? src : kbase_c, ok);
                src += row_bytes;
            }
        }
        arrive_when_landed(&bars.full[slot]);
    }
    wait_all();  // nothing in flight when the producer's threads exit
}

template <int D, bool F16>
__device__ __forceinline__ void consumer(const FmhaParams& p, const GatherSplit& sp, unsigned char* smem,
                                         const Bars& bars, const Work& w, int wg_idx) {
    using S = Shape<D>;
    constexpr float kLog2e = 1.4426950408889634f;
    const int tid = threadIdx.x % 128, lane = tid % 32, warp = tid / 32;
    const unsigned char* q_tile = smem + HeadDim<D>::kQOffset;
    // The exchange: per WG, S::kSRegs / 4 float4 a thread, thread-major within each (conflict-free).
    float4* x_own = reinterpret_cast<float4*>(smem + HeadDim<D>::kXOffset) + wg_idx * (S::kSRegs / 4) * 128;
    const float4* x_other = reinterpret_cast<const float4*>(smem + HeadDim<D>::kXOffset) + (1 - wg_idx) * (S::kSRegs / 4) * 128;
    const int nblocks = (w.count + kBlockN - 1) / kBlockN;

    float o[S::kORegs];
#pragma unroll
    for (int i = 0; i < S::kORegs; ++i) o[i] = 0.f;
    float m[2] = {-FMHA_INF, -FMHA_INF};  // running max (base 2, scaled), quad-uniform
    float l[2] = {0.f, 0.f};              // running sum of this thread's columns

    // Descriptors are built once and stepped by compile-time byte offsets (wgmma_desc::advance):
    // the K steps of a block then cost one add each, not an address and an encode per wgmma.
    const unsigned char* ring = smem + HeadDim<D>::kRingOffset;
    const unsigned long long q_desc = wg::kmajor_desc(q_tile, 0, wg_idx * S::kHalf, kRows);
    const unsigned long long k_desc = wg::kmajor_desc(ring, 0, wg_idx * S::kHalf, kBlockN);
    // V = the K stage read MN-major: this WG's 4 atom columns start kHalf / 64 atoms in
    const unsigned long long v_desc = wg::mnmajor_desc(ring + wg_idx * (S::kHalf / 64) * kBlockN * 128, 0, kBlockN);
    auto stage_bytes = [](int blk) { return static_cast<unsigned>((blk % kStages) * HeadDim<D>::kStageBytes); };
    // S_w = Q[:, half] K[:, half]^T over this WG's 256 head dims (issued, not waited for).
    auto issue_qk = [&](float (&s)[S::kSRegs], int blk) {
        const unsigned long long kd = wgmma_desc::advance(k_desc, stage_bytes(blk));
#pragma unroll
        for (int kk = 0; kk < S::kHalf / 16; ++kk)
            WgmmaSS<kBlockN, F16>::run(s, wgmma_desc::advance(q_desc, sw128::kmajor_k_offset(kk * 16, kRows)),
                                       wgmma_desc::advance(kd, sw128::kmajor_k_offset(kk * 16, kBlockN)), kk > 0);
        wg::commit();
    };
    // O_w += P V[:, half] (issued).
    auto issue_pv = [&](unsigned (&pf)[S::kPRegs][4], int blk) {
        const unsigned long long vd = wgmma_desc::advance(v_desc, stage_bytes(blk));
#pragma unroll
        for (int kb = 0; kb < S::kPRegs; ++kb) WgmmaRS<S::kHalf, F16>::run(o, pf[kb], wgmma_desc::advance(vd, kb * 16 * 128), 1);
        wg::commit();
    };
    // The partials meet: store own, wait for both, add the other's.
    auto exchange = [&](float (&s)[S::kSRegs], int blk) {
        if (blk > 0) wg::bar_sync(kBarFree + wg_idx, kConsumerThreads);  // the other WG read our previous one
#pragma unroll
        for (int j = 0; j < S::kSRegs / 4; ++j) x_own[j * 128 + tid] = make_float4(s[4 * j], s[4 * j + 1], s[4 * j + 2], s[4 * j + 3]);
        wg::bar_sync(kBarX, kConsumerThreads);
#pragma unroll
        for (int j = 0; j < S::kSRegs / 4; ++j) {
            const float4 v = x_other[j * 128 + tid];
            s[4 * j] += v.x;
            s[4 * j + 1] += v.y;
            s[4 * j + 2] += v.z;
            s[4 * j + 3] += v.w;
        }
        if (blk + 1 < nblocks) wg::bar_arrive(kBarFree + 1 - wg_idx, kConsumerThreads);  // its buffer is free
    };
    // Online softmax (base 2) of block blk into P (pf); alpha: the factor O must take before
    // P V of this block is added. Keys n_valid.. of the last block are zero rows: masked.
    // The running max moves only when a block's exceeds it by more than kRescaleSlack (FA4's
    // conditional rescale): P = 2^(s - m) then stays <= 2^kRescaleSlack, exact in bf16 up to its
    // usual rounding, while O and l keep one common m; most blocks then skip O's 128 multiplies.
    auto softmax = [&](float (&s)[S::kSRegs], int blk, unsigned (&pf)[S::kPRegs][4], float (&alpha)[2]) {
        const int n_valid = min(kBlockN, w.count - blk * kBlockN);
        if (n_valid < kBlockN) {  // the CTA's last block only (uniform)
#pragma unroll
            for (int i = 0; i < S::kSRegs; ++i)
                if (8 * (i / 4) + 2 * (lane % 4) + i % 2 >= n_valid) s[i] = -FMHA_INF;
        }
        float bmax[2] = {-FMHA_INF, -FMHA_INF};  // of the raw scores: the scale is positive
#pragma unroll
        for (int i = 0; i < S::kSRegs; ++i) bmax[(i / 2) % 2] = fmaxf(bmax[(i / 2) % 2], s[i]);
        float use[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            bmax[h] = mma_sync::quad_max(bmax[h]);
            const float cand = bmax[h] * p.scale_log2;
            alpha[h] = 1.f;
            if (m[h] == -FMHA_INF || cand > m[h] + kRescaleSlack) {
                alpha[h] = m[h] == -FMHA_INF ? (cand == -FMHA_INF ? 1.f : 0.f) : ex2(m[h] - cand);
                m[h] = cand;
            }
            use[h] = m[h] == -FMHA_INF ? 0.f : m[h];
        }
        float sum[2] = {0.f, 0.f};
#pragma unroll
        for (int i = 0; i < S::kSRegs; ++i) {
            s[i] = ex2(fmaf(s[i], p.scale_log2, -use[(i / 2) % 2]));
            sum[(i / 2) % 2] += s[i];
        }
#pragma unroll
        for (int h = 0; h < 2; ++h) l[h] = l[h] * alpha[h] + sum[h];
#pragma unroll
        for (int kb = 0; kb < S::kPRegs; ++kb)
#pragma unroll
            for (int j = 0; j < 4; ++j) pf[kb][j] = mma_sync::pack2<!F16>(s[8 * kb + 2 * j], s[8 * kb + 2 * j + 1]);
    };
    auto rescale = [&](const float (&alpha)[2]) {
        if (__any_sync(0xffffffffu, alpha[0] != 1.f || alpha[1] != 1.f)) {
#pragma unroll
            for (int i = 0; i < S::kORegs; ++i) o[i] *= alpha[(i / 2) % 2];
        }
    };

    // Software pipeline (FA3's intra-warpgroup overlap): QK^T of block blk and P V of block
    // blk - 1 are issued together; once QK^T lands (wait<1>: groups retire in order) the
    // exchange and softmax of blk run while the tensor cores still multiply P V of blk - 1.
    // P is double-buffered (pa / pb: the RS wgmma reads its A registers until it retires) and
    // the loop is unrolled by two so both stay compile-time register arrays; O takes block blk's
    // rescale only after P V of blk - 1 has retired. Stage blk - 1 is released then.
    float s[S::kSRegs];
    unsigned pa[S::kPRegs][4], pb[S::kPRegs][4];
    auto fence_p = [](unsigned (&pf)[S::kPRegs][4]) {
#pragma unroll
        for (int kb = 0; kb < S::kPRegs; ++kb) wg::fence_regs(pf[kb]);
    };
    float alpha[2];
    auto step = [&](int blk, unsigned (&p_prev)[S::kPRegs][4], unsigned (&p_next)[S::kPRegs][4]) {
        mbar::wait_parity(&bars.full[blk % kStages], (blk / kStages) & 1);
        tma::fence_proxy_async_shared();  // the stage's cp.async writes, to the wgmma's async proxy
        wg::fence_regs(o);
        fence_p(p_prev);
        wg::fence();
        issue_qk(s, blk);
        issue_pv(p_prev, blk - 1);
        wg::wait<1>();
        wg::fence_regs(s);
        exchange(s, blk);
        softmax(s, blk, p_next, alpha);
        wg::wait<0>();
        wg::fence_regs(o);
        fence_p(p_prev);
        mbar::arrive(&bars.empty[(blk - 1) % kStages]);
        rescale(alpha);
    };
    if (nblocks > 0) {
        mbar::wait_parity(bars.q_full, 0);
        mbar::wait_parity(&bars.full[0], 0);
        tma::fence_proxy_async_shared();  // Q's and block 0's cp.async writes, to the async proxy
        wg::fence();
        issue_qk(s, 0);
        wg::wait<0>();
        wg::fence_regs(s);
        exchange(s, 0);
        softmax(s, 0, pa, alpha);  // O is still 0: no rescale
        // Unrolled by two so that P's buffers swap roles without a copy: a register copy into
        // P's A fragments would sit inside the next wgmma stage, and ptxas (13.0) then
        // serialises every wgmma of the loop (C7513).
        for (int blk = 1; blk < nblocks; blk += 2) {
            step(blk, pa, pb);
            if (blk + 1 < nblocks) step(blk + 1, pb, pa);
        }
        wg::fence_regs(o);
        wg::fence();
        if ((nblocks - 1) % 2 == 0) {
            fence_p(pa);
            issue_pv(pa, nblocks - 1);
            wg::wait<0>();
            fence_p(pa);
        } else {
            fence_p(pb);
            issue_pv(pb, nblocks - 1);
            wg::wait<0>();
            fence_p(pb);
        }
        wg::fence_regs(o);
        mbar::arrive(&bars.empty[(nblocks - 1) % kStages]);
    }

    // Rows of this thread: 16 * warp + lane / 4 (+ 8).
    const int row_base = 16 * warp + lane / 4;
    if (sp.splits > 1) {
        const fmha_i64 rows_all = static_cast<fmha_i64>(p.batch) * p.seq_q * p.heads;
        const fmha_i64 row0 = (static_cast<fmha_i64>(w.b) * p.seq_q + w.t) * p.heads + w.head0;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float total = mma_sync::quad_sum(l[h]);
            const int row = row_base + 8 * h;
            if (row >= w.rows_valid) continue;
            const bool any = m[h] != -FMHA_INF && total > 0.f;
            const float inv = any ? 1.f / total : 0.f;
            const fmha_i64 at = w.split * rows_all + row0 + row;
            // Straight from the fragment: staging it through SMEM as the unsplit O below was
            // measured no faster here (0.98-0.99x, session 12 call 5).
            float* out = sp.o_partial + at * D + wg_idx * S::kHalf + 2 * (lane % 4);
#pragma unroll
            for (int i = 2 * h; i < S::kORegs; i += 4)
                *reinterpret_cast<float2*>(out + 8 * (i / 4)) = make_float2(o[i] * inv, o[i + 1] * inv);
            if (wg_idx == 0 && lane % 4 == 0) sp.lse_partial[at] = any ? m[h] + log2f(total) : -FMHA_INF;
        }
        split_merge::Group g{w.b, w.t, w.head0, w.rows_valid, w.split, row0,
                             sp.counters + (static_cast<fmha_i64>(w.b) * p.heads_kv + w.kvh) * (gridDim.x / sp.splits) + w.group_x};
        // The exchange is free: both WGs passed the last block's kBarX, and merge_last's first
        // barrier orders every read of it before the scratch is written.
        split_merge::merge_last<D, F16>(p, sp, g, reinterpret_cast<float*>(smem + HeadDim<D>::kXOffset),
                                        threadIdx.x, kConsumerThreads, kBarMerge);
        return;
    }

    // Epilogue: O's scale and the LSE with the sink (split_merge::finish_row). O goes out through
    // SMEM: the C fragment's 4-byte pieces straight to global memory were 64 scattered stores a
    // thread, a quarter of the one-block CTA's stall samples (ncu, session 12 call 3); staged, each
    // warp stores whole 512-byte row halves with 16-byte stores. The stage is this WG's half of Q
    // (only this WG's QK^T reads it, and all of those retired above), 16-byte chunks XOR-swizzled
    // by row so that neither the fragment writes nor the row reads conflict on banks.
    static_assert(S::kHalf * kRows * 2 == 32768 && S::kHalf / 8 == 32, "the stage is one 32 KiB Q half, 32 chunks a row");
    unsigned char* stage = smem + HeadDim<D>::kQOffset + wg_idx * S::kHalf * kRows * 2;
    mbar::wait_parity(bars.q_full, 0);  // with no block to multiply the consumers never waited for Q's copies
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const float total = mma_sync::quad_sum(l[h]);
        const int row = row_base + 8 * h;
        if (row >= w.rows_valid) continue;
        const int head = w.head0 + row;
        const float sink = p.sinks != nullptr ? p.sinks[head] * kLog2e : -FMHA_INF;
        const split_merge::RowEnd end = split_merge::finish_row(m[h], total, sink);
        unsigned char* stage_row = stage + row * (S::kHalf * 2) + 4 * (lane % 4);
#pragma unroll
        for (int i = 2 * h; i < S::kORegs; i += 4)
            *reinterpret_cast<unsigned*>(stage_row + (((i / 4) ^ (row % 8)) * 16)) =
                mma_sync::pack2<!F16>(o[i] * end.o_scale, o[i + 1] * end.o_scale);
        if (wg_idx == 0 && lane % 4 == 0 && p.lse != nullptr)
            p.lse[(static_cast<fmha_i64>(w.b) * p.heads + head) * p.seq_q + w.t] = end.lse;
    }
    wg::bar_sync(kBarEpilogue + wg_idx, 128);
    unsigned short* out = static_cast<unsigned short*>(p.o) + w.b * p.o_batch_stride +
                          static_cast<fmha_i64>(w.t) * p.o_seq_stride + w.head0 * p.o_head_stride + wg_idx * S::kHalf;
#pragma unroll 4
    for (int row = warp; row < w.rows_valid; row += 4) {  // a warp a row half: 32 lanes x 16 bytes
        const uint4 v = *reinterpret_cast<const uint4*>(stage + row * (S::kHalf * 2) + ((lane ^ (row % 8)) * 16));
        *reinterpret_cast<uint4*>(out + row * p.o_head_stride + lane * 8) = v;
    }
}

template <int D, bool F16>
__device__ __forceinline__ void attention(const FmhaParams& p, const GatherSplit& sp) {
    extern __shared__ unsigned char smem_raw[];
    unsigned char* smem = reinterpret_cast<unsigned char*>(
        (reinterpret_cast<unsigned long long>(smem_raw) + 1023) & ~static_cast<unsigned long long>(1023));
    const Bars bars = bars_at<D>(smem);
    int* list = reinterpret_cast<int*>(smem + HeadDim<D>::kListOffset);

    // The CTA's token, heads and key piece. grid (token x head chunk x split, KV head, batch).
    Work w;
    const int group = p.heads / p.heads_kv;
    const int chunks = (group + kRows - 1) / kRows;
    const int splits = sp.splits > 1 ? sp.splits : 1;
    w.split = blockIdx.x % splits;
    w.group_x = blockIdx.x / splits;
    w.t = w.group_x / chunks;
    w.kvh = blockIdx.y;
    w.b = blockIdx.z;
    w.head0 = w.kvh * group + (w.group_x % chunks) * kRows;
    w.rows_valid = min(kRows, group - (w.group_x % chunks) * kRows);
    w.sparse = p.topk_idx != nullptr && p.topk > 0;

    // The token's visible key range [lo, hi] (64-bit: i + off + window may pass 2^31).
    const long long diag = static_cast<long long>(w.t) + p.seq_k - p.seq_q;
    long long lo = 0, hi = static_cast<long long>(p.seq_k) - 1;
    if (p.window_left >= 0) lo = max(lo, diag - p.window_left);
    const int right = p.causal ? 0 : p.window_right;  // the host folds causal into 0 already
    if (right >= 0) hi = min(hi, diag + right);
    int range_count = hi >= lo ? static_cast<int>(hi - lo + 1) : 0;
    w.first = range_count > 0 ? static_cast<int>(lo) : 0;
    if (splits > 1 && !w.sparse) {  // pieces of whole blocks; the last ones may be short or empty
        const int per = ((range_count + splits - 1) / splits + kBlockN - 1) / kBlockN * kBlockN;
        const int skip = min(range_count, w.split * per);
        w.first += skip;
        range_count = min(per, range_count - skip);
    }
    w.count = range_count;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            mbar::init(&bars.full[s], 128);
            mbar::init(&bars.empty[s], kConsumerThreads);
        }
        mbar::init(bars.q_full, 128);
        mbar::fence_init();
    }
    __syncthreads();
    if (w.sparse) {
        // Filter this CTA's entries [e_begin, e_end) of the raw list to the keys in [lo, hi], in
        // list order (kernels/common/topk_list.cuh).
        int e_begin = 0, e_end = p.topk;
        if (splits > 1) {
            const int per = ((p.topk + splits - 1) / splits + 31) / 32 * 32;
            e_begin = min(p.topk, w.split * per);
            e_end = min(p.topk, e_begin + per);
        }
        e_end = min(e_end, e_begin + kListCap);  // the plan keeps a piece within the list (limit_reason)
        const int key_lo = range_count > 0 ? static_cast<int>(lo) : 1, key_hi = range_count > 0 ? static_cast<int>(hi) : 0;
        const int* idx = p.topk_idx + ((static_cast<fmha_i64>(w.b) * p.seq_q + w.t) * p.heads_kv + w.kvh) * p.topk;
        w.count = topk_list::compact(idx, e_begin, e_end, key_lo, key_hi, list, list + kListCounts);
    }

    // Read through a shuffle so ptxas knows the role is warp-uniform (else it serialises wgmma).
    const int warpgroup = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
    if (warpgroup == kConsumers) {
        wg::setmaxnreg_dec<kProducerRegs>();
        producer<D>(p, smem, bars, w, list);
    } else {
        wg::setmaxnreg_inc<kConsumerRegs>();
        consumer<D, F16>(p, sp, smem, bars, w, warpgroup);
    }
}

}  // namespace fmha_mqa_decode

#define FMHA_MQA_DECODE_ENTRY(DT, F16, D)                                                              \
    extern "C" __global__ void __launch_bounds__(fmha_decode_plan::kThreads, 1)                         \
        fmha_mqa_decode_##DT##_d##D(const FmhaParams p, const GatherSplit s) {                          \
        fmha_mqa_decode::attention<D, F16>(p, s);                                                        \
    }
