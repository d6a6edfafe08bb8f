// 16-byte cp.async (sm_80+) global -> shared copies for gathering rows that no TMA box describes
// (top-k key lists). Generic-proxy writes: a consumer that reads the SMEM through the async proxy
// (tcgen05.mma, wgmma) needs cp_async_wait_all() and then tma::fence_proxy_async_shared() by every
// copying thread before the release (mbarrier arrive) that hands the tile over.
// Strict emulation (tcgen05_emu_hooks.cuh) tracks each warp's copies until a wait retires them:
// an MMA that reads their bytes before is cp-async-not-waited (docs/emulation-strict.md).
#pragma once

#include "sw128.cuh"
#include "tcgen05_emu_hooks.cuh"

namespace cp_async {

// src_bytes 0 zero-fills the 16 bytes without reading: rows of absent keys must be zeros, not
// stale or uninitialised SMEM (0 * NaN would poison O through P = 0). `src` must still be a
// valid global address.
__device__ __forceinline__ void copy16(unsigned smem_dst, const void* src, bool valid,
                                       unsigned site = __builtin_LINE()) {
#if TC5_STRICT
    tc5_strict_cp_async(smem_dst, 16, site);
#endif
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_dst), "l"(src), "r"(valid ? 16 : 0)
                 : "memory");
}

// Every cp.async this thread issued has landed in SMEM.
__device__ __forceinline__ void wait_all(unsigned site = __builtin_LINE()) {
    asm volatile("cp.async.wait_all;" ::: "memory");
#if TC5_STRICT
    tc5_strict_cp_wait(0, true, site);
#endif
}

// Ring pipelines: close this thread's copies issued since the last commit into one group (an empty
// group is fine: it keeps the group count in step with the ring's stages).
__device__ __forceinline__ void commit(unsigned site = __builtin_LINE()) {
    asm volatile("cp.async.commit_group;" ::: "memory");
#if TC5_STRICT
    tc5_strict_cp_commit(site);
#endif
}

// All but this thread's N most recent groups have landed. Other lanes' copies are visible to this
// one only after each has waited and a barrier (__syncwarp for a warp's own ring) follows.
template <int N>
__device__ __forceinline__ void wait_group(unsigned site = __builtin_LINE()) {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#if TC5_STRICT
    tc5_strict_cp_wait(N, false, site);
#endif
}

// One warp gathers `Rows` listed rows (Rows a multiple of 32) of a (seq, Cols) slice into the SW128
// tile that a TMA box of the same rows would produce (sw128::offset): row r of the tile is source
// row keys[r / 32] of lane r % 32, or zeros where that key is < 0; columns at or past `valid_cols`
// (a head dim padded up to the entry's) are zeros too. Each lane issues its chunks with cp.async;
// the caller waits (wait_all) and fences before handing the tile to the async proxy.
template <int Cols, int Rows>
__device__ __forceinline__ void gather_rows_sw128(unsigned smem_dst, const unsigned short* src, long long row_stride,
                                                  const int (&keys)[Rows / 32], int valid_cols, int lane,
                                                  unsigned site = __builtin_LINE()) {
    static_assert(Rows % 32 == 0 && Cols % 64 == 0, "whole 32-row groups, whole SW128 atom columns");
    constexpr int kChunks = Cols / 8;  // 16-byte chunks per row
    constexpr int kLanesPerRow = kChunks < 32 ? kChunks : 32;
    constexpr int kRowsPerStep = 32 / kLanesPerRow;
#pragma unroll
    for (int m = 0; m < Rows / 32; ++m) {
        for (int r0 = 0; r0 < 32; r0 += kRowsPerStep) {
            const int r = r0 + lane / kLanesPerRow;
            const int key = __shfl_sync(0xffffffffu, keys[m], r);
            const unsigned short* src_row = src + static_cast<long long>(key < 0 ? 0 : key) * row_stride;
            for (int c = (lane % kLanesPerRow) * 8; c < Cols; c += kLanesPerRow * 8)
                copy16(smem_dst + sw128::offset(32 * m + r, c, Rows), src_row + c, key >= 0 && c < valid_cols, site);
        }
    }
}

}  // namespace cp_async
