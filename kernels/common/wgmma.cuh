// Hopper warpgroup helpers (sm_90a): wgmma fences and groups, register reallocation, named
// barriers, and the 128B-swizzled operand descriptors the SM90 FMHA family uses.
#pragma once

#include "common/sw128.cuh"
#include "common/wgmma_desc.h"
#include "common/wgmma_ops.cuh"

namespace wg {

// Orders this thread's register writes (accumulators, A fragments) before the next wgmma reads them.
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Keeps the compiler from moving accumulator reads/writes across wgmma issue/wait points.
template <int R>
__device__ __forceinline__ void fence_regs(float (&r)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int R>
__device__ __forceinline__ void fence_regs(unsigned (&r)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

// Named barriers (ids 1..15; 0 is __syncthreads). Counts are threads and multiples of 32.
__device__ __forceinline__ void bar_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// K-major operand in the TMA 128B-swizzle tile layout (kernels/common/sw128.cuh): rows of
// 128 B, 8-row groups 1024 B apart (SBO); LBO is unused for swizzled K-major and set to 16 B.
// `rows` is the tile's row count (the stride between its 64-element atom columns is rows*128 B).
__device__ __forceinline__ unsigned long long kmajor_desc(const void* tile, unsigned row0, unsigned k0,
                                                          unsigned rows) {
    const unsigned addr = smem_u32(tile) + row0 * 128 + sw128::kmajor_k_offset(k0, rows);
    return wgmma_desc::encode(addr, 16, sw128::kAtomBytes, wgmma_desc::kLayoutSw128);
}

// MN-major operand (V: keys x head dim, head dim contiguous) in the same TMA tile layout: the
// K direction (keys) steps 128 B per row with 8-row groups 1024 B apart (SBO); the MN direction
// (head dim) steps to the next 64-element atom column, rows*128 B away (LBO).
__device__ __forceinline__ unsigned long long mnmajor_desc(const void* tile, unsigned key0, unsigned rows) {
    const unsigned addr = smem_u32(tile) + key0 * 128;
    return wgmma_desc::encode(addr, rows * 128, sw128::kAtomBytes, wgmma_desc::kLayoutSw128);
}

}  // namespace wg
