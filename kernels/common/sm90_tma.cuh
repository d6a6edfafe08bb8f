// TMA pieces the SM90 family adds to kernels/common/tma.cuh: the tile store of the epilogue and
// its bulk-group bookkeeping.
#pragma once

#include "common/tma.cuh"

namespace tma {

// 4-D tile store from 128B-swizzled shared memory; rows past the tensor's extent are clipped
// by the hardware, so partial query tiles need no special case.
__device__ __forceinline__ void store_4d(const TmaMap* map, const void* smem_src, int c0, int c1, int c2, int c3) {
    const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(smem_src));
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

__device__ __forceinline__ void store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Waits until the stores no longer read shared memory (the CTA may then exit or reuse it).
__device__ __forceinline__ void store_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

}  // namespace tma
