// Raw inline tcgen05 PTX for one CTA of 4 warps, as a kernel engineer writes it by hand (no tc5::,
// no CUTLASS): K-major no-swizzle operands, their SMEM descriptors, an elected thread's f16/bf16
// MMA and commit to an mbarrier, the parity wait, a 64-column TMEM row load and the fences around
// __syncthreads. Shared by the raw-PTX scaffold (fmhactl/project/templates/sm100_raw_ptx.cu, which
// `fmhactl init` copies into a project) and the PTX path's test tile (tests/ptx/kernels/raw_attn.cu).
#pragma once

#include "desc_fields.gen.h"

typedef unsigned int u32;
typedef unsigned long long u64;

// Byte offset of element (row, k) of a K-major operand with 64 K-elements per row.
__device__ __forceinline__ u32 kmajor_offset(u32 row, u32 k) {
    return (row % 8) * 16 + (k % 8) * 2 + (k / 8) * 128 + (row / 8) * 1024;
}

// The canonical K-major no-swizzle descriptor: LBO 128 B along K, SBO 1024 B along rows. Field
// positions from the generated table (desc_fields.gen.h, declared in fmhactl/plans/tcgen05_abi.py).
__device__ __forceinline__ u64 smem_desc(u32 start) {
    return ((u64)((start & 0x3FFFF) >> FMH_SMEM_DESC_START_UNIT_SHIFT) << FMH_SMEM_DESC_START_LO) |
           ((u64)(128 >> FMH_SMEM_DESC_LBO_UNIT_SHIFT) << FMH_SMEM_DESC_LBO_LO) |
           ((u64)(1024 >> FMH_SMEM_DESC_SBO_UNIT_SHIFT) << FMH_SMEM_DESC_SBO_LO) |
           ((u64)FMH_SMEM_DESC_FIXED_46_48_FIXED << FMH_SMEM_DESC_FIXED_46_48_LO);
}

__device__ __forceinline__ u32 smem_u32(const void* p) { return (u32)__cvta_generic_to_shared(p); }

__device__ __forceinline__ bool elect_one() {
    u32 elected;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(elected));
    return elected != 0;
}

__device__ __forceinline__ void mma_16bit(u32 d_tmem, u64 a, u64 b, u32 idesc, u32 accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n"
                 ::"r"(d_tmem), "l"(a), "l"(b), "r"(idesc), "r"(accumulate) : "memory");
}

__device__ __forceinline__ void commit(u32 bar) {
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void wait_parity(u32 bar, u32 parity) {
    u32 done = 0;
    while (!done) {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}

// 64 consecutive columns of this thread's TMEM lane.
__device__ __forceinline__ void ld_row64(u32 taddr, float* v) {
    u32 r[64];
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        u32* h = r + 32 * half;
        asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                     "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
                     "%30, %31}, [%32];"
                     : "=r"(h[0]), "=r"(h[1]), "=r"(h[2]), "=r"(h[3]), "=r"(h[4]), "=r"(h[5]), "=r"(h[6]),
                       "=r"(h[7]), "=r"(h[8]), "=r"(h[9]), "=r"(h[10]), "=r"(h[11]), "=r"(h[12]), "=r"(h[13]),
                       "=r"(h[14]), "=r"(h[15]), "=r"(h[16]), "=r"(h[17]), "=r"(h[18]), "=r"(h[19]),
                       "=r"(h[20]), "=r"(h[21]), "=r"(h[22]), "=r"(h[23]), "=r"(h[24]), "=r"(h[25]),
                       "=r"(h[26]), "=r"(h[27]), "=r"(h[28]), "=r"(h[29]), "=r"(h[30]), "=r"(h[31])
                     : "r"(taddr + 32 * half));
    }
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 64; ++i) v[i] = __uint_as_float(r[i]);
}

__device__ __forceinline__ void sync_tcgen05() {
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}
