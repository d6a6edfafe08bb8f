// Emulated tcgen05 backend for sm_90a, included by tcgen05.cuh only (FMHACTL_TCGEN05_EMULATE=1).
//
// Tensor Memory lives in device memory the host runtime provides (fmhactl/runtime/emulation.py
// fills the module global `tc5_emu_state`): per CTA 512 columns x 128 lanes x 4 B, stored
// column-major ([col][lane]) so that a warp touching 32 consecutive lanes of a column -- the
// 32x32b shape and the MMA's D rows -- makes one coalesced access.
//
// Ordering, fast mode: every operation completes inside the call (MMAs included), which is at least
// as strong as the spec requires (spec §2.4, §7.4); commit then arrives on the caller's mbarrier.
// Strict mode (FMHACTL_TC5_STRICT=1, tcgen05_emu_strict.cuh) defers completion to the mechanism
// the PTX ISA names and checks the synchronisation around it; the functions below call into it.
//
// Conformance: violations are recorded (never trapped: a trap would lose the record with the
// context) in the violation buffer, one per warp-level call, and the illegal part is skipped
// where carrying on would corrupt memory. The host reads them after the launch.
#pragma once

extern "C" {
__device__ struct Tc5EmuState tc5_emu_state;
}

namespace tc5 {
namespace emu {

constexpr u32 kFullMask = 0xffffffffu;

__device__ __forceinline__ u32 lane_id() {
    u32 lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__device__ __forceinline__ u32 warp_id() {
    return (threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) / 32;
}

__device__ __forceinline__ u32 block_id() {
    return blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
}

struct Cta {
    u32* tmem;          // [col][lane]
    Tc5CtaMeta* meta;
};

#if TC5_STRICT
// Strict-mode entry points, defined in tcgen05_emu_strict.cuh (included at the end).
namespace strict {
__device__ bool converged(u32 op, u32 site);
__device__ void ldst_checks(u32 op, u32 site, u32 taddr, u32 col_lo, u32 col_hi);
__device__ void enqueue_mma(u32 d_tmem, u64 a_desc, u32 a_tmem, u64 b_desc, u32 idesc, u32 flags, u32 site);
__device__ void commit(u32 mbar, u32 site);
__device__ void wait_ld(u32 site);
__device__ void wait_st(u32 site);
__device__ void fence_before(u32 site);
__device__ void fence_after(u32 site);
__device__ u32 pool_alloc(u32 size, u32 site);
__device__ void pool_free(u32 first_chunk, u32 ncols);
}  // namespace strict
#define TC5_STRICT_ENTRY(OP, SITE) \
    if (!strict::converged(OP, SITE)) return
#else
#define TC5_STRICT_ENTRY(OP, SITE) (void)0
#endif

// A launch the host did not prepare (no state, or more CTAs than buffers) cannot be emulated
// safely; trapping is the only honest answer.
__device__ __forceinline__ Cta cta() {
    const u32 block = block_id();
    if (tc5_emu_state.tmem == 0 || tc5_emu_state.meta == 0 || block >= tc5_emu_state.ctas) {
        __trap();
    }
    Cta c;
    c.tmem = reinterpret_cast<u32*>(tc5_emu_state.tmem) + static_cast<u64>(block) * TC5_TMEM_COLUMNS * TC5_TMEM_LANES;
    c.meta = reinterpret_cast<Tc5CtaMeta*>(tc5_emu_state.meta) + block;
    return c;
}

__device__ __forceinline__ u32* cell(const Cta& c, u32 lane, u32 col) {
    return c.tmem + col * TC5_TMEM_LANES + lane;
}

__device__ __forceinline__ bool written(const Cta& c, u32 lane, u32 col) {
    return (c.meta->written[col * 4 + lane / 32] >> (lane % 32)) & 1u;
}

__device__ __forceinline__ void record(u32 code, u32 op, u32 site, u32 detail0, u32 detail1) {
    u32* count = reinterpret_cast<u32*>(tc5_emu_state.violation_count);
    if (count == 0) {
        __trap();
    }
    const u32 slot = atomicAdd(count, 1u);
    if (slot < tc5_emu_state.violation_capacity) {
        Tc5Violation* v = reinterpret_cast<Tc5Violation*>(tc5_emu_state.violations) + slot;
        v->code = code;
        v->op = op;
        v->block = block_id();
        v->warp = warp_id();
        v->lane = lane_id();
        v->site = site;
        v->detail0 = detail0;
        v->detail1 = detail1;
    }
}

// Collective: the lowest lane that found a problem records it (one report per call and warp).
__device__ __forceinline__ void report_first(u32 code, u32 op, u32 site, u32 detail0, u32 detail1) {
    const u32 bad = __ballot_sync(kFullMask, code != 0);
    if (bad != 0 && lane_id() == static_cast<u32>(__ffs(bad) - 1)) {
        record(code, op, site, detail0, detail1);
    }
}

__device__ __forceinline__ u32 chunk_mask(u32 first_col, u32 ncols) {
    const u32 first = first_col / TC5_ALLOC_UNIT;
    const u32 last = (first_col + ncols - 1) / TC5_ALLOC_UNIT;
    const u32 count = last - first + 1;
    return (count >= 32 ? kFullMask : ((1u << count) - 1u)) << first;
}

__device__ __forceinline__ bool columns_allocated(u32 used_chunks, u32 col) {
    return (used_chunks >> (col / TC5_ALLOC_UNIT)) & 1u;
}

// Sets the written bits of the cells this lane names; lanes that name the same bitmap word
// combine first so that the warp issues one atomic per word.
__device__ __forceinline__ void mark_written(const Cta& c, u32 lane, u32 col, bool valid) {
    const u32 word = valid ? col * 4 + lane / 32 : 0xffffffffu;
    u32 peers;
    asm volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(peers) : "r"(word), "r"(kFullMask));
    const u32 bit = valid ? 1u << (lane % 32) : 0u;
    u32 bits;
    asm volatile("redux.sync.or.b32 %0, %1, %2;" : "=r"(bits) : "r"(bit), "r"(peers));
    if (valid && lane_id() == static_cast<u32>(__ffs(peers) - 1)) {
        atomicOr(&c.meta->written[word], bits);
    }
}

// ---- allocation ------------------------------------------------------------------------------

__device__ __forceinline__ bool legal_ncols(u32 ncols) {
    return ncols >= 32 && ncols <= 512 && (ncols & (ncols - 1)) == 0;
}

__device__ __forceinline__ void lock(Tc5CtaMeta* meta) {
    while (atomicCAS(&meta->lock, 0u, 1u) != 0u) {
    }
    __threadfence_block();
}

__device__ __forceinline__ void unlock(Tc5CtaMeta* meta) {
    __threadfence_block();
    atomicExch(&meta->lock, 0u);
}

__device__ __forceinline__ void alloc(u32 dst_smem, u32 ncols, u32 site) {
    TC5_STRICT_ENTRY(TC5_OP_ALLOC, site);
    __syncwarp();
    if (lane_id() == 0) {
        Cta c = cta();
        Tc5CtaMeta* meta = c.meta;
#if TC5_STRICT
        // Blocking alloc from the SM's TMEM, shared with the co-resident CTAs (before taking this
        // CTA's lock, so that a dealloc of this CTA can still run while we wait).
        u32 pool_chunk = TC5_ALLOC_CHUNKS;
        bool timed_out = false;  // alloc-timeout already reported: no second report as exhausted
        if (legal_ncols(ncols) && !meta->relinquished) {
            u32 pool_size = 32;
            while (pool_size < ncols) pool_size *= 2;
            pool_chunk = strict::pool_alloc(pool_size, site);
            timed_out = pool_chunk == TC5_ALLOC_CHUNKS;
        }
#else
        const bool timed_out = false;
#endif
        lock(meta);
        u32 code = 0, detail1 = 0;
        if (!legal_ncols(ncols)) {
            code = TC5_ERR_ALLOC_COLUMNS;
        } else if (meta->relinquished) {
            code = TC5_ERR_ALLOC_AFTER_RELINQUISH;
        } else if (meta->last_ncols != 0 && ncols > meta->last_ncols) {
            code = TC5_ERR_ALLOC_INCREASING;
            detail1 = meta->last_ncols;
        }
        // Carry on with the nearest legal size so that one mistake is reported once, not as a
        // cascade of unallocated-column errors.
        u32 size = 32;
        while (size < ncols && size < 512) size *= 2;
        const u32 chunks = size / TC5_ALLOC_UNIT;
        const u32 want = chunks >= 32 ? kFullMask : (1u << chunks) - 1u;
        u32 base_chunk = TC5_ALLOC_CHUNKS;
#if TC5_STRICT
        if (pool_chunk != TC5_ALLOC_CHUNKS && (meta->used_chunks & (want << pool_chunk)) == 0) base_chunk = pool_chunk;
#endif
        for (u32 b = 0; base_chunk == TC5_ALLOC_CHUNKS && b + chunks <= TC5_ALLOC_CHUNKS; b += chunks) {
            if ((meta->used_chunks & (want << b)) == 0) {
                base_chunk = b;
                break;
            }
        }
        u32 taddr = 0;
        if (base_chunk == TC5_ALLOC_CHUNKS) {
            if (code == 0 && !timed_out) code = TC5_ERR_ALLOC_EXHAUSTED;
            detail1 = meta->used_chunks;
        } else {
            meta->used_chunks |= want << base_chunk;
            meta->allocs[base_chunk].ncols = size;
            meta->allocs[base_chunk].site = site;
            meta->allocs[base_chunk].warp = warp_id();
            taddr = base_chunk * TC5_ALLOC_UNIT;  // lane field 0 (spec §1.2)
        }
        meta->last_ncols = size;
        unlock(meta);
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(dst_smem), "r"(taddr) : "memory");
        if (code != 0) record(code, TC5_OP_ALLOC, site, ncols, detail1);
    }
    __syncwarp();
}

__device__ __forceinline__ void dealloc(u32 taddr, u32 ncols, u32 site) {
    TC5_STRICT_ENTRY(TC5_OP_DEALLOC, site);
    __syncwarp();
    Cta c = cta();
    Tc5CtaMeta* meta = c.meta;
    const u32 col = taddr & 0xffffu;
    u32 code = 0;
    if (lane_id() == 0) {
        lock(meta);
        if (!legal_ncols(ncols)) {
            code = TC5_ERR_ALLOC_COLUMNS;
        } else if ((taddr >> 16) != 0 || col % TC5_ALLOC_UNIT != 0 || col >= TC5_TMEM_COLUMNS ||
                   meta->allocs[col / TC5_ALLOC_UNIT].ncols != ncols) {
            code = TC5_ERR_DEALLOC_UNKNOWN;
        } else {
            meta->allocs[col / TC5_ALLOC_UNIT].ncols = 0;
            meta->used_chunks &= ~chunk_mask(col, ncols);
#if TC5_STRICT
            strict::pool_free(col / TC5_ALLOC_UNIT, ncols);
#endif
        }
        unlock(meta);
        if (code != 0) record(code, TC5_OP_DEALLOC, site, taddr, ncols);
    }
    code = __shfl_sync(kFullMask, code, 0);
    if (code == 0) {
        // A later alloc of these columns starts with unwritten cells again.
        for (u32 w = lane_id(); w < ncols * 4; w += 32) {
            c.meta->written[col * 4 + w] = 0;
        }
    }
    __syncwarp();
}

__device__ __forceinline__ void relinquish_alloc_permit(u32 site) {
    TC5_STRICT_ENTRY(TC5_OP_RELINQUISH, site);
    (void)site;
    __syncwarp();
    if (lane_id() == 0) {
        Cta c = cta();
        atomicExch(&c.meta->relinquished, 1u);
    }
    __syncwarp();
}

// ---- ld / st -----------------------------------------------------------------------------------

// (lane, column) of r[i] for lane-in-warp t, unpacked (spec §2.2). imm: immHalfSplitoff (16x32bx2).
// Host-callable so that tests/tcgen05 can check it against the layout model on the CPU.
template <Shape S>
__host__ __device__ __forceinline__ void cell_of(u32 taddr, u32 imm, u32 t, u32 i, u32& lane, u32& col) {
    constexpr u32 R = regs_per_rep<S>();
    const u32 j = i / R, q = i % R;
    u32 base = taddr;
    u32 l = 0, c = 0;
    if (S == Shape::k32x32b) {
        l = t;
        c = j;
    } else if (S == Shape::k16x64b) {
        l = (t >> 2) + 8 * (t & 1);
        c = 2 * j + ((t >> 1) & 1);
    } else if (S == Shape::k16x128b) {
        l = (t >> 2) + 8 * q;
        c = 4 * j + (t & 3);
    } else if (S == Shape::k16x256b) {
        l = (t >> 2) + 8 * (q >> 1);
        c = 8 * j + 2 * (t & 3) + (q & 1);
    } else {
        if (t >= 16) base = taddr + imm;
        l = t & 15;
        c = j;
    }
    lane = (base >> 16) + l;
    col = (base & 0xffffu) + c;
}

// Physical column of half h of a register whose unpacked column is col (spec §2.3: with pack the
// register covers columns C0 + 2c and C0 + 2c + 1 of its half's base C0).
template <Shape S>
__host__ __device__ __forceinline__ u32 packed_col(bool pack, u32 taddr, u32 imm, u32 t, u32 col, u32 h) {
    if (!pack) return col;
    const u32 c0 = (S == Shape::k16x32bx2 && t >= 16) ? ((taddr + imm) & 0xffffu) : (taddr & 0xffffu);
    return c0 + 2 * (col - c0) + h;
}

// The first problem with touching this cell, in order of severity (0: none).
__device__ __forceinline__ u32 check_cell(const Cta& c, u32 used_chunks, u32 lane, u32 col, bool reading) {
    if (lane >= TC5_TMEM_LANES || col >= TC5_TMEM_COLUMNS) return TC5_ERR_TMEM_OUT_OF_RANGE;
    if (lane / 32 != warp_id() % 4) return TC5_ERR_LANE_QUARTER;
    if (!columns_allocated(used_chunks, col)) return TC5_ERR_UNALLOCATED_COLUMNS;
    if (reading && !written(c, lane, col)) return TC5_ERR_UNWRITTEN_READ;
    return 0;
}

template <Shape S, int Num, bool Pack, int Imm>
__device__ __forceinline__ u32 check_access(const Cta& c, u32 taddr, bool reading, u32& bad_lane, u32& bad_col) {
    constexpr int kRegs = regs<S, Num>();
    const u32 t = lane_id();
    const u32 used = c.meta->used_chunks;
#pragma unroll 1
    for (int i = 0; i < kRegs; ++i) {
        u32 lane, col;
        cell_of<S>(taddr, Imm, t, i, lane, col);
        for (u32 h = 0; h < (Pack ? 2u : 1u); ++h) {
            const u32 pc = packed_col<S>(Pack, taddr, Imm, t, col, h);
            const u32 code = check_cell(c, used, lane, pc, reading);
            if (code != 0) {
                bad_lane = lane;
                bad_col = pc;
                return code;
            }
        }
    }
    return 0;
}

#if TC5_STRICT
// Column span of this lane's cells, for the strict hazard checks.
template <Shape S, int Num, bool Pack, int Imm>
__device__ __forceinline__ void strict_ldst_checks(u32 op, u32 taddr, u32 site) {
    u32 lo = 0xffffffffu, hi = 0;
#pragma unroll 1
    for (int i = 0; i < regs<S, Num>(); ++i) {
        u32 lane, col;
        cell_of<S>(taddr, Imm, lane_id(), i, lane, col);
        for (u32 h = 0; h < (Pack ? 2u : 1u); ++h) {
            const u32 pc = packed_col<S>(Pack, taddr, Imm, lane_id(), col, h);
            lo = min(lo, pc);
            hi = max(hi, pc + 1);
        }
    }
    strict::ldst_checks(op, site, taddr, lo, hi);
}
#endif

template <Shape S, int Num, bool Pack, int Imm>
__device__ __forceinline__ void ld(u32 taddr, u32* r, u32 site) {
    constexpr int kRegs = regs<S, Num>();
    TC5_STRICT_ENTRY(TC5_OP_LD, site);
    __syncwarp();
    Cta c = cta();
    const u32 t = lane_id();
    u32 bad_lane = 0, bad_col = 0;
    const u32 code = check_access<S, Num, Pack, Imm>(c, taddr, true, bad_lane, bad_col);
    report_first(code, TC5_OP_LD, site, bad_lane, bad_col);
#if TC5_STRICT
    strict_ldst_checks<S, Num, Pack, Imm>(TC5_OP_LD, taddr, site);
#endif
#pragma unroll
    for (int i = 0; i < kRegs; ++i) {
        u32 lane, col;
        cell_of<S>(taddr, Imm, t, i, lane, col);
        u32 value = 0;
#pragma unroll
        for (u32 h = 0; h < (Pack ? 2u : 1u); ++h) {
            const u32 pc = packed_col<S>(Pack, taddr, Imm, t, col, h);
            const u32 word = (lane < TC5_TMEM_LANES && pc < TC5_TMEM_COLUMNS) ? *cell(c, lane, pc) : 0u;
            value |= Pack ? (word & 0xffffu) << (16 * h) : word;
        }
        r[i] = value;
    }
}

template <Shape S, int Num, bool Pack, int Imm>
__device__ __forceinline__ void st(u32 taddr, const u32* r, u32 site) {
    constexpr int kRegs = regs<S, Num>();
    TC5_STRICT_ENTRY(TC5_OP_ST, site);
    __syncwarp();
    Cta c = cta();
    const u32 t = lane_id();
    u32 bad_lane = 0, bad_col = 0;
    const u32 code = check_access<S, Num, Pack, Imm>(c, taddr, false, bad_lane, bad_col);
    report_first(code, TC5_OP_ST, site, bad_lane, bad_col);
#if TC5_STRICT
    strict_ldst_checks<S, Num, Pack, Imm>(TC5_OP_ST, taddr, site);
#endif
#pragma unroll
    for (int i = 0; i < kRegs; ++i) {
        u32 lane, col;
        cell_of<S>(taddr, Imm, t, i, lane, col);
#pragma unroll
        for (u32 h = 0; h < (Pack ? 2u : 1u); ++h) {
            const u32 pc = packed_col<S>(Pack, taddr, Imm, t, col, h);
            const bool inside = lane < TC5_TMEM_LANES && pc < TC5_TMEM_COLUMNS;
            // .unpack::16b: what lands in bits 31:16 is undocumented (spec §2.3); zero them.
            if (inside) *cell(c, lane, pc) = Pack ? (r[i] >> (16 * h)) & 0xffffu : r[i];
            mark_written(c, lane, pc, inside);
        }
    }
}

#if TC5_STRICT
__device__ __forceinline__ void wait_ld(u32 site) { strict::wait_ld(site); }
__device__ __forceinline__ void wait_st(u32 site) { strict::wait_st(site); }
__device__ __forceinline__ void fence_before_thread_sync(u32 site) { strict::fence_before(site); }
__device__ __forceinline__ void fence_after_thread_sync(u32 site) { strict::fence_after(site); }
#else
__device__ __forceinline__ void wait_ld(u32) { __syncwarp(); }
__device__ __forceinline__ void wait_st(u32) { __syncwarp(); }
// Emulated TMEM traffic is ordinary global memory: a block-scope fence orders it like any store.
__device__ __forceinline__ void fence_before_thread_sync(u32) { __threadfence_block(); }
__device__ __forceinline__ void fence_after_thread_sync(u32) { __threadfence_block(); }
#endif

}  // namespace emu
}  // namespace tc5

#include "tcgen05_emu_mma.cuh"
#if TC5_STRICT
#include "tcgen05_emu_strict.cuh"
#endif
