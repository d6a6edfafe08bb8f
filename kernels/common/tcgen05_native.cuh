// Native tcgen05 backend (sm_100a): inline PTX, included by tcgen05.cuh only.
// Issue-type instructions (mma, commit) run on one elected lane: PTX gives them single-thread
// semantics, and an unguarded warp-wide issue would be 32 MMAs (spec §3.1).
#pragma once

namespace tc5 {
namespace native {

// One lane of the (fully converged) warp returns true.
__device__ __forceinline__ bool elect_one() {
    u32 elected;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "elect.sync _|p, 0xffffffff;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(elected));
    return elected != 0;
}

__device__ __forceinline__ void alloc(u32 dst_smem, u32 ncols, u32) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem), "r"(ncols)
                 : "memory");
}

__device__ __forceinline__ void dealloc(u32 taddr, u32 ncols, u32) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

__device__ __forceinline__ void relinquish_alloc_permit(u32) {
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}

// One MMA issue; A is "%1" (descriptor, SS form) or "[%1]" (TMEM address, TS form).
#define TC5_MMA_ASM(KIND, A)                                                                 \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\ntcgen05.mma.cta_group::1.kind::" KIND " [%0], " A \
    ", %2, %3, p;\n}\n"

template <Kind K>
__device__ __forceinline__ void mma_ss(u32 d_tmem, u64 a_desc, u64 b_desc, u32 idesc, bool accumulate, u32) {
    const u32 enable_d = accumulate;
    if (elect_one()) {
        if (K == Kind::f16) {
            asm volatile(TC5_MMA_ASM("f16", "%1") ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(enable_d)
                         : "memory");
        } else {
            asm volatile(TC5_MMA_ASM("tf32", "%1") ::"r"(d_tmem), "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(enable_d)
                         : "memory");
        }
    }
    __syncwarp();
}

template <Kind K>
__device__ __forceinline__ void mma_ts(u32 d_tmem, u32 a_tmem, u64 b_desc, u32 idesc, bool accumulate, u32) {
    const u32 enable_d = accumulate;
    if (elect_one()) {
        if (K == Kind::f16) {
            asm volatile(TC5_MMA_ASM("f16", "[%1]") ::"r"(d_tmem), "r"(a_tmem), "l"(b_desc), "r"(idesc), "r"(enable_d)
                         : "memory");
        } else {
            asm volatile(TC5_MMA_ASM("tf32", "[%1]") ::"r"(d_tmem), "r"(a_tmem), "l"(b_desc), "r"(idesc), "r"(enable_d)
                         : "memory");
        }
    }
    __syncwarp();
}

#undef TC5_MMA_ASM

// The commit must come from the lane that issued the MMAs: it tracks that thread's async ops.
// elect.sync picks the same lane again for the same full mask (it elects the lowest active lane).
__device__ __forceinline__ void commit(u32 mbar_smem, u32) {
    if (elect_one()) {
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(mbar_smem)
                     : "memory");
    }
    __syncwarp();
}

}  // namespace native
}  // namespace tc5

#include "tcgen05_native_ldst.cuh"

namespace tc5 {
namespace native {

template <Shape S, int Num, bool Pack, int Imm>
__device__ __forceinline__ void ld(u32 taddr, u32* r, u32) {
    LdSt<S, Num, Pack>::template ld<Imm>(taddr, r);
}

template <Shape S, int Num, bool Pack, int Imm>
__device__ __forceinline__ void st(u32 taddr, const u32* r, u32) {
    LdSt<S, Num, Pack>::template st<Imm>(taddr, r);
}

__device__ __forceinline__ void wait_ld(u32) { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait_st(u32) { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void fence_before_thread_sync(u32) {
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void fence_after_thread_sync(u32) {
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

}  // namespace native
}  // namespace tc5
