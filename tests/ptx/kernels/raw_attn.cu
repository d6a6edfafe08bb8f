// One attention tile written the seeds' way: raw inline tcgen05 PTX, no tc5::, no CUTLASS.
// 128 queries x 64 keys, head dim 64, f16 in, f32 out, one CTA of 4 warps (warp w owns rows
// 32w..32w+31 = TMEM lanes of its quarter). Shared memory holds Q, K and V^T in the canonical
// K-major no-swizzle layout (8x16-byte core matrices; LBO 128 B along K, SBO 1024 B along rows);
// S = Q K^T and O = P V are 4 MMAs each (M=128, N=64, K=16), issued by one elected thread and
// committed to an mbarrier. Only sm_100a: on Hopper it runs through `fmhactl ptx` (tests/ptx).
//
// Q is reused for P once S is complete (the commit's arrive says the MMAs read it).
//
// RAW_CP_ASYNC_K (raw_attn_cp_async.cu): K lands by cp.async instead of generic stores, one
// 16-byte copy per 8 halves of a key row (a core matrix row is 16 contiguous bytes), one group
// per thread, waited before the proxy fence: until its wait_group retires it, no one may read K.

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 1000

#include "common/raw_tcgen05.cuh"

#define RAW_T 128
#define RAW_S 64
#define RAW_D 64

typedef unsigned short f16;  // raw bits; conversions in PTX (no toolkit headers under NVRTC)

__device__ __forceinline__ f16 to_f16(float x) {
    f16 r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float from_f16(f16 x) {
    float r;
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(x));
    return r;
}

extern "C" __global__ void __launch_bounds__(128, 1)
raw_attn(const f16* __restrict__ q, const f16* __restrict__ k, const f16* __restrict__ v,
         float* __restrict__ o, float scale) {
    __shared__ __align__(1024) unsigned char qp[RAW_T * RAW_D * 2];  // Q, later P
    __shared__ __align__(1024) unsigned char ks[RAW_S * RAW_D * 2];
    __shared__ __align__(1024) unsigned char vt[RAW_D * RAW_S * 2];  // V^T: row d, K = key
    __shared__ __align__(8) u64 bar;
    __shared__ u32 tmem_base;
    const u32 tid = threadIdx.x, warp = tid / 32;
    const u32 bar_addr = smem_u32(&bar);

    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smem_u32(&tmem_base))
                     : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    for (u32 i = tid; i < RAW_T * RAW_D; i += 128) {
        const u32 row = i / RAW_D, col = i % RAW_D;
        *reinterpret_cast<f16*>(qp + kmajor_offset(row, col)) = q[i];
    }
#if RAW_CP_ASYNC_K
    for (u32 c = tid; c < RAW_S * RAW_D / 8; c += 128) {
        const u32 key = c / (RAW_D / 8), d = c % (RAW_D / 8) * 8;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(ks + kmajor_offset(key, d))),
                     "l"(k + key * RAW_D + d)
                     : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
    for (u32 i = tid; i < RAW_S * RAW_D; i += 128) {
        const u32 key = i / RAW_D, d = i % RAW_D;
#if !RAW_CP_ASYNC_K
        *reinterpret_cast<f16*>(ks + kmajor_offset(key, d)) = k[i];
#endif
        *reinterpret_cast<f16*>(vt + kmajor_offset(d, key)) = v[i];
    }
#if RAW_CP_ASYNC_K
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> MMA (async proxy)
    sync_tcgen05();
    const u32 tmem = tmem_base;
    const u32 idesc = (1u << 4) | ((u32)(RAW_S >> 3) << 17) | ((u32)(128 >> 4) << 24);  // f16 x f16 -> f32, N=64

    if (warp == 0) {  // S = Q K^T into columns 0..63
        if (elect_one()) {
            for (u32 kk = 0; kk < RAW_D / 16; ++kk)
                mma_16bit(tmem, smem_desc(smem_u32(qp) + kk * 256), smem_desc(smem_u32(ks) + kk * 256), idesc, kk > 0);
            commit(bar_addr);
        }
        __syncwarp();
    }
    wait_parity(bar_addr, 0);
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

    const u32 row = tid;  // this thread's query row = TMEM lane
    const u32 lane_addr = tmem + ((32 * warp) << 16);
    float s[RAW_S];
    ld_row64(lane_addr, s);
    float m = __int_as_float(0xff800000);  // -inf
    for (int j = 0; j < RAW_S; ++j) m = fmaxf(m, s[j] * scale);
    float l = 0.f;
    for (int j = 0; j < RAW_S; ++j) {
        const f16 p = to_f16(__expf(s[j] * scale - m));
        l += from_f16(p);
        *reinterpret_cast<f16*>(qp + kmajor_offset(row, j)) = p;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    sync_tcgen05();

    if (warp == 0) {  // O = P V into columns 64..127
        if (elect_one()) {
            for (u32 kk = 0; kk < RAW_S / 16; ++kk)
                mma_16bit(tmem + 64, smem_desc(smem_u32(qp) + kk * 256), smem_desc(smem_u32(vt) + kk * 256), idesc,
                        kk > 0);
            commit(bar_addr);
        }
        __syncwarp();
    }
    wait_parity(bar_addr, 1);
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    float out[RAW_D];
    ld_row64(lane_addr + 64, out);
    for (int d = 0; d < RAW_D; ++d) o[row * RAW_D + d] = out[d] / l;

    sync_tcgen05();
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem) : "memory");
    }
}
#endif
