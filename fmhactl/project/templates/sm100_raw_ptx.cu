// Attention in raw inline tcgen05 PTX: no tc5::, no CUTLASS. Grown from fmhactl's verified one-tile
// kernel (tests/ptx/kernels/raw_attn.cu: the same operand layouts, descriptors, MMAs, commits and
// TMEM loads) into a whole FMHA: a CTA of 4 warps takes 128 query rows of one (batch, head)
// (thread t owns query row t = TMEM lane t), walks the keys in tiles of 64 with an online softmax,
// and writes O and the LSE. Head dim 64, bf16 or f16 in, f32 accumulators.
//
// Per key tile: the 128 threads copy K and V^T into shared memory in the canonical K-major
// no-swizzle layout (8x16-byte core matrices; LBO 128 B along K, SBO 1024 B along rows); one
// elected thread issues S = Q K^T (4 MMAs, M=128 N=64 K=16) into TMEM columns 0..63 and commits
// to an mbarrier; each thread loads its S row, masks, rescales, writes P (16-bit) to shared
// memory; one thread issues P V (4 MMAs) into columns 64..127; each thread adds that to its O
// registers (O = O * alpha + P V). Launch: grid (ceil(seq_q / 128), heads, batch), 128 threads,
// 49152 bytes of dynamic shared memory at least (fmhactl.toml declares the launch).
//
// Dynamic shared memory is declared 16-byte aligned: the no-swizzle canonical layout needs no more
// (a swizzled one needs 1024 and should round its base up by hand, as kernels/sm100 does). Declared
// __align__(1024), the compiler folds the descriptors' start-address mask to 1 KiB steps; that is
// right natively, and it is what made this kernel fail everywhere on the H100 before the PTX path
// kept the declared alignment (nvJitLink 13.0 put dynamic SMEM 16-byte aligned; fmhactl/ptx/dyn_smem.py).
#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/raw_tcgen05.cuh"

#define RAW_BM 128
#define RAW_BN 64
#define RAW_D 64

// D = A B^T over K = 64 (4 MMAs of K = 16; A and B K-major, 64 K-elements per row), issued by one
// elected thread of warp 0 and committed to the mbarrier; every thread waits for that phase.
__device__ __forceinline__ void mma_and_wait(u32 warp, u32 d_tmem, u32 a, u32 b, u32 idesc, u32 bar, u32& phase) {
    if (warp == 0) {
        if (elect_one()) {
            for (u32 kk = 0; kk < 4; ++kk) mma_16bit(d_tmem, smem_desc(a + kk * 256), smem_desc(b + kk * 256), idesc, kk > 0);
            commit(bar);
        }
        __syncwarp();
    }
    wait_parity(bar, phase);
    phase ^= 1;
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

template <class Traits, u32 kFormat>
__device__ __forceinline__ void raw_attention(const FmhaParams& p) {
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned char* qs = smem;                                   // Q: 128 rows x 64 d   (16 KiB)
    unsigned char* ks = smem + RAW_BM * RAW_D * 2;              // K: 64 keys x 64 d    (8 KiB)
    unsigned char* vt = ks + RAW_BN * RAW_D * 2;                // V^T: 64 d x 64 keys  (8 KiB)
    unsigned char* ps = vt + RAW_D * RAW_BN * 2;                // P: 128 rows x 64 keys (16 KiB)
    __shared__ __align__(8) u64 bar;
    __shared__ u32 tmem_base;
    const u32 tid = threadIdx.x, warp = tid / 32;
    const u32 bar_addr = smem_u32(&bar);
    const int m0 = blockIdx.x * RAW_BM, h = blockIdx.y, b = blockIdx.z;
    const int h_kv = h / (p.heads / p.heads_kv);
    const unsigned short* q = static_cast<const unsigned short*>(p.q) + b * p.q_batch_stride + h * p.q_head_stride;
    const unsigned short* k = static_cast<const unsigned short*>(p.k) + b * p.k_batch_stride + h_kv * p.k_head_stride;
    const unsigned short* v = static_cast<const unsigned short*>(p.v) + b * p.v_batch_stride + h_kv * p.v_head_stride;
    unsigned short* o = static_cast<unsigned short*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride;

    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smem_u32(&tmem_base))
                     : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    for (u32 i = tid; i < RAW_BM * RAW_D; i += RAW_BM) {
        const u32 r = i / RAW_D, d = i % RAW_D;
        const int row = m0 + (int)r;
        *reinterpret_cast<unsigned short*>(qs + kmajor_offset(r, d)) = row < p.seq_q ? q[row * p.q_seq_stride + d] : 0;
    }

    const int diagonal = p.seq_k - p.seq_q;  // causal is bottom-right aligned
    int n_end = p.seq_k;
    if (p.causal) {
        const int last_row = min(m0 + RAW_BM, p.seq_q) - 1;
        n_end = min(p.seq_k, max(0, last_row + diagonal + 1));
    }
    // f16 x f16 (or bf16 x bf16) -> f32, M = 128, N = 64, both operands K-major.
    const u32 idesc = (1u << 4) | (kFormat << 7) | (kFormat << 10) | ((u32)(RAW_BN >> 3) << 17) |
                      ((u32)(RAW_BM >> 4) << 24);
    const int row = m0 + (int)tid;  // this thread's query row = its TMEM lane
    float m = -FMHA_INF, l = 0.f, acc[RAW_D], s[RAW_BN];
#pragma unroll
    for (int d = 0; d < RAW_D; ++d) acc[d] = 0.f;
    u32 phase = 0, tmem = 0, lane_addr = 0;

    for (int n0 = 0; n0 < n_end; n0 += RAW_BN) {
        // The previous tile's P V has completed (its commit was waited for): K, V^T, P are free.
        for (u32 i = tid; i < RAW_BN * RAW_D; i += RAW_BM) {
            const u32 j = i / RAW_D, d = i % RAW_D;
            const int key = n0 + (int)j;
            unsigned short kx = 0, vx = 0;
            if (key < p.seq_k) {
                kx = k[key * p.k_seq_stride + d];
                vx = v[key * p.v_seq_stride + d];
            }
            *reinterpret_cast<unsigned short*>(ks + kmajor_offset(j, d)) = kx;
            *reinterpret_cast<unsigned short*>(vt + kmajor_offset(d, j)) = vx;
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> MMA (async proxy)
        sync_tcgen05();
        tmem = tmem_base;
        lane_addr = tmem + ((32 * warp) << 16);

        mma_and_wait(warp, tmem, smem_u32(qs), smem_u32(ks), idesc, bar_addr, phase);  // S = Q K^T: columns 0..63
        ld_row64(lane_addr, s);

        float tile_max = m;
#pragma unroll
        for (int j = 0; j < RAW_BN; ++j) {
            const int key = n0 + j;
            const bool visible = key < p.seq_k && (!p.causal || key <= row + diagonal);
            s[j] = visible ? s[j] * p.scale_log2 : -FMHA_INF;
            tile_max = fmaxf(tile_max, s[j]);
        }
        const float alpha = m == -FMHA_INF ? 0.f : exp2f(m - tile_max);
        float tile_sum = 0.f;
#pragma unroll
        for (int j = 0; j < RAW_BN; ++j) {
            // The row sum stays in fp32, as FA's does: summing the 16-bit P that P V multiplies
            // moves the LSE by up to ~1e-3 (10x the LSE tolerance; the H100 showed it).
            const float pj = s[j] == -FMHA_INF ? 0.f : exp2f(s[j] - tile_max);
            tile_sum += pj;
            *reinterpret_cast<unsigned short*>(ps + kmajor_offset(tid, j)) = Traits::from_float(pj);
        }
        l = l * alpha + tile_sum;
        m = tile_max;
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        sync_tcgen05();

        mma_and_wait(warp, tmem + 64, smem_u32(ps), smem_u32(vt), idesc, bar_addr, phase);  // P V: columns 64..127
        ld_row64(lane_addr + 64, s);
#pragma unroll
        for (int d = 0; d < RAW_D; ++d) acc[d] = acc[d] * alpha + s[d];
    }

    if (row < p.seq_q) {
        // A row that sees no key (causal with seq_q > seq_k) outputs 0 and LSE = -inf.
        const float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
        for (int d = 0; d < RAW_D; ++d) o[row * p.o_seq_stride + d] = Traits::from_float(acc[d] * inv);
        if (p.lse != nullptr)
            p.lse[(static_cast<fmha_i64>(b) * p.heads + h) * p.seq_q + row] =
                l > 0.f ? (m + log2f(l)) * 0.69314718055994531f : -FMHA_INF;
    }
    sync_tcgen05();
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem_base) : "memory");
    }
}

extern "C" __global__ void __launch_bounds__(RAW_BM, 1) raw_attn_bf16(const FmhaParams p) {
    raw_attention<BF16Traits, 1>(p);
}

extern "C" __global__ void __launch_bounds__(RAW_BM, 1) raw_attn_f16(const FmhaParams p) {
    raw_attention<F16Traits, 0>(p);
}
