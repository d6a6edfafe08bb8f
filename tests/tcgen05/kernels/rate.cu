// Emulated MMA throughput: warp 0 of each CTA issues p.iters M=128 N=256 K=16 bf16 SS MMAs
// (K-major, 64B swizzle) into one accumulator, commits once and waits. Operands are zeros: the
// emulator's cost does not depend on the values. 128 threads per CTA.
#include "common/mbarrier.cuh"
#include "common/tcgen05.cuh"
#include "tc5_test_params.h"

using tc5::u32;
using tc5::u64;

extern "C" __global__ void __launch_bounds__(128) mma_rate(RateParams p) {
    __shared__ u32 slot;
    __shared__ __align__(8) unsigned long long done;
    __shared__ __align__(1024) unsigned char operands[128 * 64 + 256 * 64];  // A 128x32, B 256x32 bf16
    const u32 warp = threadIdx.x / 32, t = threadIdx.x % 32;
    for (u32 i = threadIdx.x; i < sizeof(operands) / 4; i += blockDim.x) reinterpret_cast<u32*>(operands)[i] = 0;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (threadIdx.x == 0) {
        mbar::init(&done, 1);
        mbar::fence_init();
    }
    if (warp == 0) tc5::alloc(&slot, 256);
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
    const u32 d_tmem = slot;
    const u32 a_addr = tc5::smem_addr(operands), b_addr = a_addr + 128 * 64;
    const u32 idesc = tc5::make_idesc(128, 256, tc5::Fmt::bf16, tc5::Fmt::bf16, tc5::DFmt::f32);
    if (warp == 0) {
        for (u32 i = 0; i < p.iters; ++i) {
            const u32 k_off = (i % 2) * 32;  // alternate the two K slices of the 64-byte swizzle row
            tc5::mma_ss(d_tmem, tc5::make_smem_desc(a_addr + k_off, 16, 512, tc5::Layout::swizzle_64b),
                        tc5::make_smem_desc(b_addr + k_off, 16, 512, tc5::Layout::swizzle_64b), idesc, i > 0);
        }
        tc5::commit(&done);
    }
    mbar::wait_parity(&done, 0);
    tc5::fence_after_thread_sync();
    u32 v[1];
    tc5::ld<tc5::Shape::k32x32b, 1>(d_tmem + tc5::tmem_addr(32 * warp, 0), v);
    tc5::wait_ld();
    if (t == 0 && warp == 0) reinterpret_cast<u32*>(p.sink)[blockIdx.x] = v[0];
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
    if (warp == 0) tc5::dealloc(d_tmem, 256);
}
