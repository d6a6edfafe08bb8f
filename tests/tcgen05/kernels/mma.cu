// MMA micro-kernels: copy host-built shared-memory images of A and B (or A's TMEM words for TS),
// issue k_steps tcgen05.mma (accumulating after the first), commit to an mbarrier, wait, and dump
// every lane's D columns. The host compares with torch matmul. 128 threads, one CTA.
#include "common/mbarrier.cuh"
#include "common/tcgen05.cuh"
#include "tc5_test_params.h"

using tc5::Shape;
using tc5::u32;
using tc5::u64;

constexpr u32 kATmemCol = 256;  // A (TS) lives in columns 256..; D in 0..255
constexpr u32 kDSentinel = 0xFFFFFFFFu;

__device__ __forceinline__ u32 round_up(u32 x, u32 a) { return (x + a - 1) / a * a; }

__device__ __forceinline__ void copy_to_smem(unsigned char* dst, const unsigned char* src, u32 bytes) {
    const uint4* s = reinterpret_cast<const uint4*>(src);
    uint4* d = reinterpret_cast<uint4*>(dst);
    for (u32 i = threadIdx.x; i < bytes / 16; i += blockDim.x) d[i] = s[i];
}

template <tc5::Kind K>
__device__ __forceinline__ void mma_test(const MmaTestParams& p) {
    extern __shared__ unsigned char smem_raw[];
    __shared__ u32 taddr_slot;
    __shared__ __align__(8) unsigned long long mma_done;
    const u32 warp = threadIdx.x / 32, t = threadIdx.x % 32;

    // Operand images start on a 1024-byte boundary so that absolute and relative swizzle agree.
    const u32 raw = tc5::smem_addr(smem_raw);
    unsigned char* a_smem = smem_raw + (round_up(raw, 1024) - raw);
    unsigned char* b_smem = a_smem + round_up(p.a_bytes, 1024);
    if (!p.ts) copy_to_smem(a_smem, reinterpret_cast<const unsigned char*>(p.a_image), p.a_bytes);
    copy_to_smem(b_smem, reinterpret_cast<const unsigned char*>(p.b_image), p.b_bytes);
    // Generic-proxy writes read next by the tensor core (async proxy).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (threadIdx.x == 0) {
        mbar::init(&mma_done, 1);
        mbar::fence_init();
    }
    if (warp == 0) {
        tc5::alloc(&taddr_slot, 512);
        tc5::relinquish_alloc_permit();
    }
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
    const u32 base = taddr_slot;

    // Every lane of D's columns gets a sentinel first: lanes the MMA must not touch keep it, and
    // enable-input-D = false must not read it.
    for (u32 c = 0; c < p.n; c += 8) {
        u32 v[8];
#pragma unroll
        for (u32 j = 0; j < 8; ++j) v[j] = kDSentinel;
        tc5::st<Shape::k32x32b, 8>(base + tc5::tmem_addr(32 * warp, c), v);
    }
    if (p.ts) {
        const u32* a_words = reinterpret_cast<const u32*>(p.a_tmem);
        for (u32 c = 0; c < p.a_cols; c += 8) {
            u32 v[8];
#pragma unroll
            for (u32 j = 0; j < 8; ++j) v[j] = a_words[(32 * warp + t) * p.a_cols + c + j];
            tc5::st<Shape::k32x32b, 8>(base + tc5::tmem_addr(32 * warp, kATmemCol + c), v);
        }
    }
    tc5::wait_st();
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();

    if (warp == 0) {
        const u32 d_tmem = base + tc5::tmem_addr(p.d_lane0, 0);
        const u32 a_base = tc5::smem_addr(a_smem) >> 4, b_base = tc5::smem_addr(b_smem) >> 4;
        for (u32 s = 0; s < p.k_steps; ++s) {
            const u64 b_desc = p.b_desc[s] + b_base;
            if (p.ts) {
                tc5::mma_ts<K>(d_tmem, base + tc5::tmem_addr(p.d_lane0, kATmemCol + 8 * s), b_desc, p.idesc, s > 0);
            } else {
                tc5::mma_ss<K>(d_tmem, p.a_desc[s] + a_base, b_desc, p.idesc, s > 0);
            }
        }
        tc5::commit(&mma_done);
    }
    mbar::wait_parity(&mma_done, 0);
    tc5::fence_after_thread_sync();

    u32* out = reinterpret_cast<u32*>(p.d_out);
    for (u32 c = 0; c < p.n; c += 8) {
        u32 v[8];
        tc5::ld<Shape::k32x32b, 8>(base + tc5::tmem_addr(32 * warp, c), v);
        tc5::wait_ld();
#pragma unroll
        for (u32 j = 0; j < 8; ++j) out[(32 * warp + t) * p.n + c + j] = v[j];
    }
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
    if (warp == 0) tc5::dealloc(base, 512);
}

extern "C" __global__ void __launch_bounds__(128) mma_f16(MmaTestParams p) { mma_test<tc5::Kind::f16>(p); }
extern "C" __global__ void __launch_bounds__(128) mma_tf32(MmaTestParams p) { mma_test<tc5::Kind::tf32>(p); }
