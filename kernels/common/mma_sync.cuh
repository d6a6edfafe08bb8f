// mma.sync m16n8k16 (16-bit A/B, fp32 accumulators) and the reductions over the four lanes that
// hold one row of its C fragment: the SM90 kernels that use mma.sync instead of wgmma (the op's
// split-KV decode, sm90_mqa_gather) share them. wgmma needs a 64-row warpgroup tile; these kernels
// gather per-token key sets or pack a few query rows, so a warp-sized 16-row tile fits them better.
#pragma once

namespace mma_sync {

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
    // (lo, hi) -> one register, lo in the low half: the lower k (or column) index of a fragment pair.
    static __device__ __forceinline__ unsigned pack(float lo, float hi) {
        unsigned r;
        if constexpr (kBf16) {
            asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
        } else {
            asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
        }
        return r;
    }
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

}  // namespace mma_sync
