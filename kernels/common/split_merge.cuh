// The LSE arithmetic of the SM90 gather kernels (sm90_mqa_gather, sm90_mqa_decode): an unsplit
// row's end with the sink (finish_row), and the split-K (flash-decoding) merge for kernels whose second argument is GatherSplit
// (fmhactl/plans/sm90_gather.py): every split CTA of a (token, head chunk) has stored its rows'
// O / l (fp32) and base-2 LSE in the workspace; the last of them to count itself in merges the
// splits by LSE, adds the sink once (M = max(lse_s, sink): no term overflows) and writes O and the
// LSE. A split that saw no key wrote O = 0 and -inf (weight 0); a row no split saw gets O = 0 and
// LSE = sink or -inf.
//
// Memory order: the caller's threads stored their partials before the first barrier here; thread
// 0's atom.acq_rel.gpu then releases them (cumulative over what the barrier ordered before it) and
// acquires the other splits' partials, released the same way, for every reader after the second
// barrier. One fence for the CTA, not one per warp.
#pragma once

#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/mma_sync.cuh"
#include "sm90/fmha_mqa_gather_plan.h"  // GatherSplit (declared in fmhactl/plans/sm90_gather.py)

namespace split_merge {

__device__ __forceinline__ void bar_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// An unsplit row's end (the same rule merge_last applies across splits): O's scale and the LSE
// (natural log) of a row whose keys gave running max m and sum total (base 2), with the sink's
// logit (base 2, -inf: none) in the denominator only: l * 2^(m - M) + 2^(sink - M), M = max(m,
// sink), so neither term overflows; a row with no key gets O = 0 and LSE = sink (or -inf).
struct RowEnd {
    float o_scale, lse;
};
__device__ __forceinline__ RowEnd finish_row(float m, float total, float sink) {
    constexpr float kLn2 = 0.69314718055994531f;
    const float top = fmaxf(m, sink);
    RowEnd end{0.f, -FMHA_INF};
    if (top != -FMHA_INF) {
        const float f = m == -FMHA_INF ? 0.f : exp2f(m - top);
        const float den = total * f + (sink == -FMHA_INF ? 0.f : exp2f(sink - top));
        end.o_scale = f / den;
        end.lse = (top + log2f(den)) * kLn2;
    }
    return end;
}

// Where a split CTA's rows live: workspace row `row0 + r` of split `split` is head `head0 + r` of
// token t of batch b.
struct Group {
    int b, t, head0, rows_valid, split;
    long long row0;         // (b * seq_q + t) * heads + head0
    unsigned* counter;      // this (token, head chunk)'s merge counter
};

// Run by `threads` threads (index `tid`, named barrier `bar` among exactly them). `scratch`: SMEM
// for rows x splits floats and one int, free to overwrite. Returns after the merge (or at once in
// every CTA but the last).
//
// The merge is one CTA reading splits x rows x D fp32 from L2 (hd512, 64 heads: 128 KiB a
// split), so its time is the number of dependent L2 round trips: every load a thread needs for
// a step is issued before any is used (the split LSEs all at once into SMEM; kItems outputs x
// kBatch splits of O in flight), never one round trip per split or per row. kItems x kBatch
// float4 live at once: a caller at a tight register cap passes fewer items.
template <int D, bool F16, int kItems = 4>
__device__ __forceinline__ void merge_last(const FmhaParams& p, const GatherSplit& sp, const Group& g, float* scratch,
                                           int tid, int threads, int bar) {
    constexpr float kLog2e = 1.4426950408889634f;
    constexpr float kLn2 = 0.69314718055994531f;
    const int splits = sp.splits;
    int* last = reinterpret_cast<int*>(scratch);
    float* weights = scratch + 4;  // rows x splits: the splits' LSEs, then their weights
    bar_sync(bar, threads);  // every thread's partial stored; the scratch is no longer read
    if (tid == 0) {
        unsigned arrived;
        asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(arrived) : "l"(g.counter) : "memory");
        *last = arrived == static_cast<unsigned>(splits - 1);
        if (*last) *g.counter = 0u;  // every split has arrived: nobody else touches it this launch
    }
    bar_sync(bar, threads);
    if (!*last) return;

    const fmha_i64 rows_all = static_cast<fmha_i64>(p.batch) * p.seq_q * p.heads;
    constexpr int kLseBatch = 4;
    const int entries = g.rows_valid * splits;  // entry e: row e / splits, split e % splits
    for (int e0 = tid; e0 < entries; e0 += kLseBatch * threads) {
        float x[kLseBatch];
#pragma unroll
        for (int u = 0; u < kLseBatch; ++u) {
            const int e = e0 + u * threads;
            x[u] = e < entries ? __ldcg(sp.lse_partial + (e % splits) * rows_all + g.row0 + e / splits) : 0.f;
        }
#pragma unroll
        for (int u = 0; u < kLseBatch; ++u)
            if (e0 + u * threads < entries) weights[e0 + u * threads] = x[u];
    }
    bar_sync(bar, threads);
    for (int row = tid; row < g.rows_valid; row += threads) {
        const int h = g.head0 + row;
        float* w = weights + row * splits;
        const float sink = p.sinks != nullptr ? p.sinks[h] * kLog2e : -FMHA_INF;
        float top = sink;
        for (int s = 0; s < splits; ++s) top = fmaxf(top, w[s]);
        float den = 0.f;
        for (int s = 0; s < splits; ++s) {
            w[s] = top == -FMHA_INF ? 0.f : exp2f(w[s] - top);
            den += w[s];
        }
        if (sink != -FMHA_INF) den += exp2f(sink - top);
        const float inv = top == -FMHA_INF ? 0.f : 1.f / den;
        for (int s = 0; s < splits; ++s) w[s] *= inv;
        if (p.lse != nullptr)
            p.lse[(static_cast<fmha_i64>(g.b) * p.heads + h) * p.seq_q + g.t] =
                top == -FMHA_INF ? -FMHA_INF : (top + log2f(den)) * kLn2;
    }
    bar_sync(bar, threads);
    constexpr int kQuads = D / 4;  // 4 columns (one float4 of each split) per output
    constexpr int kBatch = 4;      // splits of each of kItems outputs (threads apart) loaded before any is used
    const float4* part = reinterpret_cast<const float4*>(sp.o_partial + g.row0 * D);
    const fmha_i64 split_stride = rows_all * kQuads;
    const int outputs = g.rows_valid * kQuads;
    for (int i0 = tid; i0 < outputs; i0 += kItems * threads) {
        float4 o[kItems];
#pragma unroll
        for (int k = 0; k < kItems; ++k) o[k] = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int s0 = 0; s0 < splits; s0 += kBatch) {
            float4 x[kItems][kBatch];
#pragma unroll
            for (int k = 0; k < kItems; ++k) {
                const int i = i0 + k * threads;
#pragma unroll
                for (int u = 0; u < kBatch; ++u)
                    x[k][u] = i < outputs && s0 + u < splits ? __ldcg(part + (s0 + u) * split_stride + i)
                                                             : make_float4(0.f, 0.f, 0.f, 0.f);
            }
#pragma unroll
            for (int k = 0; k < kItems; ++k) {
                const int i = i0 + k * threads;
                const int row = i < outputs ? i / kQuads : 0;
#pragma unroll
                for (int u = 0; u < kBatch; ++u) {
                    const float w = i < outputs && s0 + u < splits ? weights[row * splits + s0 + u] : 0.f;
                    o[k].x += w * x[k][u].x;
                    o[k].y += w * x[k][u].y;
                    o[k].z += w * x[k][u].z;
                    o[k].w += w * x[k][u].w;
                }
            }
        }
#pragma unroll
        for (int k = 0; k < kItems; ++k) {
            const int i = i0 + k * threads;
            if (i >= outputs) continue;
            const int row = i / kQuads, c4 = i % kQuads;
            unsigned short* out = static_cast<unsigned short*>(p.o) + g.b * p.o_batch_stride +
                                  static_cast<fmha_i64>(g.t) * p.o_seq_stride + (g.head0 + row) * p.o_head_stride + 4 * c4;
            *reinterpret_cast<uint2*>(out) = make_uint2(mma_sync::pack2<!F16>(o[k].x, o[k].y), mma_sync::pack2<!F16>(o[k].z, o[k].w));
        }
    }
}

}  // namespace split_merge
