// ld/st agreement micro-kernels: for every tcgen05.ld/st shape, .num and pack, one kernel that
// reads a known TMEM pattern (ld_*) and one that stores known registers (st_*). The host compares
// the per-(thread, register) results with the layout model (fmhactl/layout/tmem.py).
#include "common/tcgen05.cuh"
#include "tc5_test_params.h"

using tc5::Shape;
using tc5::u32;

__device__ __forceinline__ u32 pattern(u32 lane, u32 col) { return (0xC0DEu << 16) | (lane << 9) | col; }

// Register value thread (warp, t) stores to r[i]: both 16-bit halves distinct across the CTA.
__device__ __forceinline__ u32 reg_value(u32 warp, u32 t, u32 i) {
    const u32 lo = ((warp * 32 + t) << 7) | i;
    return lo | ((lo | 0x4000u) << 16);
}

__device__ __forceinline__ void fill_warp_quarter(u32 base, u32 warp, u32 value_sentinel, bool use_pattern) {
    const u32 t = threadIdx.x % 32;
    for (u32 chunk = 0; chunk < 512 / 32; ++chunk) {
        u32 v[32];
#pragma unroll
        for (u32 j = 0; j < 32; ++j) v[j] = use_pattern ? pattern(32 * warp + t, 32 * chunk + j) : value_sentinel;
        tc5::st<Shape::k32x32b, 32>(base + tc5::tmem_addr(32 * warp, 32 * chunk), v);
    }
    tc5::wait_st();
}

template <Shape S, int Num, bool Pack>
__device__ __forceinline__ void ldst_body(const LdStParams& p, bool store_direction) {
    __shared__ u32 taddr_slot;
    const u32 warp = threadIdx.x / 32, t = threadIdx.x % 32;
    if (warp == 0) {
        tc5::alloc(&taddr_slot, 512);
        tc5::relinquish_alloc_permit();
    }
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
    const u32 base = taddr_slot;
    const bool half_lanes = S != Shape::k32x32b && S != Shape::k16x32bx2;
    const u32 lane_base = 32 * warp + ((half_lanes && (warp & 1)) ? 16 : 0);
    const u32 taddr = base + tc5::tmem_addr(lane_base, p.col_base);
    u32* out = reinterpret_cast<u32*>(p.out);
    u32 r[tc5::regs<S, Num>()];
    if (!store_direction) {
        fill_warp_quarter(base, warp, 0, true);
        tc5::ld<S, Num, Pack>(taddr, r);
        tc5::wait_ld();
#pragma unroll
        for (int i = 0; i < tc5::regs<S, Num>(); ++i) out[(warp * 32 + t) * 128 + i] = r[i];
    } else {
        fill_warp_quarter(base, warp, 0xDEADBEEFu, false);
#pragma unroll
        for (int i = 0; i < tc5::regs<S, Num>(); ++i) r[i] = reg_value(warp, t, i);
        tc5::st<S, Num, Pack>(taddr, r);
        tc5::wait_st();
        for (u32 chunk = 0; chunk < 512 / 32; ++chunk) {
            u32 v[32];
            tc5::ld<Shape::k32x32b, 32>(base + tc5::tmem_addr(32 * warp, 32 * chunk), v);
            tc5::wait_ld();
#pragma unroll
            for (u32 j = 0; j < 32; ++j) out[(32 * warp + t) * 512 + 32 * chunk + j] = v[j];
        }
    }
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
    if (warp == 0) tc5::dealloc(base, 512);
}

#define TC5T_LDST(NAME, SHAPE, NUM)                                                                              \
    extern "C" __global__ void __launch_bounds__(128) ld_##NAME##_x##NUM(LdStParams p) {                          \
        ldst_body<SHAPE, NUM, false>(p, false);                                                                   \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(128) ld_##NAME##_x##NUM##_pack(LdStParams p) {                   \
        ldst_body<SHAPE, NUM, true>(p, false);                                                                    \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(128) st_##NAME##_x##NUM(LdStParams p) {                          \
        ldst_body<SHAPE, NUM, false>(p, true);                                                                    \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(128) st_##NAME##_x##NUM##_pack(LdStParams p) {                   \
        ldst_body<SHAPE, NUM, true>(p, true);                                                                     \
    }

#define TC5T_LDST_UP_TO_32(NAME, SHAPE) \
    TC5T_LDST(NAME, SHAPE, 1)           \
    TC5T_LDST(NAME, SHAPE, 2)           \
    TC5T_LDST(NAME, SHAPE, 4)           \
    TC5T_LDST(NAME, SHAPE, 8)           \
    TC5T_LDST(NAME, SHAPE, 16)          \
    TC5T_LDST(NAME, SHAPE, 32)

#ifndef TC5T_LDST_SHAPE_SET
#define TC5T_LDST_SHAPE_SET 0
#endif

// The kernels are split over shape sets (-DTC5T_LDST_SHAPE_SET=0..4) to keep each compile short.
#if TC5T_LDST_SHAPE_SET == 0
TC5T_LDST_UP_TO_32(32x32b, Shape::k32x32b)
TC5T_LDST(32x32b, Shape::k32x32b, 64)
TC5T_LDST(32x32b, Shape::k32x32b, 128)
#elif TC5T_LDST_SHAPE_SET == 1
TC5T_LDST_UP_TO_32(16x64b, Shape::k16x64b)
TC5T_LDST(16x64b, Shape::k16x64b, 64)
TC5T_LDST(16x64b, Shape::k16x64b, 128)
#elif TC5T_LDST_SHAPE_SET == 2
TC5T_LDST_UP_TO_32(16x128b, Shape::k16x128b)
TC5T_LDST(16x128b, Shape::k16x128b, 64)
#elif TC5T_LDST_SHAPE_SET == 3
TC5T_LDST_UP_TO_32(16x256b, Shape::k16x256b)
#else
TC5T_LDST_UP_TO_32(16x32bx2, Shape::k16x32bx2)
TC5T_LDST(16x32bx2, Shape::k16x32bx2, 64)
TC5T_LDST(16x32bx2, Shape::k16x32bx2, 128)
#endif
