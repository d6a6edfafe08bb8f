// sm90_mqa_gather: MQA/GQA attention whose keys are gathered per query token (DeepSeek-V4:
// sparse top-k lists, the 128-key causal window, K = V, sinks, head dim up to 512), sm_90a.
//
// Why this shape of kernel:
// * In MQA/GQA every query head of a group sees the same keys for one token (one top-k list
//   per (token, KV head); window and causal depend on the token only), so the M rows of a tile
//   are the group's heads of ONE token: each gathered key row feeds up to 64 rows, and the mask
//   is one per key, the same for every row.
// * The keys are not a rectangle (a list of arbitrary rows), so no TMA box fits: every thread
//   gathers 16-byte chunks with cp.async into a ring of SMEM stages. Top-k entries are first
//   filtered (-1, out of range, causal, window) and compacted into an SMEM list, so masked
//   entries cost neither a load nor an MMA; a duplicate is gathered twice and so counts twice.
// * hd512 with mma.sync: O of 16 rows x 512 columns is 256 fp32 per thread, too many. A warp
//   owns 16 rows x at most 128 columns (64 accumulators). The tile's slice warps each multiply
//   QK^T over their own D slice and add the partial S through SMEM, all in one order: every
//   slice warp then holds the bit-identical S, so each runs the same softmax on its own and no
//   max or sum crosses warps (a warp computing the whole S itself would repeat QK^T per slice:
//   4x the QK^T MMAs and ldmatrix traffic at hd512).
// * SMEM tiles are rows of D 16-bit values with the 16-byte chunks XOR-swizzled by row % 8, so
//   the 8 row addresses of an ldmatrix phase hit 8 different bank groups.
// * Online softmax in base 2; sinks join the denominator and the LSE in the epilogue only.
// * Split-K (decode: fewer CTAs than SMs): GatherSplit.splits CTAs share one (token, head chunk),
//   each over a contiguous piece of the raw top-k list (or of the key range); each writes O / l
//   (fp32) and its base-2 LSE to the workspace, and the last to arrive (a counter per group,
//   reset by that CTA) merges them by LSE and adds the sink once.
// Requirements (fmhactl's launch path meets them): contiguous head dim, 16-byte aligned rows
// (strides multiples of 8 elements), the block and SMEM of fmhactl/plans/sm90_gather.py.
#pragma once

#include "common/cp_async.cuh"
#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/mma_sync.cuh"
#include "common/split_merge.cuh"
#include "common/topk_list.cuh"
#include "sm90/fmha_mqa_gather_plan.h"

namespace fmha_gather {

using fmha_gather_plan::kListCap;
using fmha_gather_plan::kListBytes;
using fmha_gather_plan::kListCounts;
using fmha_gather_plan::kMaxStages;
using fmha_gather_plan::kRows;

template <int D>
struct Shape {
    using Declared = fmha_gather_plan::HeadDim<D>;
    static_assert(Declared::kDeclared, "head dim not declared in fmhactl/plans/sm90_gather.py");
    static constexpr int kBlockN = Declared::kBlockN;
    static constexpr int kCols = Declared::kCols;
    static constexpr int kSlices = Declared::kSlices;
    static constexpr int kMaxThreads = Declared::kMaxThreads;
    static constexpr int kRowBytes = D * 2;
    static constexpr int kChunks = D / 8;  // 16-byte chunks per row
    static_assert(kChunks >= 8 && kBlockN % 16 == 0 && kCols % 16 == 0, "swizzle and fragment sizes");
};

using mma_sync::Mma16;

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Absent rows are zero-filled by cp_async::copy16 (common/cp_async.cuh), shared with SM100's gather.

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// wait_group takes an immediate; the stage count is a launch-time value.
__device__ __forceinline__ void cp_async_wait(int pending) {
    static_assert(kMaxStages - 2 <= 4, "cp_async_wait covers 0..4 pending groups");
    switch (pending) {
        case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
        case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
        case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
        case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
        default: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    }
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

// Byte offset of 16-byte chunk `chunk` of row `row` in a swizzled tile.
template <int D>
__device__ __forceinline__ unsigned swizzled(int row, int chunk) {
    return static_cast<unsigned>(row * Shape<D>::kRowBytes + ((chunk ^ (row & 7)) << 4));
}

// The slice warps of one M tile meet here (barrier 0 is __syncthreads).
__device__ __forceinline__ void tile_barrier(int tile, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(1 + tile), "r"(threads) : "memory");
}

using mma_sync::quad_max;
using mma_sync::quad_sum;

// Split-K epilogue: this CTA's O / l and base-2 LSE to the workspace; the last CTA of the
// (token, head chunk) to count itself in merges every split's rows by LSE, adds the sink once
// (M = max(lse_s, sink): no term overflows) and writes O and the LSE. A split that saw no key
// wrote O = 0 and -inf, so it weighs 0; a row no split saw gets O = 0 and LSE = sink or -inf.
template <int D, bool kBf16>
__device__ __forceinline__ void merge_splits(const FmhaParams& p, const GatherSplit& sp, const float (&m)[2],
                                          const float (&l)[2], const float (&acc)[Shape<D>::kCols / 8][4],
                                          unsigned char* ring, int rows_cta) {
    using S = Shape<D>;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q4 = lane % 4;
    const int tile = warp / S::kSlices, slice = warp % S::kSlices;
    const int nthreads = blockDim.x;
    // The CTA's coordinates again (as attention() derives them; recomputed, not kept live in the loop).
    const int splits = sp.splits, split = blockIdx.x % splits, group_x = blockIdx.x / splits;
    const int group = p.heads / p.heads_kv, chunks = (group + rows_cta - 1) / rows_cta;
    const int t = group_x / chunks, kvh = blockIdx.y, b = blockIdx.z;
    const int head0 = kvh * group + (group_x % chunks) * rows_cta;
    const int rows_valid = min(rows_cta, group - (group_x % chunks) * rows_cta);
    const fmha_i64 rows_all = static_cast<fmha_i64>(p.batch) * p.seq_q * p.heads;
    const fmha_i64 row0 = (static_cast<fmha_i64>(b) * p.seq_q + t) * p.heads + head0;  // workspace row of head0
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float total = quad_sum(l[r]);
        const int row = tile * kRows + g + 8 * r;
        if (row >= rows_valid) continue;
        const bool any = m[r] != -FMHA_INF && total > 0.f;
        const float inv = any ? 1.f / total : 0.f;
        const fmha_i64 at = split * rows_all + row0 + row;
        float* out = sp.o_partial + at * D + slice * S::kCols;
#pragma unroll
        for (int j = 0; j < S::kCols / 8; ++j)
            *reinterpret_cast<float2*>(out + 8 * j + 2 * q4) = make_float2(acc[j][2 * r] * inv, acc[j][2 * r + 1] * inv);
        if (slice == 0 && q4 == 0) sp.lse_partial[at] = any ? m[r] + log2f(total) : -FMHA_INF;
    }
    // The count, the fence and the merge (kernels/common/split_merge.cuh), by every thread of the
    // CTA on barrier 0; the weights go in the drained ring (cp_async_wait(0) ran before this).
    // At the 128-register cap of 512 threads (hd512) one output at a time, else four.
    split_merge::Group grp{b, t, head0, rows_valid, split, row0,
                           sp.counters + (static_cast<fmha_i64>(b) * p.heads_kv + kvh) * (gridDim.x / splits) + group_x};
    split_merge::merge_last<D, !kBf16, S::kMaxThreads >= 512 ? 1 : 4>(p, sp, grp, reinterpret_cast<float*>(ring), threadIdx.x, nthreads, 0);
}

template <int D, bool kBf16>
__device__ __forceinline__ void attention(const FmhaParams& p, const GatherSplit& sp) {
    using S = Shape<D>;
    using Mma = Mma16<kBf16>;
    constexpr int kBlockN = S::kBlockN;
    constexpr float kLog2e = 1.4426950408889634f;
    extern __shared__ __align__(128) unsigned char smem[];

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q4 = lane % 4;
    const int nthreads = blockDim.x;
    const int tiles = nthreads / (32 * S::kSlices);  // the launcher's choice: 1..kMaxTiles
    const int tile = warp / S::kSlices, slice = warp % S::kSlices;
    const int group = p.heads / p.heads_kv;
    const int rows_cta = tiles * kRows;
    const int chunks = (group + rows_cta - 1) / rows_cta;
    // grid (token * head chunks * splits, KV head, batch): the chunks of one token are
    // neighbours, so their repeated gathers of the same key rows meet in L2; the splits of one
    // (token, chunk) are neighbours too.
    const int splits = sp.splits > 1 ? sp.splits : 1;
    const int split = blockIdx.x % splits, group_x = blockIdx.x / splits;
    const int t = group_x / chunks, chunk = group_x % chunks;
    const int kvh = blockIdx.y, b = blockIdx.z;
    const int head0 = kvh * group + chunk * rows_cta;
    const int rows_valid = min(rows_cta, group - chunk * rows_cta);

    const bool sparse = p.topk_idx != nullptr && p.topk > 0;

    // SMEM: Q | partial-S exchange (slices > 1) | list + counter (top-k) | stages x (K, V).
    // Same terms as GatherPlan.smem_bytes, which sized the launch.
    const int q_bytes = rows_cta * S::kRowBytes;
    const int x_bytes = S::kSlices > 1 ? tiles * S::kSlices * kBlockN * 64 : 0;
    const int list_bytes = sparse ? kListBytes : 0;
    unsigned char* q_smem = smem;
    float4* exchange = reinterpret_cast<float4*>(smem + q_bytes) + tile * S::kSlices * (kBlockN / 8) * 32;
    int* list = reinterpret_cast<int*>(smem + q_bytes + x_bytes);
    unsigned char* ring = smem + q_bytes + x_bytes + list_bytes;
    const bool kv_shared = p.kv_shared != 0;
    const int kv_bytes = kBlockN * S::kRowBytes;
    const int stage_bytes = kv_shared ? kv_bytes : 2 * kv_bytes;
    unsigned dyn_smem;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn_smem));
    const int stages = min(kMaxStages, static_cast<int>((dyn_smem - q_bytes - x_bytes - list_bytes) / stage_bytes));

    // The token's visible key range [lo, hi] (64-bit: i + off + window may pass 2^31).
    const long long diag = static_cast<long long>(t) + p.seq_k - p.seq_q;
    long long lo = 0, hi = static_cast<long long>(p.seq_k) - 1;
    if (p.window_left >= 0) lo = max(lo, diag - p.window_left);
    const int right = p.causal ? 0 : p.window_right;  // the host folds causal into 0 already
    if (right >= 0) hi = min(hi, diag + right);
    int range_count = hi >= lo ? static_cast<int>(hi - lo + 1) : 0;
    // From here on 32-bit and out of registers where the loop does not need them (hd512 sits at
    // the 128-register cap of a 512-thread CTA): a dense launch keeps its piece [first,
    // first + range_count); a top-k launch its [lo, hi] filter and its entries [e_begin, e_end)
    // of the raw list (all of it without a split) in the list's spare words.
    int first = range_count > 0 ? static_cast<int>(lo) : 0;
    if (splits > 1 && !sparse) {  // pieces of whole blocks; the last ones may be short or empty
        const int per = ((range_count + splits - 1) / splits + kBlockN - 1) / kBlockN * kBlockN;
        const int skip = min(range_count, split * per);
        first += skip;
        range_count = min(per, range_count - skip);
    }

    const unsigned short* kbase =
        static_cast<const unsigned short*>(p.k) + b * p.k_batch_stride + kvh * p.k_head_stride;
    const unsigned short* vbase =
        static_cast<const unsigned short*>(p.v) + b * p.v_batch_stride + kvh * p.v_head_stride;

    {  // Q of the CTA's heads: its own cp.async group, complete by the first block's wait.
        const unsigned short* qbase = static_cast<const unsigned short*>(p.q) + b * p.q_batch_stride +
                                      static_cast<fmha_i64>(t) * p.q_seq_stride;
        const unsigned q_s = smem_addr(q_smem);
        for (int i = threadIdx.x; i < rows_cta * S::kChunks; i += nthreads) {
            const int r = i / S::kChunks, c = i % S::kChunks;
            const bool ok = r < rows_valid;
            const unsigned short* src = ok ? qbase + (head0 + r) * p.q_head_stride + c * 8 : qbase;
            cp_async::copy16(q_s + swizzled<D>(r, c), src, ok);
        }
        cp_async_commit();
    }

    float m[2] = {-FMHA_INF, -FMHA_INF};  // running max of the scaled scores (base 2), quad-uniform
    float l[2] = {0.f, 0.f};              // running sum, this thread's columns only
    float acc[S::kCols / 8][4];
#pragma unroll
    for (int j = 0; j < S::kCols / 8; ++j)
#pragma unroll
        for (int x = 0; x < 4; ++x) acc[j][x] = 0.f;

    const unsigned q_tile = smem_addr(q_smem) + tile * kRows * S::kRowBytes;
    const unsigned ring_s = smem_addr(ring);
    int rounds = 1;
    if (sparse) {
        int e_begin = 0, e_end = p.topk;
        if (splits > 1) {
            const int per = ((p.topk + splits - 1) / splits + 31) / 32 * 32;
            e_begin = min(p.topk, split * per);
            e_end = min(p.topk, e_begin + per);
        }
        if (threadIdx.x == 0) {  // read after the first round's __syncthreads
            list[kListCap + 1] = e_begin;
            list[kListCap + 2] = e_end;
            list[kListCap + 3] = range_count > 0 ? static_cast<int>(lo) : 1;  // empty: lo > hi
            list[kListCap + 4] = range_count > 0 ? static_cast<int>(hi) : 0;
        }
        rounds = (e_end - e_begin + kListCap - 1) / kListCap;
    }

    for (int round = 0; round < rounds; ++round) {
        int count = range_count;
        if (sparse) {
            // Filter this round's entries to the keys in [lo, hi], in list order
            // (kernels/common/topk_list.cuh).
            __syncthreads();  // the previous round's list and ring are no longer read
            const int* idx = p.topk_idx + ((static_cast<fmha_i64>(b) * p.seq_q + t) * p.heads_kv + kvh) * p.topk;
            const int begin = list[kListCap + 1] + round * kListCap, end = min(list[kListCap + 2], begin + kListCap);
            count = topk_list::compact(idx, begin, end, list[kListCap + 3], list[kListCap + 4], list, list + kListCounts);
        }
        const int nblocks = (count + kBlockN - 1) / kBlockN;

        // One cp.async group per block (empty past the last, so the wait count stays uniform).
        auto load_block = [&](int blk) {
            if (blk < nblocks) {
                const unsigned k_s = ring_s + (blk % stages) * stage_bytes;
                const unsigned v_s = k_s + kv_bytes;
                for (int i = threadIdx.x; i < kBlockN * S::kChunks; i += nthreads) {
                    const int r = i / S::kChunks, c = i % S::kChunks;
                    const int n = blk * kBlockN + r;
                    const int key = n < count ? (sparse ? list[n] : first + n) : -1;
                    const bool ok = key >= 0;
                    const fmha_i64 row = ok ? key : 0;
                    cp_async::copy16(k_s + swizzled<D>(r, c), kbase + row * p.k_seq_stride + c * 8, ok);
                    if (!kv_shared) cp_async::copy16(v_s + swizzled<D>(r, c), vbase + row * p.v_seq_stride + c * 8, ok);
                }
            }
            cp_async_commit();
        };

        for (int s = 0; s < stages - 1; ++s) load_block(s);
        for (int blk = 0; blk < nblocks; ++blk) {
            cp_async_wait(stages - 2);  // block blk (and Q) landed for this thread's copies
            __syncthreads();            // ... for every thread's; and block blk-1's stage is free
            load_block(blk + stages - 1);

            const unsigned k_s = ring_s + (blk % stages) * stage_bytes;
            const unsigned v_s = kv_shared ? k_s : k_s + kv_bytes;  // K = V: one stage serves both
            const int n_valid = min(kBlockN, count - blk * kBlockN);

            // S = Q K^T: sc[j] holds keys 8j + 2*q4 + {0,1} of rows g (0,1) and g+8 (2,3). One
            // slice: over all of D; several: over this warp's D slice, then summed across the tile.
            constexpr int kSteps = S::kSlices > 1 ? S::kCols / 16 : D / 16;
            const int kk0 = S::kSlices > 1 ? slice * kSteps : 0;
            float sc[kBlockN / 8][4];
#pragma unroll
            for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
                for (int x = 0; x < 4; ++x) sc[j][x] = 0.f;
#pragma unroll 2
            for (int i = 0; i < kSteps; ++i) {
                const int kk = kk0 + i;
                unsigned a[4];
                ldmatrix_x4(a, q_tile + swizzled<D>(lane % 16, 2 * kk + lane / 16));
#pragma unroll
                for (int np = 0; np < kBlockN / 16; ++np) {
                    const int key_row = np * 16 + (lane / 16) * 8 + lane % 8;
                    unsigned kb[4];
                    ldmatrix_x4(kb, k_s + swizzled<D>(key_row, 2 * kk + (lane / 8) % 2));
                    Mma::mma(sc[2 * np], a, kb[0], kb[1]);
                    Mma::mma(sc[2 * np + 1], a, kb[2], kb[3]);
                }
            }
            if constexpr (S::kSlices > 1) {
                // Every lane's fragment positions are the same in each slice warp: the partials
                // add element by element. The previous block's reads of `exchange` ended before
                // this iteration's __syncthreads.
#pragma unroll
                for (int j = 0; j < kBlockN / 8; ++j)
                    exchange[(slice * (kBlockN / 8) + j) * 32 + lane] = make_float4(sc[j][0], sc[j][1], sc[j][2], sc[j][3]);
                tile_barrier(tile, 32 * S::kSlices);
#pragma unroll
                for (int j = 0; j < kBlockN / 8; ++j) {
                    float4 sum = exchange[j * 32 + lane];
#pragma unroll
                    for (int s = 1; s < S::kSlices; ++s) {
                        const float4 part = exchange[(s * (kBlockN / 8) + j) * 32 + lane];
                        sum.x += part.x;
                        sum.y += part.y;
                        sum.z += part.z;
                        sum.w += part.w;
                    }
                    sc[j][0] = sum.x;
                    sc[j][1] = sum.y;
                    sc[j][2] = sum.z;
                    sc[j][3] = sum.w;
                }
            }

            // Online softmax (base 2). Every row of the CTA shares the mask: key n_valid.. are
            // the zero-filled tail of the last block.
            float pr[kBlockN / 8][4];
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                float block_max = -FMHA_INF;
#pragma unroll
                for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
                    for (int x = 0; x < 2; ++x) {
                        const int col = 8 * j + 2 * q4 + x;
                        const float v = col < n_valid ? sc[j][2 * r + x] * p.scale_log2 : -FMHA_INF;
                        sc[j][2 * r + x] = v;
                        block_max = fmaxf(block_max, v);
                    }
                const float rescale = mma_sync::softmax_row_step(sc, pr, r, block_max, m[r], l[r]);
#pragma unroll
                for (int j = 0; j < S::kCols / 8; ++j) {
                    acc[j][2 * r] *= rescale;
                    acc[j][2 * r + 1] *= rescale;
                }
            }

            // O += P V over this warp's columns; P is the A fragment straight from S's layout.
            const int col0 = slice * S::kCols;
#pragma unroll
            for (int kk = 0; kk < kBlockN / 16; ++kk) {
                const unsigned a[4] = {Mma::pack(pr[2 * kk][0], pr[2 * kk][1]), Mma::pack(pr[2 * kk][2], pr[2 * kk][3]),
                                       Mma::pack(pr[2 * kk + 1][0], pr[2 * kk + 1][1]),
                                       Mma::pack(pr[2 * kk + 1][2], pr[2 * kk + 1][3])};
                const int key_row = kk * 16 + lane % 8 + ((lane / 8) % 2) * 8;
#pragma unroll
                for (int dp = 0; dp < S::kCols / 16; ++dp) {
                    unsigned vb[4];
                    ldmatrix_x4_trans(vb, v_s + swizzled<D>(key_row, col0 / 8 + 2 * dp + lane / 16));
                    Mma::mma(acc[2 * dp], a, vb[0], vb[1]);
                    Mma::mma(acc[2 * dp + 1], a, vb[2], vb[3]);
                }
            }
        }
    }
    cp_async_wait(0);  // nothing may be in flight into SMEM at exit (empty groups, or Q of a keyless row)
    if (sp.splits > 1) {
        merge_splits<D, kBf16>(p, sp, m, l, acc, ring, rows_cta);
        return;
    }

    // Epilogue: O's scale and the LSE with the sink (split_merge::finish_row).
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float total = quad_sum(l[r]);
        const int row = tile * kRows + g + 8 * r;
        if (row >= rows_valid) continue;
        const int h = head0 + row;
        const float sink = p.sinks != nullptr ? p.sinks[h] * kLog2e : -FMHA_INF;
        const split_merge::RowEnd end = split_merge::finish_row(m[r], total, sink);
        const float o_scale = end.o_scale, lse = end.lse;
        unsigned short* out = static_cast<unsigned short*>(p.o) + b * p.o_batch_stride +
                              static_cast<fmha_i64>(t) * p.o_seq_stride + h * p.o_head_stride + slice * S::kCols;
#pragma unroll
        for (int j = 0; j < S::kCols / 8; ++j) {
            *reinterpret_cast<unsigned*>(out + 8 * j + 2 * q4) =
                Mma::pack(acc[j][2 * r] * o_scale, acc[j][2 * r + 1] * o_scale);
        }
        if (slice == 0 && q4 == 0 && p.lse != nullptr) {
            p.lse[(static_cast<fmha_i64>(b) * p.heads + h) * p.seq_q + t] = lse;
        }
    }
}

}  // namespace fmha_gather

#define FMHA_MQA_GATHER_ENTRY(DT, BF16, D)                                                            \
    extern "C" __global__ void __launch_bounds__(fmha_gather::Shape<D>::kMaxThreads, 1)             \
        fmha_mqa_gather_##DT##_d##D(const FmhaParams p, const GatherSplit s) {                                           \
        fmha_gather::attention<D, BF16>(p, s);                                                           \
    }
