// The portable reference FMHA (sm_80+). Correct first, simple on purpose: it is the yardstick
// the tcgen05 family is debugged against, so every line should be easy to believe.
//
// CTA = FMHA_BLOCK_M query rows of one (batch, head); 4 warps, each owning BLOCK_M/4 rows.
// Per KV tile of 32 keys: lane j scores key j for each of its warp's rows (so the row max and
// sum are one warp reduction each), then lanes switch to owning head-dim columns to
// accumulate P.V, with P passed through shared memory.
#pragma once

#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "ref/fmha_ref_plan.h"  // generated from fmhactl/plans/ref.py: defaults, threads, K row padding

#ifndef FMHA_SELFTEST_HOOK
#define FMHA_SELFTEST_HOOK(p)
#endif

namespace fmha_ref {

constexpr int kWarps = FMHA_REF_THREADS / 32;
constexpr int kRowsPerWarp = FMHA_BLOCK_M / kWarps;
constexpr int kColsPerLane = FMHA_REF_MAX_HEAD_DIM / 32;
static_assert(FMHA_BLOCK_N == 32, "the scoring phase gives each lane exactly one key");
static_assert(FMHA_BLOCK_M % kWarps == 0, "rows must split evenly over the warps");

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
    return x;
}

__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
}

template <class Traits>
__device__ __forceinline__ void attention(const FmhaParams& p) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int D = p.head_dim;
    // K rows are padded by one 32-bit word so that 32 lanes reading 32 different keys at the
    // same d fall in 32 different banks.
    const int k_row = D + FMHA_REF_K_ROW_PAD;
    float* q_s = reinterpret_cast<float*>(smem_raw);
    unsigned short* k_s = reinterpret_cast<unsigned short*>(q_s + FMHA_BLOCK_M * D);
    unsigned short* v_s = k_s + FMHA_BLOCK_N * k_row;
    float* p_s = reinterpret_cast<float*>(v_s + FMHA_BLOCK_N * D);

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int m0 = blockIdx.x * FMHA_BLOCK_M;
    const int h = blockIdx.y;
    const int b = blockIdx.z;
    const int h_kv = h / (p.heads / p.heads_kv);

    const unsigned short* q = static_cast<const unsigned short*>(p.q) + b * p.q_batch_stride + h * p.q_head_stride;
    const unsigned short* k = static_cast<const unsigned short*>(p.k) + b * p.k_batch_stride + h_kv * p.k_head_stride;
    const unsigned short* v = static_cast<const unsigned short*>(p.v) + b * p.v_batch_stride + h_kv * p.v_head_stride;
    unsigned short* o = static_cast<unsigned short*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride;

    // Q is kept in fp32, pre-multiplied by scale*log2(e) so the softmax can use exp2.
    for (int i = tid; i < FMHA_BLOCK_M * D; i += FMHA_REF_THREADS) {
        const int r = i / D, d = i % D, row = m0 + r;
        q_s[i] = row < p.seq_q ? Traits::to_float(q[row * p.q_seq_stride + d]) * p.scale_log2 : 0.f;
    }

    const int diagonal = p.seq_k - p.seq_q;
    int n_end = p.seq_k;
    if (p.causal) {
        const int last_row = min(m0 + FMHA_BLOCK_M, p.seq_q) - 1;
        n_end = min(p.seq_k, max(0, last_row + diagonal + 1));
    }

    float row_max[kRowsPerWarp], row_sum[kRowsPerWarp], acc[kRowsPerWarp][kColsPerLane];
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
        row_max[r] = -FMHA_INF;
        row_sum[r] = 0.f;
#pragma unroll
        for (int c = 0; c < kColsPerLane; ++c) acc[r][c] = 0.f;
    }

    for (int n0 = 0; n0 < n_end; n0 += FMHA_BLOCK_N) {
        __syncthreads();  // the previous tile's K/V are no longer read
        for (int i = tid; i < FMHA_BLOCK_N * D; i += FMHA_REF_THREADS) {
            const int j = i / D, d = i % D, key = n0 + j;
            unsigned short kx = 0, vx = 0;
            if (key < p.seq_k) {
                kx = k[key * p.k_seq_stride + d];
                vx = v[key * p.v_seq_stride + d];
            }
            k_s[j * k_row + d] = kx;
            v_s[j * D + d] = vx;
        }
        __syncthreads();

#pragma unroll
        for (int r = 0; r < kRowsPerWarp; ++r) {
            const int local_row = warp * kRowsPerWarp + r;
            const int row = m0 + local_row;
            if (row >= p.seq_q) continue;  // warp-uniform

            const int key = n0 + lane;
            const float* q_row = q_s + local_row * D;
            const unsigned short* k_key = k_s + lane * k_row;
            float score = 0.f;
            for (int d = 0; d < D; d += 2) {
                const unsigned pair = *reinterpret_cast<const unsigned*>(k_key + d);
                score += q_row[d] * Traits::to_float(pair & 0xffffu) + q_row[d + 1] * Traits::to_float(pair >> 16);
            }
            const bool visible = key < p.seq_k && (!p.causal || key <= row + diagonal);
            score = visible ? score : -FMHA_INF;

            const float new_max = fmaxf(row_max[r], warp_max(score));
            const float prob = visible ? exp2f(score - new_max) : 0.f;
            const float rescale = row_max[r] == -FMHA_INF ? 0.f : exp2f(row_max[r] - new_max);
            row_sum[r] = row_sum[r] * rescale + warp_sum(prob);
            row_max[r] = new_max;
            p_s[local_row * FMHA_BLOCK_N + lane] = prob;
            __syncwarp();

#pragma unroll
            for (int c = 0; c < kColsPerLane; ++c) acc[r][c] *= rescale;
            for (int j = 0; j < FMHA_BLOCK_N; ++j) {
                const float pj = p_s[local_row * FMHA_BLOCK_N + j];
#pragma unroll
                for (int c = 0; c < kColsPerLane; ++c) {
                    const int d = lane + 32 * c;
                    if (32 * c < D && d < D) acc[r][c] += pj * Traits::to_float(v_s[j * D + d]);
                }
            }
            __syncwarp();  // p_s row is rewritten next tile
        }
    }

#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
        const int row = m0 + warp * kRowsPerWarp + r;
        if (row >= p.seq_q) continue;
        // A row that sees no key (causal with seq_q > seq_k) outputs 0 and LSE = -inf.
        const float inv = row_sum[r] > 0.f ? 1.f / row_sum[r] : 0.f;
#pragma unroll
        for (int c = 0; c < kColsPerLane; ++c) {
            const int d = lane + 32 * c;
            if (d < D) o[row * p.o_seq_stride + d] = Traits::from_float(acc[r][c] * inv);
        }
        if (lane == 0 && p.lse != nullptr) {
            const float lse = row_sum[r] > 0.f ? (row_max[r] + log2f(row_sum[r])) * 0.69314718055994531f : -FMHA_INF;
            p.lse[(static_cast<fmha_i64>(b) * p.heads + h) * p.seq_q + row] = lse;
        }
    }
}

}  // namespace fmha_ref

extern "C" __global__ void __launch_bounds__(FMHA_REF_THREADS) fmha_ref_bf16(const FmhaParams p) {
    FMHA_SELFTEST_HOOK(p);
    fmha_ref::attention<BF16Traits>(p);
}

extern "C" __global__ void __launch_bounds__(FMHA_REF_THREADS) fmha_ref_f16(const FmhaParams p) {
    FMHA_SELFTEST_HOOK(p);
    fmha_ref::attention<F16Traits>(p);
}
