// Split-KV decode (flash-decoding) for T = 1..16 query tokens against a long KV cache, sm_80+.
//
// Decode reads the whole KV cache once and does little math per byte, so the kernel is built to
// stream K and V at HBM bandwidth, not to fill the tensor cores:
// * GQA packing: the `group = heads / heads_kv` query heads that share one KV head, times the T
//   query tokens, are the M rows of one tile (row r = token r / group, head r % group), so each
//   K/V byte is read once per 16 packed rows instead of once per query head.
// * Split-KV: grid.y cuts the keys into `n_splits` ranges of `split_keys` (a multiple of 64), so
//   a decode step with few heads still fills every SM; each split writes its partial (O normalised
//   within the split, LSE in base 2) to an fp32 workspace; the splits are merged by LSE either
//   in the same launch (DecodeSplit.counters set: each CTA counts itself in for its row group
//   after its partial is visible, and the last one to arrive merges the group's rows and resets
//   the counter to 0, so launches ordered on one stream, CUDA-graph replays included, share the
//   counters without a memset) or by `fmha_decode_combine_*` (counters null). With one split the
//   split kernel writes the final O and LSE itself. The cluster entries (`fmha_decode_cluster_*`,
//   FMHA_DECODE_CLUSTER consecutive splits a cluster) first merge each cluster's splits through
//   distributed shared memory, a slice of the rows per CTA (cluster_merge), so that no CTA reads
//   every split alone; the host takes them where that merge would dominate.
// * The merge (`combine_rows`): a CTA per 16-row group, the splits' weights computed once into
//   SMEM, then threads over (valid row, 4 d's) x split lanes, each thread's partial loads issued
//   in batches of up to 32 independent loads, the first batch before the weights, so the merge
//   of a T = 1 step is one L2 round trip (a warp walking the splits one dependent load after
//   another was a 20-40 us floor at T = 1).
// * CTA = 4 warps on one (batch, kv head, 16-row group, split); warp w takes the split's 16-key
//   blocks w, w+4, ...; the warps merge their (max, sum, O) through SMEM at the end.
// * K and V go global -> SMEM through a cp.async ring per warp: stages of one 16-key K block and
//   its V block (hd128: 3 stages, 8 KiB each; hd64: 4 stages, 4 KiB each; hd256: 3 stages, 16 KiB
//   each), refilled kStages - 1 blocks ahead, so each warp keeps 16 KiB (hd128) / 12 KiB (hd64) /
//   32 KiB (hd256) of loads in flight while it
//   computes: in-flight bytes are bounded by SMEM, not registers. The register version (K of the
//   next block and V of this one loaded straight into fragments, ~8 KB a warp of which V's latency
//   was exposed every block) streamed 2.0 TB/s at hd128 and 1.2 TB/s at hd64 at a 32k cache
//   (notes/op-session7.md) against ~3.3 peak. A warp copies whole rows (16-byte chunks of
//   consecutive lanes), zero-filling rows outside the split's key range, and waits only on its
//   own groups (cp.async.wait_group + __syncwarp): no CTA barrier in the loop.
// * Fragments are 16-byte ld.shared reads of the permuted layouts the register version loaded
//   from global: QK^T permutes the head dim (a reduction dim) so that one 16-byte read of 8
//   consecutive d's of a key is that lane's B fragment for two MMAs (Q uses the same permutation);
//   PV permutes the output columns (tile j, column n holds d = 8n + j) so that one 16-byte read of
//   a V row feeds 8 MMAs after a byte permute pairs two keys. Each tile XORs its chunk index with
//   row bits (k_offset, v_offset) so that these reads and the copies are free of bank conflicts.
// * SMEM and occupancy (FMHA_DECODE_STAGES_D*, FMHA_DECODE_CTAS_D* in fmha_decode_split.h,
//   generated from fmhactl/plans/sm90_split_decode.py, whose table the host reads to size the
//   dynamic SMEM and the split count): hd128 96 KiB of ring + 2 KiB static, 2 CTAs per SM
//   (__launch_bounds__(128, 2), 200 registers); hd64 64 KiB + 2 KiB, 3 CTAs per SM (128
//   registers); hd256 192 KiB + 2 KiB, 1 CTA per SM (255 registers: O, Q and one block's K and V
//   fragments are D / 2 + 3 D / 4 of them; no spill), 4 warps x 2 blocks ahead x 16 KiB = 128 KiB
//   in flight a SM, as hd128. The warps' merge (MergeSmem) reuses the ring after the loop. Why 3
//   stages and 2 CTAs at hd128, not 2 stages and 3 CTAs: choose_splits sizes grids for about 2
//   CTAs per SM, so the SM's in-flight bytes are those of 2 CTAs either way: 2 x 4 warps x 2
//   stages ahead x 8 KiB = 128 KiB, against 64 KiB with 2 stages (one block ahead, the depth of
//   the register version); choose_splits caps grids at one wave of the resident CTAs. On the
//   H100 the ring is 1.12x the register version (geomean of bench --decode's 20 shapes, 0.98-1.51x;
//   session 12 call 6, docs/torch.md).
// * Head dims: the kernel is compiled for D = 64, 128, 256 (32-d QK blocks, 64-d PV blocks, D / 8
//   chunks a row dividing the warp, 128-byte rows for the swizzle). A call's head_dim (p.head_dim,
//   a multiple of 8, at most D) runs the smallest D >= it masked: Q's chunks past head_dim are
//   zeros, K's are zero-filled in the ring (cp.async of 0 bytes: no global read; stale SMEM could
//   hold NaN, and 0 * NaN would reach S), V's are not copied at all (column d of O is P V[:, d]
//   alone, and the columns past head_dim are never stored), and the epilogue, the partials (stride
//   head_dim) and the merge store only d < head_dim. HBM reads are head_dim's; the MMAs and the
//   ring are D's.
// Requirements (the host checks them): head_dim a multiple of 16 from 32 to 256 (fmhactl.plans.
// sm90_split_decode.HEAD_DIMS), contiguous head dim, every other stride a multiple of 8 elements,
// 16-byte aligned bases; batch * heads_kv <= 65535.
#pragma once

#include "common/cluster.cuh"
#include "common/cp_async.cuh"
#include "common/dtypes.cuh"
#include "common/fmha_params.h"
#include "common/mma_sync.cuh"
#include "sm90/fmha_decode_split.h"

#define FMHA_DECODE_THREADS 128
#define FMHA_DECODE_WARPS 4
#define FMHA_DECODE_ROWS 16  // packed rows per CTA (one mma M)
#define FMHA_DECODE_KEYS 16  // keys per warp step (one mma K of PV)

namespace fmha_decode {

constexpr int kMaxSplits = 256;  // fmhactl.torch.decode.MAX_SPLITS: the merge's SMEM weights

// The shared mma.sync primitives (kernels/common/mma_sync.cuh) plus the 16-bit store this file's
// epilogue needs.
template <bool kBf16>
struct Mma16 : mma_sync::Mma16<kBf16> {
    static __device__ __forceinline__ unsigned short from_float(float x) {
        return kBf16 ? fmha_float_to_bf16(x) : fmha_float_to_f16(x);
    }
};
using Bf16Mma = Mma16<true>;
using F16Mma = Mma16<false>;

struct U4 {
    unsigned x, y, z, w;
};

__device__ __forceinline__ U4 load16(const unsigned short* p) {
    U4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

__device__ __forceinline__ unsigned word(const U4& u, int i) {
    return i == 0 ? u.x : i == 1 ? u.y : i == 2 ? u.z : u.w;
}

using mma_sync::quad_max;
using mma_sync::quad_sum;

__device__ __forceinline__ U4 lds16(unsigned addr) {
    U4 r;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "r"(addr));
    return r;
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Packed row r of KV head h_kv (group = heads / heads_kv, computed once by the caller: a division
// per row costs code size where the merges run from a cold instruction cache): query token r / group
// and head h_kv * group + r % group; in batch b, its index in the (batch, heads, seq_q) rows of the
// LSE and the partials, and its O element d. The SASS of every entry point is the same as with
// this math written out at each use (nvcc 13, sm_90a, session 28).
struct PackedRow {
    int token, head;
    __device__ __forceinline__ PackedRow(int h_kv, int group, int r) : token(r / group), head(h_kv * group + r % group) {}
    __device__ __forceinline__ fmha_i64 id(const FmhaParams& p, int b) const {
        return (static_cast<fmha_i64>(b) * p.heads + head) * p.seq_q + token;
    }
    __device__ __forceinline__ unsigned short* out(const FmhaParams& p, int b, int d) const {
        return static_cast<unsigned short*>(p.o) + b * p.o_batch_stride + token * p.o_seq_stride +
               head * p.o_head_stride + d;
    }
};

// 4 consecutive O elements times `scale`, as 16-bit values in one 8-byte store.
template <class Mma>
__device__ __forceinline__ void store_out4(unsigned short* out, const float4& a, float scale) {
    const unsigned lo = Mma::from_float(a.x * scale) | (static_cast<unsigned>(Mma::from_float(a.y * scale)) << 16);
    const unsigned hi = Mma::from_float(a.z * scale) | (static_cast<unsigned>(Mma::from_float(a.w * scale)) << 16);
    *reinterpret_cast<uint2*>(out) = make_uint2(lo, hi);
}

// The split kernel's dynamic SMEM: the warps' cp.async rings, then (after the loop) MergeSmem.
extern __shared__ __align__(128) unsigned char decode_smem[];

// One warp's ring: kStages stages, each a 16-key K block then its V block (16 rows x D, 16-bit).
template <int D>
struct Ring {
    static constexpr int kStages = FmhaDecodeRing<D>::kStages;
    static_assert(kStages >= 2, "a compiled head dim (FMHA_DECODE_KERNEL_HEAD_DIMS) with a ring of 2+ stages");
    static constexpr int kTileBytes = FMHA_DECODE_KEYS * D * 2;
    static constexpr int kStageBytes = 2 * kTileBytes;
    static constexpr int kWarpBytes = kStages * kStageBytes;
    static constexpr int kBytes = FMHA_DECODE_WARPS * kWarpBytes;
};

// Byte offsets of 16-byte chunk `chunk` (8 d's) of row `row` in a K or V block. A quarter warp's
// 16-byte reads must hit 8 distinct chunk positions mod 8 (128 bytes = all 32 banks), and a row is
// a multiple of 128 bytes, so each tile XORs the chunk index with row bits its reads vary in.
// K reads: rows 2p and 2p + 1 (g = 2p, 2p + 1) x chunks 4c + q4: flip bit 2 on odd rows.
// V reads: rows {0, 2, 4, 6} + const (q4) x chunks 8e + {2p, 2p + 1} (g): XOR 2 * ((row >> 1) & 3).
// The cp.async writes (8 consecutive chunks of one row per quarter warp) stay conflict-free: an
// XOR by a value below 8 permutes each aligned group of 8 chunks.
template <int D>
__device__ __forceinline__ unsigned k_offset(int row, int chunk) {
    return row * (2 * D) + ((chunk ^ ((row & 1) << 2)) << 4);
}
template <int D>
__device__ __forceinline__ unsigned v_offset(int row, int chunk) {
    return row * (2 * D) + ((chunk ^ (((row >> 1) & 3) << 1)) << 4);
}

// SMEM for the cross-warp merge: per warp, per row, max and sum, then each warp's scaled O
// fragments in fragment order: o[warp][c][lane] is float4 c (of D / 8) of that lane's 16 x D share.
template <int D>
struct MergeSmem {
    float m[FMHA_DECODE_WARPS][FMHA_DECODE_ROWS];
    float l[FMHA_DECODE_WARPS][FMHA_DECODE_ROWS];
    float4 o[FMHA_DECODE_WARPS][D / 8][32];
};

// The cluster kernel's partial, after MergeSmem in the ring's SMEM: this CTA's (one split's) O
// of the 16 rows, normalised, row-major, and its base-2 LSE, which the cluster's peers read; then
// what this CTA computes from its peers' LSEs (each peer's weight, the cluster's LSE).
template <int D>
struct ClusterPart {
    float lse[FMHA_DECODE_ROWS];
    float weight[FMHA_DECODE_CLUSTER][FMHA_DECODE_ROWS];
    float cluster_lse[FMHA_DECODE_ROWS];
    int is_last;
    int pad[3];
    float4 o[FMHA_DECODE_ROWS][D / 4];
};

// Merge the n_splits partials of the 16 packed rows row0.. of (batch b, KV head h_kv) into O and
// the natural LSE: weights exp2(lse_s - max) over the splits (a split that saw no key: -inf,
// weight 0), O = sum_s w_s O_s / sum_s w_s. All 128 threads take part; `smem` is the ring's
// Ring<D>::kBytes of dynamic SMEM (free by now in the fused path). Columns: the call's p.head_dim
// (<= D), the partials' row stride.
//
// The partials are staged into SMEM by cp.async (16-byte copies through L2: in the fused path
// other CTAs of this launch just wrote them), as many splits a round as the SMEM holds, the first
// round issued before the weights, so that the LSEs' loads and the partials' share one L2 round
// trip; then each thread adds up its (row, 4 d's) items from SMEM. The merge is latency bound:
// at T = 1 with 1-2 KV heads, loading the LSEs and then 6 splits at a time over 2 passes (7
// dependent round trips) was 5 of the split kernel's 15.5 us (H200, b1 h8:1 S4k, ncu, session
// 27). Copies, not register loads, so that every split's bytes are in flight at once without
// holding them in registers, and the code stays small: the merge runs once per launch from a cold
// instruction cache, and a 32-deep unrolled register version (410 KB of SASS) took 57 us there.
// What combine_rows merges: n partials, partial i's O at o_partial[i] and its LSE at slot
// i * lse_step + lse_offset of lse_partial; the row group's items [item_lo, item_hi) (item: a valid
// row's 4 consecutive d's, row-major), and whether this CTA writes the rows' LSE.
struct MergeSource {
    int n;
    int lse_step, lse_offset;
    int item_lo, item_hi;
    bool write_lse;
};

template <int D, class Mma>
__device__ __forceinline__ void combine_rows(const FmhaParams& p, const DecodeSplit& s, int b, int h_kv, int row0,
                                             unsigned char* smem, const MergeSource& from) {
    constexpr int kRowThreads = FMHA_DECODE_THREADS / FMHA_DECODE_ROWS;  // 8 threads per row for the weights
    static_assert(Ring<D>::kBytes >= FMHA_DECODE_ROWS * kMaxSplits * 4 + 2 * FMHA_DECODE_ROWS * (D / 4) * 16,
                  "the ring's SMEM holds the weights, the accumulators and one split's partials");
    __shared__ float inv_total[FMHA_DECODE_ROWS];
    const int vec = p.head_dim / 4;  // float4 columns per row
    const int group = p.heads / p.heads_kv;
    const int rows = p.seq_q * group;
    const int n = min(from.n, kMaxSplits);
    const fmha_i64 rows_total = static_cast<fmha_i64>(p.batch) * p.heads * p.seq_q;
    const int item_lo = from.item_lo;
    const int n_items = min(from.item_hi, min(FMHA_DECODE_ROWS, rows - row0) * vec) - item_lo;  // this call's items
    if (n_items <= 0) return;  // block-uniform

    // SMEM: weights [16][n], accumulators [n_items] (several rounds only), partials [per_round][n_items].
    float* weight = reinterpret_cast<float*>(smem);
    float4* acc = reinterpret_cast<float4*>(smem + FMHA_DECODE_ROWS * n * 4);
    float4* buf = acc + n_items;
    const int per_round = static_cast<int>((Ring<D>::kBytes - FMHA_DECODE_ROWS * n * 4) / (16 * n_items)) - 1;

    const float4* part = reinterpret_cast<const float4*>(s.o_partial);
    const fmha_i64 split_stride = rows_total * vec;
    const int width = min(n_items, FMHA_DECODE_THREADS), lanes = FMHA_DECODE_THREADS / width;
    const int lane = threadIdx.x / width, slot = threadIdx.x % width;
    auto stage = [&](int s0, int count) {  // thread (lane, slot): items slot + k width, splits lane + k lanes
        if (lane < lanes) {
            for (int item = slot; item < n_items; item += width) {
                const int it = item_lo + item;
                const float4* src = part + PackedRow(h_kv, group, row0 + it / vec).id(p, b) * vec + it % vec + s0 * split_stride;
                for (int sp = lane; sp < count; sp += lanes)
                    cp_async::copy16(smem_addr(buf + sp * n_items + item), src + sp * split_stride, true);
            }
        }
        cp_async::commit();
    };
    stage(0, min(n, per_round));

    {  // weights: 8 threads per row (consecutive lanes), loads of one row independent of each other
        const int lr = threadIdx.x / kRowThreads, sub = threadIdx.x % kRowThreads;
        const int r = row0 + lr;
        const bool valid = r < rows;
        const fmha_i64 row_id = valid ? PackedRow(h_kv, group, r).id(p, b) : 0;
        float mx = -FMHA_INF;
        for (int i0 = sub; i0 < n; i0 += 4 * kRowThreads) {  // 4 independent loads per step
            float lse[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const int i = i0 + u * kRowThreads;
                lse[u] = valid && i < n
                             ? __ldcg(s.lse_partial + (i * from.lse_step + from.lse_offset) * rows_total + row_id)
                             : -FMHA_INF;
            }
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const int i = i0 + u * kRowThreads;
                if (i < n) weight[lr * n + i] = lse[u];
                mx = fmaxf(mx, lse[u]);
            }
        }
#pragma unroll
        for (int off = kRowThreads / 2; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
        float total = 0.f;
        for (int i = sub; i < n; i += kRowThreads) {
            const float w = mx == -FMHA_INF ? 0.f : exp2f(weight[lr * n + i] - mx);
            weight[lr * n + i] = w;
            total += w;
        }
#pragma unroll
        for (int off = kRowThreads / 2; off > 0; off >>= 1) total += __shfl_xor_sync(0xffffffffu, total, off);
        if (sub == 0) {
            inv_total[lr] = total > 0.f ? 1.f / total : 0.f;
            if (valid && from.write_lse && p.lse != nullptr) {
                p.lse[row_id] = total > 0.f ? (mx + log2f(total)) * 0.69314718055994531f : -FMHA_INF;
            }
        }
    }

    for (int s0 = 0; s0 < n; s0 += per_round) {  // block-uniform trip count
        const int count = min(per_round, n - s0);
        if (s0 > 0) stage(s0, count);
        cp_async::wait_all();
        __syncthreads();  // every thread's copies landed (and, the first time, the weights are in)
        for (int item = threadIdx.x; item < n_items; item += FMHA_DECODE_THREADS) {
            const int lr = (item_lo + item) / vec;
            const float* w = weight + lr * n + s0;
            float4 a = s0 == 0 ? make_float4(0.f, 0.f, 0.f, 0.f) : acc[item];
#pragma unroll 4
            for (int sp = 0; sp < count; ++sp) {
                const float4 y = buf[sp * n_items + item];
                a.x += w[sp] * y.x;
                a.y += w[sp] * y.y;
                a.z += w[sp] * y.z;
                a.w += w[sp] * y.w;
            }
            if (s0 + count < n) {
                acc[item] = a;  // this thread's own item: read back by it alone next round
                continue;
            }
            const int d = 4 * ((item_lo + item) % vec);
            store_out4<Mma>(PackedRow(h_kv, group, row0 + lr).out(p, b, d), a, inv_total[lr]);
        }
        __syncthreads();  // the next round's copies overwrite buf
    }
}

// The cluster kernel's merge (FMHA_DECODE_CLUSTER consecutive splits of one row group form a
// cluster). Each CTA has left its split's O and LSE in its SMEM (ClusterPart); after a cluster
// barrier, CTA `rank` merges slice `rank` of the row group's items from its peers' SMEM
// (distributed shared memory: no global round trip, no counter). A cluster that holds every
// split writes O and the LSE; otherwise each CTA writes its slice of the cluster's partial
// (o_partial[cluster], LSE at slot blockIdx.y) and counts itself in on counter (group, rank): the
// last CTA of that rank merges the clusters' slices. So the merge of a step with few row groups
// is spread over FMHA_DECODE_CLUSTER CTAs and reads n_splits / FMHA_DECODE_CLUSTER partials, where
// the plain kernel's last CTA reads all n_splits alone (bound by one SM's L2 bandwidth: H200,
// b1 h8:1 S4k, session 27). The cluster's CTAs are co-scheduled, so the barrier cannot deadlock.
template <int D, class Mma>
__device__ __forceinline__ void cluster_merge(const FmhaParams& p, const DecodeSplit& s, int b, int h_kv, int row0) {
    constexpr int C = FMHA_DECODE_CLUSTER;
    static_assert(C * FMHA_DECODE_ROWS == FMHA_DECODE_THREADS, "one thread per (row, peer) for the weights");
    static_assert((C & (C - 1)) == 0 && C <= 32, "the weights' shuffles stay within a warp");
    static_assert(sizeof(MergeSmem<D>) + sizeof(ClusterPart<D>) <= Ring<D>::kBytes, "both fit in the ring's SMEM");
    ClusterPart<D>& part = *reinterpret_cast<ClusterPart<D>*>(decode_smem + sizeof(MergeSmem<D>));
    const unsigned rank = cluster::rank();
    const int cluster_index = blockIdx.y / C, n_clusters = gridDim.y / C;
    const int group = p.heads / p.heads_kv, rows = p.seq_q * group, vec = p.head_dim / 4;
    const int n_items = min(FMHA_DECODE_ROWS, rows - row0) * vec;
    const int per = (n_items + C - 1) / C;
    const int item_lo = min(n_items, static_cast<int>(rank) * per), item_hi = min(n_items, item_lo + per);
    const fmha_i64 rows_total = static_cast<fmha_i64>(p.batch) * p.heads * p.seq_q;

    cluster::sync();  // every peer's ClusterPart.o and .lse are written
    {  // thread (row lr, peer): the peer's weight in row lr, exp2(lse - max) / total over the cluster
        const int lr = threadIdx.x / C, peer = threadIdx.x % C;
        const float lse = cluster::load_f32(cluster::peer_address(smem_addr(&part.lse[lr]), peer));
        float mx = lse;
#pragma unroll
        for (int off = C / 2; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
        const float w = mx == -FMHA_INF ? 0.f : exp2f(lse - mx);
        float total = w;
#pragma unroll
        for (int off = C / 2; off > 0; off >>= 1) total += __shfl_xor_sync(0xffffffffu, total, off);
        part.weight[peer][lr] = total > 0.f ? w / total : 0.f;
        if (peer == 0) part.cluster_lse[lr] = total > 0.f ? mx + log2f(total) : -FMHA_INF;
    }
    __syncthreads();
    for (int item = item_lo + threadIdx.x; item < item_hi; item += FMHA_DECODE_THREADS) {
        const int lr = item / vec, col = item % vec;
        const unsigned local = smem_addr(&part.o[lr][col]);
        float4 y[C];
#pragma unroll
        for (int peer = 0; peer < C; ++peer) y[peer] = cluster::load_f32x4(cluster::peer_address(local, peer));
        float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int peer = 0; peer < C; ++peer) {
            const float w = part.weight[peer][lr];
            a.x += w * y[peer].x;
            a.y += w * y[peer].y;
            a.z += w * y[peer].z;
            a.w += w * y[peer].w;
        }
        const int d = 4 * col;
        const PackedRow row(h_kv, group, row0 + lr);
        if (n_clusters == 1) {
            store_out4<Mma>(row.out(p, b, d), a, 1.f);
        } else {
            *reinterpret_cast<float4*>(s.o_partial + (cluster_index * rows_total + row.id(p, b)) * p.head_dim + d) = a;
        }
    }
    if (threadIdx.x < FMHA_DECODE_ROWS && row0 + static_cast<int>(threadIdx.x) < rows) {
        const fmha_i64 row_id = PackedRow(h_kv, group, row0 + threadIdx.x).id(p, b);
        const float lse2 = part.cluster_lse[threadIdx.x];
        if (n_clusters > 1) {
            s.lse_partial[blockIdx.y * rows_total + row_id] = lse2;  // slot cluster * C + rank
        } else if (rank == 0 && p.lse != nullptr) {
            p.lse[row_id] = lse2 * 0.69314718055994531f;
        }
    }
    if (n_clusters > 1) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    cluster::sync();  // the peers are done reading this CTA's SMEM: it may exit or reuse it
    if (n_clusters == 1) return;

    // The last CTA of this rank to arrive (over the clusters) merges slice `rank`: release/acquire
    // at GPU scope around the counter, as the plain kernel's fused merge.
    if (threadIdx.x == 0) {
        unsigned* counter = s.counters + (static_cast<fmha_i64>(blockIdx.z) * gridDim.x + blockIdx.x) * C + rank;
        const unsigned arrived = atomicAdd(counter, 1u);
        part.is_last = arrived == static_cast<unsigned>(n_clusters - 1);
        if (part.is_last) atomicExch(counter, 0u);  // ready for the next launch (graph replays too)
    }
    __syncthreads();
    const bool last = part.is_last;
    __syncthreads();  // read by all before the merge's staging may overwrite it
    if (!last) return;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    combine_rows<D, Mma>(p, s, b, h_kv, row0, decode_smem, MergeSource{n_clusters, C, static_cast<int>(rank), item_lo,
                                                                      item_hi, rank == 0});
}

template <int D, class Mma, bool kCluster>
__device__ __forceinline__ void split_kernel(const FmhaParams& p, const DecodeSplit& s) {
    constexpr int kQBlocks = D / 32;  // 32-d blocks of QK^T (2 MMAs each)
    constexpr int kVBlocks = D / 64;  // 64-d blocks of PV (8 MMAs each)
    {  // the host sizes the ring (fmhactl.torch.decode.ring_smem_bytes): a mismatch must not read past it
        unsigned dynamic_bytes;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
        if (dynamic_bytes < Ring<D>::kBytes) __trap();
    }
    // The call's head dim: D, or less (a masked run of the next wider kernel, see the top).
    const int dim = p.head_dim;
    if (dim > D || dim <= 0 || (dim & 7) != 0) __trap();  // the host picks the kernel: never reached

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, q4 = lane % 4;
    // grid (row groups, splits, batch * heads_kv): the row groups that read one K/V range run
    // next to each other, so all but the first find it in L2.
    const int split = blockIdx.y;
    const int b = blockIdx.z / p.heads_kv, h_kv = blockIdx.z % p.heads_kv;
    const int group = p.heads / p.heads_kv;
    const int rows = p.seq_q * group;
    const int row0 = blockIdx.x * FMHA_DECODE_ROWS;

    // This thread's two packed rows: r = row0 + g and row0 + g + 8.
    int tok[2], head[2];
    bool valid[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const int r = row0 + g + 8 * i;
        valid[i] = r < rows;
        tok[i] = valid[i] ? r / group : 0;
        head[i] = h_kv * group + (valid[i] ? r % group : 0);
    }

    const unsigned short* qbase = static_cast<const unsigned short*>(p.q) + b * p.q_batch_stride;
    U4 qf[2][kQBlocks];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const unsigned short* qrow = qbase + tok[i] * p.q_seq_stride + head[i] * p.q_head_stride;
#pragma unroll
        for (int c = 0; c < kQBlocks; ++c)
            qf[i][c] = valid[i] && c * 32 + q4 * 8 < dim ? load16(qrow + c * 32 + q4 * 8) : U4{0, 0, 0, 0};
    }

    // Keys of this split within the row's valid interval; causal rows see keys j <= token + shift.
    const int diagonal = s.shift;
    int k_lo = 0, k_hi = p.seq_k;
    if (s.key_ranges != nullptr) {
        k_lo = max(0, s.key_ranges[2 * b]);
        k_hi = min(p.seq_k, s.key_ranges[2 * b + 1]);
    }
    const int k_begin = split * s.split_keys;
    const int k_start = max(k_begin, k_lo);
    int k_end = min(k_hi, k_begin + s.split_keys);
    if (p.causal) {
        const int last_row = min(row0 + FMHA_DECODE_ROWS, rows) - 1;
        k_end = min(k_end, last_row / group + diagonal + 1);
    }
    // Whole 64-key steps below k_start are skipped; the rest of them is masked.
    const int k_first = k_begin + max(0, (k_start - k_begin) / (FMHA_DECODE_WARPS * FMHA_DECODE_KEYS)) *
                                      (FMHA_DECODE_WARPS * FMHA_DECODE_KEYS);

    const unsigned short* kbase = static_cast<const unsigned short*>(p.k) + b * p.k_batch_stride + h_kv * p.k_head_stride;
    const unsigned short* vbase = static_cast<const unsigned short*>(p.v) + b * p.v_batch_stride + h_kv * p.v_head_stride;

    float m[2] = {-FMHA_INF, -FMHA_INF};  // running max (base 2, scaled), quad-uniform
    float l[2] = {0.f, 0.f};              // running sum, this thread's columns only
    float acc[kVBlocks][8][4];
#pragma unroll
    for (int e = 0; e < kVBlocks; ++e)
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int x = 0; x < 4; ++x) acc[e][j][x] = 0.f;

    // The warp's cp.async ring: stage `slot` holds the K block (16 keys x D) and the V block of
    // one of its key blocks, rows zero-filled outside [k_start, k_end) (V must be zeros there,
    // not stale SMEM: 0 * NaN would poison O through P = 0). Each lane copies whole 16-byte chunks
    // of consecutive rows, so a warp's copy of a row is one coalesced request. Blocks at or past
    // k_end are not copied, but every step commits a group (empty or not), so wait_group<S-1>
    // always means "this block's stage has landed".
    using R = Ring<D>;
    constexpr int kStages = R::kStages;
    constexpr int kStep = FMHA_DECODE_WARPS * FMHA_DECODE_KEYS;
    constexpr int kChunks = D / 8;                                 // 16-byte chunks per row
    constexpr int kRowsPerPass = 32 / kChunks;                     // rows one warp-wide copy covers
    const unsigned ring = smem_addr(decode_smem) + warp * R::kWarpBytes;
    const int copy_ch = lane % kChunks, copy_row = lane / kChunks;
    // Chunks past the call's head dim: K's zero-filled (no global read), V's not copied (see the top).
    const bool copy_in = copy_ch * 8 < dim;
    auto issue = [&](int kb, unsigned stage) {
#pragma unroll
        for (int it = 0; it < FMHA_DECODE_KEYS / kRowsPerPass; ++it) {
            const int row = it * kRowsPerPass + copy_row, key = kb + row;
            const bool ok = key >= k_start && key < k_end && copy_in;
            const fmha_i64 src = ok ? key : 0;  // an address that exists; nothing is read from it
            const int src_ch = copy_in ? copy_ch : 0;
            cp_async::copy16(stage + k_offset<D>(row, copy_ch), kbase + src * p.k_seq_stride + src_ch * 8, ok);
            if (copy_in) {
                cp_async::copy16(stage + R::kTileBytes + v_offset<D>(row, copy_ch),
                                 vbase + src * p.v_seq_stride + copy_ch * 8, ok);
            }
        }
    };
    const int kb0 = k_first + warp * FMHA_DECODE_KEYS;
#pragma unroll
    for (int st = 0; st < kStages - 1; ++st) {
        if (kb0 + st * kStep < k_end) issue(kb0 + st * kStep, ring + st * R::kStageBytes);
        cp_async::commit();
    }

    // Fragment reads, lane-constant parts. K: QK n-tile i holds keys kb + 8i + g (this lane's B
    // column), d permuted within 32-d blocks so that one 16-byte read (8 consecutive d's) is the
    // B fragment of two MMAs; row 8i + g has the parity of g. V: rows 2*q4 + {0, 1, 8, 9} (this
    // lane's k positions of PV), d = 64e + 8g .. +7: chunk 8e + g, and (row >> 1) & 3 = q4.
    const unsigned k_lane = g * (2 * D) + (q4 << 4), k_swz = (g & 1) << 6;
    const unsigned v_lane = 2 * q4 * (2 * D) + ((g ^ (2 * q4)) << 4);
    int slot = 0;
    for (int kb = kb0; kb < k_end; kb += kStep) {
        // Refill the stage read in the previous step with the block kStages - 1 ahead: every
        // lane's reads of it are done (syncwarp). Then wait for this block's stage.
        __syncwarp();
        const int ahead = kb + (kStages - 1) * kStep;
        const int fill = slot == 0 ? kStages - 1 : slot - 1;
        if (ahead < k_end) issue(ahead, ring + fill * R::kStageBytes);
        cp_async::commit();
        cp_async::wait_group<kStages - 1>();
        __syncwarp();
        const unsigned kt = ring + slot * R::kStageBytes, vt = kt + R::kTileBytes;
        slot = slot == kStages - 1 ? 0 : slot + 1;

        U4 kf[2][kQBlocks];
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int c = 0; c < kQBlocks; ++c) kf[i][c] = lds16(kt + k_lane + i * 8 * (2 * D) + ((c << 6) ^ k_swz));
        U4 vf[kVBlocks][4];
#pragma unroll
        for (int x = 0; x < 4; ++x)
#pragma unroll
            for (int e = 0; e < kVBlocks; ++e)
                vf[e][x] = lds16(vt + v_lane + ((x & 1) + 8 * (x >> 1)) * (2 * D) + e * 128);

        // S = Q K^T for 16 keys: s[i][0..1] row g, s[i][2..3] row g+8; keys kb + 8i + 2*q4 + {0,1}.
        float sc[2][4];
#pragma unroll
        for (int i = 0; i < 2; ++i) {
#pragma unroll
            for (int x = 0; x < 4; ++x) sc[i][x] = 0.f;
#pragma unroll
            for (int c = 0; c < kQBlocks; ++c) {
                Mma::mma(sc[i], qf[0][c].x, qf[1][c].x, qf[0][c].y, qf[1][c].y, kf[i][c].x, kf[i][c].y);
                Mma::mma(sc[i], qf[0][c].z, qf[1][c].z, qf[0][c].w, qf[1][c].w, kf[i][c].z, kf[i][c].w);
            }
        }

        float pr[2][4];
#pragma unroll
        for (int r = 0; r < 2; ++r) {  // r: row g (0) or g + 8 (1)
            const int last_key = p.causal ? tok[r] + diagonal : k_end - 1;
            float block_max = -FMHA_INF;
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int x = 0; x < 2; ++x) {
                    const int key = kb + 8 * i + 2 * q4 + x;
                    float v = sc[i][2 * r + x] * p.scale_log2;
                    v = (key >= k_start && key < k_end && key <= last_key) ? v : -FMHA_INF;
                    sc[i][2 * r + x] = v;
                    block_max = fmaxf(block_max, v);
                }
            const float rescale = mma_sync::softmax_row_step(sc, pr, r, block_max, m[r], l[r]);
#pragma unroll
            for (int e = 0; e < kVBlocks; ++e)
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    acc[e][j][2 * r] *= rescale;
                    acc[e][j][2 * r + 1] *= rescale;
                }
        }

        // O += P V: P as the A fragment straight from the S accumulators.
        const unsigned a0 = Mma::pack(pr[0][0], pr[0][1]), a1 = Mma::pack(pr[0][2], pr[0][3]);
        const unsigned a2 = Mma::pack(pr[1][0], pr[1][1]), a3 = Mma::pack(pr[1][2], pr[1][3]);
#pragma unroll
        for (int e = 0; e < kVBlocks; ++e)
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const unsigned sel = (j & 1) ? 0x7632u : 0x5410u;
                const unsigned b0 = __byte_perm(word(vf[e][0], j >> 1), word(vf[e][1], j >> 1), sel);
                const unsigned b1 = __byte_perm(word(vf[e][2], j >> 1), word(vf[e][3], j >> 1), sel);
                Mma::mma(acc[e][j], a0, a1, a2, a3, b0, b1);
            }
    }
    // Every copy this thread issued was for a block the loop read, so all have landed; the wait
    // is a guard. The merge below reuses the ring's SMEM: no warp may still be reading its stages.
    cp_async::wait_all();
    __syncthreads();
    MergeSmem<D>& smem = *reinterpret_cast<MergeSmem<D>*>(decode_smem);

    // Merge the 4 warps. Each publishes its rows' max and sum; each thread then scales its own O
    // fragment by its warp's share of the row, exp2(m_w - max) / total, so the merge is a plain
    // sum over the warps of fragments laid out alike (lane l of every warp holds the same rows and
    // columns): stored in fragment order (float4 c of lane l at o[warp][c][l], conflict-free), each
    // thread sums D / 32 of the float4 slots over the 4 warps and stores them. One exp2 per row
    // and thread instead of 4 per output element, and no 8-way bank conflicts of a row-major store
    // (H200, b1 h8:1 S4k: this epilogue took 3.5 of the split kernel's 15.5 us; ncu, session 27).
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float total = quad_sum(l[r]);
        if (q4 == 0) {
            smem.m[warp][g + 8 * r] = m[r];
            smem.l[warp][g + 8 * r] = total;
        }
    }
    __syncthreads();
    float share[2], lse2[2];  // this warp's share of rows g and g + 8, and their base-2 LSE
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int lr = g + 8 * r;
        float mx = -FMHA_INF;
#pragma unroll
        for (int w = 0; w < FMHA_DECODE_WARPS; ++w) mx = fmaxf(mx, smem.m[w][lr]);
        float total = 0.f;
        if (mx != -FMHA_INF) {
#pragma unroll
            for (int w = 0; w < FMHA_DECODE_WARPS; ++w) total += smem.l[w][lr] * exp2f(smem.m[w][lr] - mx);
        }
        share[r] = total > 0.f ? exp2f(m[r] - mx) / total : 0.f;
        lse2[r] = total > 0.f ? mx + log2f(total) : -FMHA_INF;
    }
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int e = 0; e < kVBlocks; ++e)
#pragma unroll
            for (int x = 0; x < 2; ++x)
#pragma unroll
                for (int h4 = 0; h4 < 2; ++h4) {
                    const int c = ((r * kVBlocks + e) * 2 + x) * 2 + h4;
                    const float f = share[r];
                    smem.o[warp][c][lane] = make_float4(acc[e][4 * h4][2 * r + x] * f, acc[e][4 * h4 + 1][2 * r + x] * f,
                                                        acc[e][4 * h4 + 2][2 * r + x] * f, acc[e][4 * h4 + 3][2 * r + x] * f);
                }
    const fmha_i64 rows_total = static_cast<fmha_i64>(p.batch) * p.heads * p.seq_q;
    ClusterPart<D>& part = *reinterpret_cast<ClusterPart<D>*>(decode_smem + sizeof(MergeSmem<D>));
    if (kCluster && warp == 0 && q4 == 0) {  // every row's, valid or not: the peers read all 16
#pragma unroll
        for (int r = 0; r < 2; ++r) part.lse[g + 8 * r] = lse2[r];
    }
    if (!kCluster && warp == 0 && q4 == 0) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int row = row0 + g + 8 * r;
            if (row >= rows) continue;
            const fmha_i64 row_id = PackedRow(h_kv, group, row).id(p, b);
            if (s.n_splits > 1) {
                s.lse_partial[split * rows_total + row_id] = lse2[r];
            } else if (p.lse != nullptr) {
                p.lse[row_id] = lse2[r] * 0.69314718055994531f;
            }
        }
    }
    __syncthreads();

    // This thread's slots: c = warp * kSlots + i of lane `lane`'s fragment, i.e. row g + 8 r, the 4
    // columns e * 64 + 8 (2 q4 + x) + 4 h4 .. + 3 (c = ((r * kVBlocks + e) * 2 + x) * 2 + h4).
    constexpr int kSlots = D / 8 / FMHA_DECODE_WARPS;
#pragma unroll
    for (int i = 0; i < kSlots; ++i) {
        const int c = warp * kSlots + i;
        const int h4 = c & 1, x = (c >> 1) & 1, e = (c >> 2) % kVBlocks, r = (c >> 2) / kVBlocks;
        const int row = row0 + g + 8 * r, d = e * 64 + 8 * (2 * q4 + x) + 4 * h4;
        if (row >= rows || d >= dim) continue;  // dim is a multiple of 8: a slot is all in or all out
        float4 o = smem.o[0][c][lane];
#pragma unroll
        for (int w = 1; w < FMHA_DECODE_WARPS; ++w) {
            const float4 y = smem.o[w][c][lane];
            o.x += y.x;
            o.y += y.y;
            o.z += y.z;
            o.w += y.w;
        }
        if (kCluster) {
            part.o[row - row0][d / 4] = o;
            continue;
        }
        const PackedRow packed(h_kv, group, row);
        const fmha_i64 row_id = packed.id(p, b);
        if (s.n_splits == 1) {
            store_out4<Mma>(packed.out(p, b, d), o, 1.f);
        } else {
            *reinterpret_cast<float4*>(s.o_partial + (split * rows_total + row_id) * dim + d) = o;
        }
    }
    if constexpr (kCluster) {
        cluster_merge<D, Mma>(p, s, b, h_kv, row0);  // its first cluster barrier orders the writes above
        return;
    }
    if (s.n_splits == 1 || s.counters == nullptr) return;  // one split: done; no counters: the combine launch merges

    // Fused merge: count this CTA in once its partial is visible; the last split to arrive merges.
    // Release/acquire at GPU scope around the counter (fence.acq_rel: the PTX memory model's
    // fence-fence synchronisation through the atomic; lighter than __threadfence's fence.sc).
    __shared__ int is_last;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned* counter = s.counters + static_cast<fmha_i64>(blockIdx.z) * gridDim.x + blockIdx.x;
        const unsigned arrived = atomicAdd(counter, 1u);
        is_last = arrived == static_cast<unsigned>(s.n_splits - 1);
        if (is_last) atomicExch(counter, 0u);  // every split is in: ready for the next launch (graph replays too)
    }
    __syncthreads();
    if (!is_last) return;
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    static_assert(sizeof(MergeSmem<D>) <= Ring<D>::kBytes, "the warps' merge fits in the ring's SMEM");
    combine_rows<D, Mma>(p, s, b, h_kv, row0, decode_smem,  // every thread is past its reads of MergeSmem
                         MergeSource{s.n_splits, 1, 0, 0, FMHA_DECODE_ROWS * (D / 4), true});
}

// The separate merge launch (DecodeSplit.counters null): grid (row groups, 1, batch * heads_kv),
// the split kernel's dynamic SMEM (the host passes ring_smem_bytes for both).
template <int D, class Mma>
__device__ __forceinline__ void combine_kernel(const FmhaParams& p, const DecodeSplit& s) {
    unsigned dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < Ring<D>::kBytes) __trap();
    combine_rows<D, Mma>(p, s, blockIdx.z / p.heads_kv, blockIdx.z % p.heads_kv, blockIdx.x * FMHA_DECODE_ROWS,
                         decode_smem, MergeSource{s.n_splits, 1, 0, 0, FMHA_DECODE_ROWS * (D / 4), true});
}

}  // namespace fmha_decode

#define FMHA_DECODE_ENTRIES(DT, MMA, D)                                                                   \
    extern "C" __global__ void __launch_bounds__(FMHA_DECODE_THREADS, FMHA_DECODE_CTAS_D##D)           \
        fmha_decode_split_##DT##_d##D(const FmhaParams p, const DecodeSplit s) {                       \
        fmha_decode::split_kernel<D, fmha_decode::MMA, false>(p, s);                                     \
    }                                                                                                    \
    extern "C" __global__ void __cluster_dims__(1, FMHA_DECODE_CLUSTER, 1)                              \
        __launch_bounds__(FMHA_DECODE_THREADS, FMHA_DECODE_CTAS_D##D)                                   \
        fmha_decode_cluster_##DT##_d##D(const FmhaParams p, const DecodeSplit s) {                     \
        fmha_decode::split_kernel<D, fmha_decode::MMA, true>(p, s);                                      \
    }                                                                                                    \
    extern "C" __global__ void __launch_bounds__(FMHA_DECODE_THREADS)                                  \
        fmha_decode_combine_##DT##_d##D(const FmhaParams p, const DecodeSplit s) {                     \
        fmha_decode::combine_kernel<D, fmha_decode::MMA>(p, s);                                          \
    }
