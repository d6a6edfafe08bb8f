// mma.sync m16n8k16 (16-bit A/B, fp32 accumulators) and the reductions over the four lanes that
// hold one row of its C fragment: the SM90 kernels that use mma.sync instead of wgmma (the op's
// split-KV decode, sm90_mqa_gather) share them. wgmma needs a 64-row warpgroup tile; these kernels
// gather per-token key sets or pack a few query rows, so a warp-sized 16-row tile fits them better.
#pragma once

#include "common/dtypes.cuh"

namespace mma_sync {

// (lo, hi) -> one register of two 16-bit values, lo in the low half: the lower k (or column) index
// of a fragment pair (an mma.sync or wgmma A fragment, or two adjacent outputs).
template <bool kBf16>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
    unsigned r;
    if constexpr (kBf16) {
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    } else {
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    }
    return r;
}

template <bool kBf16>
struct Mma16 {
    static __device__ __forceinline__ void mma(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                               unsigned b0, unsigned b1) {
        if constexpr (kBf16) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                         "{%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        } else {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                         "{%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
    }
    static __device__ __forceinline__ void mma(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
        mma(c, a[0], a[1], a[2], a[3], b0, b1);
    }
    static __device__ __forceinline__ unsigned pack(float lo, float hi) { return pack2<kBf16>(lo, hi); }
};

// Lanes 4g..4g+3 hold row g of a C fragment (and row g + 8): reduce over them.
__device__ __forceinline__ float quad_max(float x) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
    return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}

__device__ __forceinline__ float quad_sum(float x) {
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// One row half (r: row g or g + 8) of an online-softmax step in base 2, over S fragments already
// scaled and masked (-inf) whose largest value on this lane is block_max: updates the running max
// m and sum l, writes P = 2^(s - max) (the next PV's A fragment), returns the factor the O
// accumulators of this row must be multiplied by.
template <int kFrags>
__device__ __forceinline__ float softmax_row_step(const float (&sc)[kFrags][4], float (&pr)[kFrags][4], int r,
                                                  float block_max, float& m, float& l) {
    const float new_max = fmaxf(m, quad_max(block_max));
    const float ref = new_max == -FMHA_INF ? 0.f : new_max;  // no key yet: keep exp2 finite
    const float rescale = exp2f(m - ref);                     // m = -inf -> 0
    m = new_max;
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < kFrags; ++i)
#pragma unroll
        for (int x = 0; x < 2; ++x) {
            const float e = exp2f(sc[i][2 * r + x] - ref);
            pr[i][2 * r + x] = e;
            sum += e;
        }
    l = l * rescale + sum;
    return rescale;
}

}  // namespace mma_sync
