// Deliberately wrong kernels, one per conformance error (p.which = TC5_ERR_*), plus p.which = 0:
// a correct kernel that must report nothing. 128 threads per CTA; any grid.
#include "common/mbarrier.cuh"
#include "common/tcgen05.cuh"
#include "tc5_test_params.h"

using tc5::Fmt;
using tc5::Layout;
using tc5::Shape;
using tc5::u32;
using tc5::u64;

__device__ __forceinline__ void cta_sync() {
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
}

extern "C" __global__ void __launch_bounds__(128) violate(ConformanceParams p) {
    __shared__ u32 slot[2];
    __shared__ __align__(8) unsigned long long done;
    __shared__ __align__(1024) unsigned char operands[2 * 4096];
    const u32 warp = threadIdx.x / 32, t = threadIdx.x % 32;
    u32* scratch = reinterpret_cast<u32*>(p.scratch);
    for (u32 i = threadIdx.x; i < sizeof(operands) / 4; i += blockDim.x) reinterpret_cast<u32*>(operands)[i] = 0;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (threadIdx.x == 0) {
        mbar::init(&done, 1);
        mbar::fence_init();
    }
    __syncthreads();

    const u32 a_addr = tc5::smem_addr(operands), b_addr = a_addr + 4096;
    const u32 idesc = tc5::make_idesc(128, 32, Fmt::bf16, Fmt::bf16, tc5::DFmt::f32);
    // K-major, no swizzle, 128 rows x 16 K of bf16: core matrices 8 rows x 16 B, K chunks 2 KiB apart.
    const u64 a_desc = tc5::make_smem_desc(a_addr, 2048, 128, Layout::none);
    const u64 b_desc = tc5::make_smem_desc(b_addr, 512, 128, Layout::none);

    switch (p.which) {
        case 0: {  // correct: alloc, st/ld round trip, one MMA, commit, read D, dealloc
            if (warp == 0) tc5::alloc(&slot[0], 64);
            cta_sync();
            const u32 base = slot[0];
            u32 v[8];
            for (u32 j = 0; j < 8; ++j) v[j] = 32 * warp + t + j;
            tc5::st<Shape::k32x32b, 8>(base + tc5::tmem_addr(32 * warp, 32), v);
            tc5::wait_st();
            tc5::ld<Shape::k32x32b, 8>(base + tc5::tmem_addr(32 * warp, 32), v);
            tc5::wait_ld();
            scratch[threadIdx.x] = v[7];
            if (warp == 0) {
                tc5::mma_ss(base, a_desc, b_desc, idesc, false);
                tc5::commit(&done);
            }
            mbar::wait_parity(&done, 0);
            tc5::fence_after_thread_sync();
            u32 d[32];
            tc5::ld<Shape::k32x32b, 32>(base + tc5::tmem_addr(32 * warp, 0), d);
            tc5::wait_ld();
            scratch[128 + threadIdx.x] = d[31];
            cta_sync();
            if (warp == 0) tc5::dealloc(base, 64);
            break;
        }
        case TC5_ERR_LANE_QUARTER: {  // warp 1 reads lanes 0-31, which belong to warp 0
            if (warp == 0) tc5::alloc(&slot[0], 32);
            cta_sync();
            u32 v[1] = {t};
            if (warp == 0) tc5::st<Shape::k32x32b, 1>(slot[0], v);
            tc5::wait_st();
            cta_sync();
            if (warp == 1) {
                tc5::ld<Shape::k32x32b, 1>(slot[0], v);
                tc5::wait_ld();
                scratch[t] = v[0];
            }
            cta_sync();
            if (warp == 0) tc5::dealloc(slot[0], 32);
            break;
        }
        case TC5_ERR_ALLOC_COLUMNS: {
            if (warp == 0) tc5::alloc(&slot[0], 48);
            cta_sync();
            if (warp == 0) tc5::dealloc(slot[0], 64);
            break;
        }
        case TC5_ERR_ALLOC_INCREASING: {
            if (warp == 0) {
                tc5::alloc(&slot[0], 32);
                tc5::alloc(&slot[1], 64);
                tc5::dealloc(slot[0], 32);
                tc5::dealloc(slot[1], 64);
            }
            break;
        }
        case TC5_ERR_ALLOC_AFTER_RELINQUISH: {
            if (warp == 0) {
                tc5::alloc(&slot[0], 32);
                tc5::relinquish_alloc_permit();
                tc5::alloc(&slot[1], 32);
                tc5::dealloc(slot[0], 32);
                tc5::dealloc(slot[1], 32);
            }
            break;
        }
        case TC5_ERR_ALLOC_EXHAUSTED: {
            if (warp == 0) {
                tc5::alloc(&slot[0], 512);
                tc5::alloc(&slot[1], 256);
                tc5::dealloc(slot[0], 512);
            }
            break;
        }
        case TC5_ERR_DEALLOC_UNKNOWN: {
            if (warp == 0) {
                tc5::alloc(&slot[0], 64);
                tc5::dealloc(slot[0] + 32, 32);
                tc5::dealloc(slot[0], 64);
            }
            break;
        }
        case TC5_ERR_UNALLOCATED_COLUMNS: {  // 32 columns allocated, column 64 written
            if (warp == 0) tc5::alloc(&slot[0], 32);
            cta_sync();
            u32 v[1] = {t};
            tc5::st<Shape::k32x32b, 1>(slot[0] + tc5::tmem_addr(32 * warp, 64), v);
            tc5::wait_st();
            cta_sync();
            if (warp == 0) tc5::dealloc(slot[0], 32);
            break;
        }
        case TC5_ERR_ALLOC_LIVE_AT_EXIT: {
            if (warp == 0) tc5::alloc(&slot[0], 32);
            break;
        }
        case TC5_ERR_UNWRITTEN_READ: {
            if (warp == 0) tc5::alloc(&slot[0], 32);
            cta_sync();
            u32 v[2];
            tc5::ld<Shape::k32x32b, 2>(slot[0] + tc5::tmem_addr(32 * warp, 0), v);
            tc5::wait_ld();
            scratch[threadIdx.x] = v[0] + v[1];
            cta_sync();
            if (warp == 0) tc5::dealloc(slot[0], 32);
            break;
        }
        case TC5_ERR_TMEM_OUT_OF_RANGE: {  // columns 496..527: past the end of TMEM
            if (warp == 0) tc5::alloc(&slot[0], 512);
            cta_sync();
            u32 v[32];
            for (u32 j = 0; j < 32; ++j) v[j] = j;
            tc5::st<Shape::k32x32b, 32>(slot[0] + tc5::tmem_addr(32 * warp, 496), v);
            tc5::wait_st();
            cta_sync();
            if (warp == 0) tc5::dealloc(slot[0], 512);
            break;
        }
        default: {  // the MMA-argument errors: one MMA with one thing wrong
            if (warp == 0) tc5::alloc(&slot[0], 256);
            cta_sync();
            u32 d_tmem = slot[0];
            u64 ad = a_desc, bd = b_desc;
            u32 id = idesc;
            if (p.which == TC5_ERR_DESC_FIXED_BITS) ad &= ~(1ull << 46);
            if (p.which == TC5_ERR_DESC_BASE_OFFSET) bd |= 1ull << 49;
            if (p.which == TC5_ERR_DESC_MISALIGNED)  // 128B swizzle, K slice at +112 B crosses the row
                ad = tc5::make_smem_desc(a_addr + 112, 16, 1024, Layout::swizzle_128b);
            if (p.which == TC5_ERR_MMA_SHAPE) id = tc5::make_idesc(96, 32, Fmt::bf16, Fmt::bf16, tc5::DFmt::f32);
            if (p.which == TC5_ERR_IDESC_INVALID) id = tc5::make_idesc(128, 32, Fmt::f16, Fmt::bf16, tc5::DFmt::f32);
            if (p.which == TC5_ERR_MMA_TMEM_ADDRESS) d_tmem += tc5::tmem_addr(16, 0);
            if (warp == 0) {
                tc5::mma_ss(d_tmem, ad, bd, id, false);
                tc5::commit(&done);
            }
            mbar::wait_parity(&done, 0);
            cta_sync();
            if (warp == 0) tc5::dealloc(slot[0], 256);
            break;
        }
    }
}
