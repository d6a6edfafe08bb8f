// Thread-block clusters (sm_90+): a CTA's rank, the cluster-wide barrier, and loads from a peer
// CTA's SMEM (distributed shared memory). A cluster's CTAs are co-scheduled by the hardware (one
// GPC), so a CTA may wait at the cluster barrier for its peers without risking a deadlock, unlike
// a spin on a global flag written by CTAs that may not be resident yet.
#pragma once

namespace cluster {

__device__ __forceinline__ unsigned rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// Every thread of every CTA of the cluster arrives (release: its SMEM and global writes before it
// are visible to the peers at cluster scope) and waits for all (acquire). .aligned: every thread
// of the warp executes it, on the same path.
__device__ __forceinline__ void sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The shared::cluster address of `smem_addr` (a shared::cta address in this CTA's window) in the
// SMEM of the cluster's CTA `target_rank`: the same offset, the peer's copy.
__device__ __forceinline__ unsigned peer_address(unsigned smem_addr, unsigned target_rank) {
    unsigned out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(smem_addr), "r"(target_rank));
    return out;
}

__device__ __forceinline__ float load_f32(unsigned cluster_addr) {
    float x;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(x) : "r"(cluster_addr) : "memory");
    return x;
}

__device__ __forceinline__ float4 load_f32x4(unsigned cluster_addr) {
    float4 x;
    asm volatile("ld.shared::cluster.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(x.x), "=f"(x.y), "=f"(x.z), "=f"(x.w)
                 : "r"(cluster_addr)
                 : "memory");
    return x;
}

}  // namespace cluster
