// mbarrier helpers (sm_90+ PTX; no toolkit headers). Generic: TMA pipelines, tcgen05.commit and
// plain producer/consumer hand-offs all use these. Addresses are generic pointers to shared memory.
#pragma once

#include "tcgen05_emu_hooks.cuh"

// `site` (default: the caller's line) names the call in strict-emulation reports; native and
// fast builds ignore it.
namespace mbar {

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread initialises; make the init visible (fence_init + a CTA barrier) before any use.
__device__ __forceinline__ void init(unsigned long long* bar, unsigned expected_arrivals,
                                     unsigned site = __builtin_LINE()) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(expected_arrivals)
                 : "memory");
#if TC5_STRICT
    tc5_strict_mbar_init(smem_addr(bar), expected_arrivals, site);
#endif
    (void)site;
}

// Orders mbarrier.init before other threads' (and the async proxy's) first use of the barrier.
__device__ __forceinline__ void fence_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void arrive(unsigned long long* bar, unsigned site = __builtin_LINE()) {
#if TC5_STRICT
    tc5_strict_mbar_arrive(smem_addr(bar), 0, site);
#endif
    (void)site;
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

// expect-tx(bytes) then arrive: the producer side of a TMA load.
__device__ __forceinline__ void arrive_expect_tx(unsigned long long* bar, unsigned bytes,
                                                 unsigned site = __builtin_LINE()) {
#if TC5_STRICT
    tc5_strict_mbar_arrive(smem_addr(bar), bytes, site);
#endif
    (void)site;
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

// True once the phase with this parity has completed (a fresh barrier: parity 1 succeeds at once).
__device__ __forceinline__ bool try_wait_parity(unsigned long long* bar, unsigned parity,
                                                unsigned site = __builtin_LINE()) {
#if TC5_STRICT
    tc5_strict_mbar_poll(smem_addr(bar), site);
#endif
    unsigned done;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
#if TC5_STRICT
    tc5_strict_mbar_observed(smem_addr(bar), done != 0, site);
#endif
    (void)site;
    return done != 0;
}

__device__ __forceinline__ void wait_parity(unsigned long long* bar, unsigned parity, unsigned site = __builtin_LINE()) {
    while (!try_wait_parity(bar, parity, site)) {
    }
}

}  // namespace mbar
