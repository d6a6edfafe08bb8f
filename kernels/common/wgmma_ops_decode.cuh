// GENERATED from fmhactl/plans/wgmma_ops.py by `python -m fmhactl.plans --write`; do not edit.
// sm90_mqa_decode's extra shapes (fmhactl/plans/sm90_decode.py), beside wgmma_ops.cuh's.
// Warpgroup MMA wrappers (sm_90a):
//   wgmma_ss_n<N>_<dt>(d, desc_a, desc_b, accumulate)   D(64xN,f32) (+)= A(64x16,SMEM) * B(16xN,SMEM)
//   wgmma_rs_n<N>_<dt>(d, a, desc_b, accumulate)        A from 4 registers of packed 16-bit pairs
// SS: both operands K-major (tnspA = tnspB = 0). RS: B is MN-major (tnspB = 1): V with the head
// dim contiguous. Accumulator register i of thread t holds row 16*(t/32) + (t%32)/4 + 8*((i/2)%2),
// column 8*(i/4) + 2*(t%4) + i%2 (the layout the softmax code indexes).
#pragma once

__device__ __forceinline__ void wgmma_ss_n32_bf16(float (&d)[16], unsigned long long desc_a,
                                                 unsigned long long desc_b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

__device__ __forceinline__ void wgmma_ss_n32_f16(float (&d)[16], unsigned long long desc_a,
                                                 unsigned long long desc_b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

template <int N, bool F16> struct WgmmaSS;
template <int N, bool F16> struct WgmmaRS;
template <> struct WgmmaSS<32, false> {
    static __device__ __forceinline__ void run(float (&d)[16], unsigned long long a, unsigned long long b, int acc) { wgmma_ss_n32_bf16(d, a, b, acc); }
};
template <> struct WgmmaSS<32, true> {
    static __device__ __forceinline__ void run(float (&d)[16], unsigned long long a, unsigned long long b, int acc) { wgmma_ss_n32_f16(d, a, b, acc); }
};
