// 16-bit storage types and conversions written with PTX, so kernels need no toolkit headers
// and compile under NVRTC on a machine that has only the pip NVRTC wheel.
#pragma once

typedef unsigned short fmha_bf16;
typedef unsigned short fmha_f16;

__device__ __forceinline__ float fmha_bf16_to_float(fmha_bf16 x) {
    return __uint_as_float(static_cast<unsigned>(x) << 16);
}

__device__ __forceinline__ fmha_bf16 fmha_float_to_bf16(float x) {
    unsigned short r;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float fmha_f16_to_float(fmha_f16 x) {
    float r;
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(x));
    return r;
}

__device__ __forceinline__ fmha_f16 fmha_float_to_f16(float x) {
    unsigned short r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x));
    return r;
}

struct BF16Traits {
    static __device__ __forceinline__ float to_float(unsigned short x) { return fmha_bf16_to_float(x); }
    static __device__ __forceinline__ unsigned short from_float(float x) { return fmha_float_to_bf16(x); }
};

struct F16Traits {
    static __device__ __forceinline__ float to_float(unsigned short x) { return fmha_f16_to_float(x); }
    static __device__ __forceinline__ unsigned short from_float(float x) { return fmha_float_to_f16(x); }
};

// NVRTC without toolkit headers has no INFINITY macro.
#define FMHA_INF __int_as_float(0x7f800000)
