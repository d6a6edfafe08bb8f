// One attention tile written the seeds' way: raw inline tcgen05 PTX, no tc5::, no CUTLASS.
// 128 queries x 64 keys, head dim 64, f16 in, f32 out, one CTA of 4 warps (warp w owns rows
// 32w..32w+31 = TMEM lanes of its quarter). Shared memory holds Q, K and V^T in the canonical
// K-major no-swizzle layout (8x16-byte core matrices; LBO 128 B along K, SBO 1024 B along rows);
// S = Q K^T and O = P V are 4 MMAs each (M=128, N=64, K=16), issued by one elected thread and
// committed to an mbarrier. Only sm_100a: on Hopper it runs through `fmhactl ptx` (tests/ptx).
//
// Q is reused for P once S is complete (the commit's arrive says the MMAs read it).

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 1000

#define RAW_T 128
#define RAW_S 64
#define RAW_D 64

typedef unsigned int u32;
typedef unsigned long long u64;

// Byte offset of element (row, k) of a K-major operand with 64 K-elements per row.
__device__ __forceinline__ u32 kmajor_offset(u32 row, u32 k) {
    return (row % 8) * 16 + (k % 8) * 2 + (k / 8) * 128 + (row / 8) * 1024;
}

__device__ __forceinline__ u64 smem_desc(u32 start) {
    return (u64)((start & 0x3FFFF) >> 4) | ((u64)(128 >> 4) << 16) | ((u64)(1024 >> 4) << 32) | (1ull << 46);
}

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

__device__ __forceinline__ u32 smem_u32(const void* p) { return (u32)__cvta_generic_to_shared(p); }

__device__ __forceinline__ bool elect_one() {
    u32 elected;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(elected));
    return elected != 0;
}

__device__ __forceinline__ void mma_f16(u32 d_tmem, u64 a, u64 b, u32 idesc, u32 accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n"
                 ::"r"(d_tmem), "l"(a), "l"(b), "r"(idesc), "r"(accumulate) : "memory");
}

__device__ __forceinline__ void wait_parity(u32 bar, u32 parity) {
    u32 done = 0;
    while (!done) {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}

// 64 consecutive columns of this thread's TMEM lane.
__device__ __forceinline__ void ld_row64(u32 taddr, float* v) {
    u32 r[64];
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        u32* h = r + 32 * half;
        asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
                     "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
                     "%30, %31}, [%32];"
                     : "=r"(h[0]), "=r"(h[1]), "=r"(h[2]), "=r"(h[3]), "=r"(h[4]), "=r"(h[5]), "=r"(h[6]),
                       "=r"(h[7]), "=r"(h[8]), "=r"(h[9]), "=r"(h[10]), "=r"(h[11]), "=r"(h[12]), "=r"(h[13]),
                       "=r"(h[14]), "=r"(h[15]), "=r"(h[16]), "=r"(h[17]), "=r"(h[18]), "=r"(h[19]),
                       "=r"(h[20]), "=r"(h[21]), "=r"(h[22]), "=r"(h[23]), "=r"(h[24]), "=r"(h[25]),
                       "=r"(h[26]), "=r"(h[27]), "=r"(h[28]), "=r"(h[29]), "=r"(h[30]), "=r"(h[31])
                     : "r"(taddr + 32 * half));
    }
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 64; ++i) v[i] = __uint_as_float(r[i]);
}

__device__ __forceinline__ void sync_tcgen05() {
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
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
    for (u32 i = tid; i < RAW_S * RAW_D; i += 128) {
        const u32 key = i / RAW_D, d = i % RAW_D;
        *reinterpret_cast<f16*>(ks + kmajor_offset(key, d)) = k[i];
        *reinterpret_cast<f16*>(vt + kmajor_offset(d, key)) = v[i];
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> MMA (async proxy)
    sync_tcgen05();
    const u32 tmem = tmem_base;
    const u32 idesc = (1u << 4) | ((u32)(RAW_S >> 3) << 17) | ((u32)(128 >> 4) << 24);  // f16 x f16 -> f32, N=64

    if (warp == 0) {  // S = Q K^T into columns 0..63
        if (elect_one()) {
            for (u32 kk = 0; kk < RAW_D / 16; ++kk)
                mma_f16(tmem, smem_desc(smem_u32(qp) + kk * 256), smem_desc(smem_u32(ks) + kk * 256), idesc, kk > 0);
            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar_addr)
                         : "memory");
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
                mma_f16(tmem + 64, smem_desc(smem_u32(qp) + kk * 256), smem_desc(smem_u32(vt) + kk * 256), idesc,
                        kk > 0);
            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar_addr)
                         : "memory");
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
