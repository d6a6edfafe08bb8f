// TMA tile loads (cp.async.bulk.tensor, sm_90+) completing on an mbarrier. The tensor map is a
// 128-byte opaque object built on the host (fmhactl/runtime/tma_maps.py) and passed by value as
// a __grid_constant__ kernel parameter, so its generic address is valid for the tensormap proxy.
#pragma once

#include "tcgen05_emu_hooks.cuh"

struct alignas(64) TmaMap {
    unsigned long long opaque[16];
};

namespace tma {

// 4-D tile load: coordinates innermost first (element units), destination 1024-B aligned for
// the 128B swizzle.
// `site` (default: the caller's line) names the load in strict-emulation reports.
__device__ __forceinline__ void load_4d(void* smem_dst, const TmaMap* map, unsigned long long* bar, int c0, int c1,
                                        int c2, int c3, unsigned site = __builtin_LINE()) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
    const unsigned mbar = static_cast<unsigned>(__cvta_generic_to_shared(bar));
#if TC5_STRICT
    tc5_strict_tma_load(dst, mbar, site);
#endif
    (void)site;
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];"
        ::"r"(dst), "l"(reinterpret_cast<unsigned long long>(map)), "r"(mbar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
        : "memory");
}

// Generic-proxy shared-memory writes become visible to the async proxy (tensor cores, TMA).
__device__ __forceinline__ void fence_proxy_async_shared(unsigned site = __builtin_LINE()) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#if TC5_STRICT
    tc5_strict_fence_proxy_async(site);
#endif
    (void)site;
}

}  // namespace tma
