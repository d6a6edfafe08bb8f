// Strict mode of the tcgen05 emulator (FMHACTL_TC5_STRICT=1): an emulator that keeps time.
//
// Fast mode completes every tcgen05 operation inside its call, which is always a legal schedule
// and therefore hides missing synchronisation. Strict mode tracks asynchronous operations from
// issue to completion and completes them only through the mechanism the PTX ISA names:
//   - an MMA is queued at issue; it executes (reads SMEM/TMEM, writes D) only when a thread
//     observes the mbarrier its commit arrives on (mbar::try_wait), or, by a seeded choice per
//     commit, eagerly at the commit or at the issuing warp's next wait -- then the commit arrives;
//   - a TMA load completes (for the emulator) when a thread observes its mbarrier's phase;
//   - tcgen05.ld / st stay pending until wait::ld / wait::st.
// Every rule broken on the way is recorded with both operations (line and warp), see
// tcgen05_errors.h TC5_ERR_TMEM_BUSY and up; what is still in flight when the kernel ends is
// reported by the host (fmhactl/runtime/emulation.py reads Tc5StrictCta).
//
// The per-CTA state lives in global memory (Tc5StrictCta). Queues are written under the CTA lock;
// the hazard scans read them without it (done counters only grow, so a scan can miss a race but
// never invent one). Trace events (issue 16) are appended only when tc5_emu_state.trace != 0.
#pragma once

extern "C" {
// Lets the host tell a strict module from a fast one (cuModuleGetGlobal). Not const (a const
// would have internal linkage and no symbol) and read by state() so that it is never dropped.
__device__ unsigned int tc5_emu_strict = 1;
}

extern __shared__ __align__(16) unsigned char tc5_dynamic_smem[];

namespace tc5 {
namespace emu {
namespace strict {

__device__ __forceinline__ Tc5StrictCta* state() {
    const u32 block = block_id();
    if (tc5_emu_state.strict == 0 || block >= tc5_emu_state.ctas || tc5_emu_strict != 1) __trap();
    return reinterpret_cast<Tc5StrictCta*>(tc5_emu_state.strict) + block;
}

__device__ __forceinline__ u32 vload(const u32* p) { return *reinterpret_cast<const volatile u32*>(p); }

__device__ __forceinline__ u64 now_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ u32 leader_of(u32 mask) { return static_cast<u32>(__ffs(mask) - 1); }

__device__ __noinline__ void record_pair(u32 code, u32 op, u32 site, u32 warp, u32 d0, u32 d1, u32 other_op,
                                         u32 other_site, u32 other_warp) {
    u32* count = reinterpret_cast<u32*>(tc5_emu_state.violation_count);
    if (count == 0) __trap();
    const u32 slot = atomicAdd(count, 1u);
    if (slot < tc5_emu_state.violation_capacity) {
        Tc5Violation* v = reinterpret_cast<Tc5Violation*>(tc5_emu_state.violations) + slot;
        v->code = code;
        v->op = op;
        v->block = block_id();
        v->warp = warp;
        v->lane = lane_id();
        v->site = site;
        v->detail0 = d0;
        v->detail1 = d1;
        v->other_op = other_op;
        v->other_site = other_site;
        v->other_warp = other_warp;
        v->reserved = 0;
    }
}

__device__ __forceinline__ void trace(u32 kind, u32 site, u32 a, u32 b) {
    if (tc5_emu_state.trace == 0) return;
    u32* count = reinterpret_cast<u32*>(tc5_emu_state.trace_count);
    const u32 slot = atomicAdd(count, 1u);
    if (slot < tc5_emu_state.trace_capacity) {
        Tc5TraceEvent* e = reinterpret_cast<Tc5TraceEvent*>(tc5_emu_state.trace) + slot;
        e->time_ns = now_ns();
        e->kind = kind;
        e->block = block_id();
        e->warp = warp_id();
        e->site = site;
        e->a = a;
        e->b = b;
    }
}

__device__ __forceinline__ void lock_cta(Tc5StrictCta* s) {
    while (atomicCAS(&s->lock, 0u, 1u) != 0u) __nanosleep(64);
    __threadfence_block();
}

__device__ __forceinline__ void unlock_cta(Tc5StrictCta* s) {
    __threadfence_block();
    atomicExch(&s->lock, 0u);
}

// ---- the .sync.aligned rules ---------------------------------------------------------------------

// False (and one report) when only part of the warp executes a warp-collective tcgen05 op.
__device__ bool converged(u32 op, u32 site) {
    const u32 mask = __activemask();
    if (mask == kFullMask) return true;
    if (lane_id() == leader_of(mask)) record_pair(TC5_ERR_PARTIAL_WARP, op, site, warp_id(), mask, 0, 0, 0, 0);
    return false;
}

// False (and one report) when the operand differs across the (converged) warp.
__device__ __forceinline__ bool uniform(u32 op, u32 site, u64 value) {
    int all_same = 0;
    __match_all_sync(kFullMask, value, &all_same);
    if (all_same) return true;
    const u64 first = __shfl_sync(kFullMask, value, 0);
    const u32 differ = __ballot_sync(kFullMask, value != first);
    if (lane_id() == static_cast<u32>(__ffs(differ) - 1)) {
        record_pair(TC5_ERR_NON_UNIFORM, op, site, warp_id(), static_cast<u32>(first), static_cast<u32>(value), 0,
                    0, 0);
    }
    return false;
}

// ---- shared-memory fingerprints (proxy-fence rule, in-flight writes) -----------------------------

__device__ __forceinline__ u32 mix(u32 h) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

__device__ __forceinline__ u32 dyn_base() { return smem_addr(tc5_dynamic_smem); }

__device__ __forceinline__ u32 dyn_size() {
    u32 size;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
    return size;
}

// Blocks are 1-KiB windows of the absolute shared address space (so that a buffer aligned to 1 KiB,
// like every swizzled tile, never shares a block with its neighbours), clipped to dynamic SMEM.
// This lane's part of the fingerprint of block `block`: 16-byte shares t and t + 32.
__device__ __forceinline__ u32 block_share(u32 block, u32 t) {
    const u32 base = dyn_base(), end = base + dyn_size();
    u32 h = mix(block * 64 + t + 0x9e3779b9u);
    for (u32 half = 0; half < 2; ++half) {
        const u32 addr = block * TC5_SMEM_BLOCK_BYTES + 16 * (t + 32 * half);
        if (addr < base || addr + 16 > end) continue;
        u32 w[4];
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "r"(addr));
        for (int i = 0; i < 4; ++i) h = mix(h ^ w[i]) + i + 4 * half;
    }
    return h;
}

// Fingerprint of one block computed by the lanes of `mask` (shares spread over the active lanes).
__device__ __forceinline__ u32 block_hash(u32 block, u32 mask) {
    const u32 rank = __popc(mask & ((1u << lane_id()) - 1u)), n = __popc(mask);
    u32 h = 0;
    for (u32 t = rank; t < 32; t += n) h ^= block_share(block, t);
    return __reduce_xor_sync(mask, h);
}

// Blocks [first, last] that the byte range [lo, hi) covers; false: not (all) dynamic SMEM.
__device__ __forceinline__ bool blocks_of(u32 lo, u32 hi, u32& first, u32& last) {
    const u32 base = dyn_base(), end = base + dyn_size();
    if (lo < base || hi <= lo || hi > end) return false;
    first = lo / TC5_SMEM_BLOCK_BYTES;
    last = (hi - 1) / TC5_SMEM_BLOCK_BYTES;
    return last < TC5_SMEM_BLOCKS;
}

// Snapshot every block as the async proxy now sees it (after a fence.proxy.async or an observed TMA
// phase). Tickets make the newest snapshot win when warps snapshot concurrently.
__device__ __forceinline__ void snapshot_all(Tc5StrictCta* s, u32 mask, u32 site, bool is_fence) {
    u32 ticket = 0;
    if (lane_id() == leader_of(mask)) {
        ticket = atomicAdd(&s->hash_ticket, 1u) + 1u;
        if (is_fence) {
            s->last_fence_site = site;
            s->last_fence_warp = warp_id();
        }
    }
    ticket = __shfl_sync(mask, ticket, leader_of(mask));
    __threadfence_block();
    const u32 base = dyn_base(), size = dyn_size();
    if (size == 0) return;
    const u32 last = min((base + size - 1) / TC5_SMEM_BLOCK_BYTES, static_cast<u32>(TC5_SMEM_BLOCKS - 1));
    for (u32 b = base / TC5_SMEM_BLOCK_BYTES; b <= last; ++b) {
        const u32 h = block_hash(b, mask);
        if (lane_id() == leader_of(mask)) {
            atomicMax(&s->smem_hash[b], (static_cast<u64>(ticket) << 32) | h);
        }
    }
}

// ---- MMA operand regions --------------------------------------------------------------------------

// Byte range [lo, hi) of shared memory one MMA operand (rows x K of one instruction) reads.
__device__ __forceinline__ void operand_range(u64 desc, bool mn_major, u32 e, u32 rows, u32 k, u32& lo, u32& hi) {
    const SmemDesc d = decode_desc(desc);
    u32 mn_pick[2] = {0, rows - 1}, k_pick[2] = {0, k - 1};
    lo = 0xffffffffu;
    hi = 0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const u32 a = operand_addr(d, mn_major, e, mn_pick[i], k_pick[j]);
            lo = min(lo, a);
            hi = max(hi, a + e);
        }
    // Swizzles permute 16-byte chunks inside 128-byte lines: widen to whole lines.
    lo &= ~127u;
    hi = (hi + 127u) & ~127u;
}

// Fingerprint of the blocks of [lo, hi); also checks them against the last proxy snapshot.
__device__ __forceinline__ u32 range_hash(Tc5StrictCta* s, u32 lo, u32 hi, bool check_fence, u32& stale_block) {
    u32 first, last;
    if (!blocks_of(lo, hi, first, last)) return 0;
    u32 h = 0;
    for (u32 b = first; b <= last; ++b) {
        const u32 bh = block_hash(b, kFullMask);
        h = mix(h ^ bh) + b;
        if (check_fence && stale_block == 0xffffffffu) {
            const u64 snap = *reinterpret_cast<volatile u64*>(&s->smem_hash[b]);
            if (static_cast<u32>(snap) != bh) stale_block = b;
        }
    }
    return h;
}

struct Region {
    u32 col_lo, col_hi;  // columns [lo, hi)
    u32 quarters;        // bit q: TMEM lanes 32q..32q+31
};

__device__ __forceinline__ bool overlap(const Region& a, const Region& b) {
    return (a.quarters & b.quarters) != 0 && a.col_lo < b.col_hi && b.col_lo < a.col_hi;
}

__device__ __forceinline__ Region d_region(const Tc5StrictMma& m) {
    const IDesc id = decode_idesc(m.idesc);
    const u32 col = m.d_tmem & 0xffffu;
    return Region{col, col + id.n, 0xfu};
}

__device__ __forceinline__ Region a_region(const Tc5StrictMma& m) {
    const u32 col = m.a_tmem & 0xffffu;
    return Region{col, col + 8, (m.flags & TC5_MMA_TS) ? 0xfu : 0u};
}

// First in-flight MMA (seq in [done, issued)) whose TMEM use conflicts with an access to `r`
// (write: also its reads conflict). Returns the slot index, or -1.
__device__ __forceinline__ int find_tmem_conflict(Tc5StrictCta* s, const Region& r, bool write) {
    const u32 done = vload(&s->mma_done), issued = vload(&s->mma_issued);
    for (u32 q = done; q != issued; ++q) {
        const Tc5StrictMma& m = s->mma[q % TC5_STRICT_MMA_SLOTS];
        if (vload(&m.seq) != q) continue;
        if (overlap(d_region(m), r) || (write && overlap(a_region(m), r))) return static_cast<int>(q % TC5_STRICT_MMA_SLOTS);
    }
    return -1;
}

// ---- executing deferred MMAs ----------------------------------------------------------------------

__device__ __forceinline__ void execute_one(const Cta& c, Tc5StrictCta* s, const Tc5StrictMma& m, u32 mask) {
    const u32 rank = __popc(mask & ((1u << lane_id()) - 1u)), n = __popc(mask);
    // Operands changed since issue: something wrote them while the MMA was in flight.
    u32 stale = 0xffffffffu;
    const bool ss = !(m.flags & TC5_MMA_TS);
    u32 problem = 0, bad_lane = 0, bad_col = 0;
    if (mask == kFullMask) {
        const u32 hb = range_hash(s, m.smem_b_lo, m.smem_b_hi, false, stale);
        const u32 ha = ss ? range_hash(s, m.smem_a_lo, m.smem_a_hi, false, stale) : 0u;
        if ((hb != m.b_hash || ha != m.a_hash) && lane_id() == 0) {
            record_pair(TC5_ERR_SMEM_BUSY, ss ? TC5_OP_MMA_SS : TC5_OP_MMA_TS, m.site, m.warp,
                        hb != m.b_hash ? m.smem_b_lo : m.smem_a_lo, hb != m.b_hash ? m.smem_b_hi : m.smem_a_hi,
                        TC5_OP_GENERIC_STORE, 0, 0xffffffffu);
        }
    }
    const bool acc = (m.flags & TC5_MMA_ACCUM) != 0;
    for (u32 t = rank; t < 32; t += n) {
        u32 bl = 0, bc = 0, p;
        if (m.flags & TC5_MMA_TF32) {
            p = (m.flags & TC5_MMA_TS) ? mma_compute<Kind::tf32, true>(c, m.d_tmem, 0, m.a_tmem, m.b_desc, m.idesc, acc, bl, bc, t)
                                       : mma_compute<Kind::tf32, false>(c, m.d_tmem, m.a_desc, 0, m.b_desc, m.idesc, acc, bl, bc, t);
        } else {
            p = (m.flags & TC5_MMA_TS) ? mma_compute<Kind::f16, true>(c, m.d_tmem, 0, m.a_tmem, m.b_desc, m.idesc, acc, bl, bc, t)
                                       : mma_compute<Kind::f16, false>(c, m.d_tmem, m.a_desc, 0, m.b_desc, m.idesc, acc, bl, bc, t);
        }
        if (p != 0 && problem == 0) {
            problem = p;
            bad_lane = bl;
            bad_col = bc;
        }
    }
    const u32 bad = __ballot_sync(mask, problem != 0);
    if (bad != 0 && lane_id() == static_cast<u32>(__ffs(bad) - 1)) {
        record_pair(problem, ss ? TC5_OP_MMA_SS : TC5_OP_MMA_TS, m.site, m.warp, bad_lane, bad_col, 0, 0, 0);
    }
}

// Executes queued MMAs until every one with seq < upto has run, then performs the arrives of the
// commits that became complete. Called by the lanes of `mask` together.
__device__ __noinline__ void run_until(u32 upto, u32 mask) {
    Cta c = cta();
    Tc5StrictCta* s = state();
    const u32 leader = leader_of(mask);
    if (lane_id() == leader) lock_cta(s);
    __syncwarp(mask);
    for (;;) {
        // One decision for the whole group: lanes reading the counters themselves could disagree
        // while another warp issues, and diverge around the collectives below.
        u32 done = 0, more = 0;
        if (lane_id() == leader) {
            done = vload(&s->mma_done);
            more = static_cast<int>(upto - done) > 0 && done != vload(&s->mma_issued);
        }
        done = __shfl_sync(mask, done, leader);
        if (!__shfl_sync(mask, more, leader)) break;
        const Tc5StrictMma m = s->mma[done % TC5_STRICT_MMA_SLOTS];
        execute_one(c, s, m, mask);
        __threadfence_block();  // every lane's D writes before the leader's release-arrive
        __syncwarp(mask);
        if (lane_id() == leader) {
            __threadfence_block();
            atomicExch(&s->mma_done, done + 1);
            trace(TC5_EV_MMA_COMPLETE, m.site, m.seq, m.d_tmem);
        }
        __syncwarp(mask);
    }
    if (lane_id() == leader) {
        __threadfence_block();
        const u32 mma_done = vload(&s->mma_done);
        u32 cd = vload(&s->commit_done);
        while (cd != vload(&s->commit_issued)) {
            const Tc5StrictCommit& k = s->commits[cd % TC5_STRICT_COMMITS];
            if (static_cast<int>(k.upto - mma_done) > 0) break;
            asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(k.mbar) : "memory");
            trace(TC5_EV_COMMIT_ARRIVE, k.site, k.mbar, k.upto);
            ++cd;
            atomicExch(&s->commit_done, cd);
        }
        unlock_cta(s);
    }
    __syncwarp(mask);
}

// When a commit's MMAs run. Seed 0: always at observation (the longest legal deferral, what the
// rule tests use); otherwise a seeded choice per (CTA, commit), so a racy kernel fails the same
// way for the same seed.
__device__ __forceinline__ u32 seeded_mode(u32 commit_index) {
    if (tc5_emu_state.seed == 0) return 0;
    const u32 h = mix(tc5_emu_state.seed * 0x9e3779b9u ^ mix(block_id() * 7919u + commit_index));
    return (h & 3u) == 0 ? 1u : ((h & 3u) == 1 ? 2u : 0u);  // 1/4 eager, 1/4 next wait, 1/2 at observation
}

// ---- tcgen05 operations, strict versions ----------------------------------------------------------

__device__ __forceinline__ Tc5StrictWarp& my_warp(Tc5StrictCta* s) { return s->warps[warp_id() % TC5_STRICT_WARPS]; }

// Rules every async tcgen05 op (ld, st, mma) of this warp checks at issue. Lane 0 reports.
// `cols`: the columns the op reads (an ld after an un-waited st of other columns is legal).
__device__ __forceinline__ void async_op_checks(Tc5StrictCta* s, u32 op, u32 site, bool st_waits_needed,
                                                u32 col_lo = 0, u32 col_hi = 0xffffffffu) {
    Tc5StrictWarp& w = my_warp(s);
    if (lane_id() == 0) {
        const u32 synced = vload(&w.synced_site);
        if (synced != 0) {
            record_pair(TC5_ERR_MISSING_FENCE_AFTER, op, site, warp_id(), 0, 0, TC5_OP_MBAR_WAIT, synced, warp_id());
            w.synced_site = 0;  // one report per missing fence
        }
        const u32 pst = vload(&w.pending_st_site);
        const bool touches = col_lo < vload(&w.st_col_hi) && vload(&w.st_col_lo) < col_hi;
        if (st_waits_needed && pst != 0 && touches) {
            record_pair(TC5_ERR_ST_NOT_WAITED, op, site, warp_id(), 0, 0, TC5_OP_ST, pst, warp_id());
            w.pending_st_site = 0;
        }
        w.async_since_fence = site;
        w.async_op = op;
        w.tc5_ops = 1;
    }
}

// ld/st hazard and bookkeeping. lo/hi: columns this lane touches.
__device__ void ldst_checks(u32 op, u32 site, u32 taddr, u32 col_lo, u32 col_hi) {
    if (!uniform(op, site, taddr)) return;
    Tc5StrictCta* s = state();
    const u32 lo = __reduce_min_sync(kFullMask, col_lo), hi = __reduce_max_sync(kFullMask, col_hi);
    async_op_checks(s, op, site, op == TC5_OP_LD, lo, hi);
    if (lane_id() == 0) {
        const Region r{lo, hi, 1u << (warp_id() % 4)};
        const int slot = find_tmem_conflict(s, r, op == TC5_OP_ST);
        if (slot >= 0) {
            const Tc5StrictMma& m = s->mma[slot];
            record_pair(TC5_ERR_TMEM_BUSY, op, site, warp_id(), lo, hi,
                        (m.flags & TC5_MMA_TS) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS, m.site, m.warp);
        }
        Tc5StrictWarp& w = my_warp(s);
        if (op == TC5_OP_LD) {
            w.pending_ld_site = site;
        } else {
            // The union of the columns of the st calls not yet waited.
            const bool first = w.pending_st_site == 0;
            w.st_col_lo = first ? lo : min(w.st_col_lo, lo);
            w.st_col_hi = first ? hi : max(w.st_col_hi, hi);
            w.pending_st_site = site;
        }
        trace(op == TC5_OP_LD ? TC5_EV_LD : TC5_EV_ST, site, lo, hi);
    }
    __syncwarp();
}

// ---- cp.async (non-bulk) groups ------------------------------------------------------------------
// PTX ISA (cp.async.commit_group / wait_group / wait_all): a thread's cp.async copies complete, for
// anyone, only once a wait of that thread retires their group; an MMA reading those bytes before is
// a race whatever the copy's real speed (cp-async-not-waited). Tracked per warp, its lanes together:
// every kernel we know gathers, commits and waits with whole warps (cp_async.cuh, CUTLASS's SM80
// copy atoms). Divergent lanes can only make the warp retire groups earlier than some lane does:
// a missed report, never a false one. A group is the byte span [lo, hi) of its copies and the
// bitmap of the 1-KiB blocks they wrote.

__device__ __forceinline__ Tc5StrictCpWarp& my_cp(Tc5StrictCta* s) { return s->cp[warp_id() % TC5_STRICT_WARPS]; }

__device__ __forceinline__ bool spans(u32 lo, u32 hi, u32 a_lo, u32 a_hi) { return lo < hi && lo < a_hi && a_lo < hi; }

// Any SMEM block of [lo, hi) in the bitmap `blocks`.
__device__ __forceinline__ bool blocks_hit(const u32* blocks, u32 lo, u32 hi) {
    const u32 first = lo / TC5_SMEM_BLOCK_BYTES, last = min((hi - 1) / TC5_SMEM_BLOCK_BYTES, TC5_SMEM_BLOCKS - 1u);
    for (u32 b = first; b <= last; ++b)
        if (vload(&blocks[b / 32]) & (1u << (b % 32))) return true;
    return false;
}

// The line of a copy of warp `w` not yet retired that writes into [lo, hi), or 0: its group's byte
// span and one of the 1-KiB blocks it wrote both meet the range (the span alone would also cover
// the stages between a K and a V gather, the blocks alone a neighbour inside one block).
__device__ __forceinline__ u32 cp_unretired_site(const Tc5StrictCpWarp& w, u32 lo, u32 hi) {
    if (lo >= hi) return 0;
    if (spans(vload(&w.open_lo), vload(&w.open_hi), lo, hi) && blocks_hit(w.open_blocks, lo, hi))
        return vload(&w.open_site);
    const u32 commits = vload(&w.commits);
    for (u32 g = vload(&w.retired); g != commits; ++g) {
        const u32 i = g % TC5_STRICT_CP_GROUPS;
        if (spans(vload(&w.group_lo[i]), vload(&w.group_hi[i]), lo, hi) &&
            blocks_hit(w.group_blocks + i * TC5_CP_BLOCK_WORDS, lo, hi))
            return vload(&w.group_site[i]);
    }
    return 0;
}

// At an MMA's issue (lane 0): an operand whose bytes a cp.async may still be writing.
__device__ __forceinline__ void cp_async_check(Tc5StrictCta* s, u32 op, const Tc5StrictMma& m) {
    for (u32 pending = vload(&s->cp_pending); pending != 0; pending &= pending - 1) {
        const u32 w = static_cast<u32>(__ffs(pending) - 1);
        const u32 in_b = cp_unretired_site(s->cp[w], m.smem_b_lo, m.smem_b_hi);
        const u32 in_a = (m.flags & TC5_MMA_TS) ? 0u : cp_unretired_site(s->cp[w], m.smem_a_lo, m.smem_a_hi);
        if (in_b != 0 || in_a != 0) {
            record_pair(TC5_ERR_CP_ASYNC_NOT_WAITED, op, m.site, m.warp, in_b != 0 ? m.smem_b_lo : m.smem_a_lo,
                        in_b != 0 ? m.smem_b_hi : m.smem_a_hi, TC5_OP_CP_ASYNC, in_b != 0 ? in_b : in_a, w);
            return;
        }
    }
}

// Lanes of the active mask each issued a copy into [dst, dst + bytes): the warp's open range grows.
__device__ void cp_async_issue(u32 dst, u32 bytes, u32 site) {
    const u32 mask = __activemask();
    const u32 lo = __reduce_min_sync(mask, dst), hi = __reduce_max_sync(mask, dst + bytes);
    Tc5StrictCta* s = state();
    Tc5StrictCpWarp& w = my_cp(s);
    // A copy (4, 8 or 16 bytes, aligned to its size) lies in one 1-KiB block; lanes that hit the same
    // bitmap word set their bits with one atomic. Blocks past the tracked window are not recorded.
    const u32 block = dst / TC5_SMEM_BLOCK_BYTES;
    const u32 word = block < TC5_SMEM_BLOCKS ? block / 32 : 0xffffffffu;
    const u32 peers = __match_any_sync(mask, word);
    const u32 bits = __reduce_or_sync(peers, word != 0xffffffffu ? 1u << (block % 32) : 0u);
    if (word != 0xffffffffu && lane_id() == leader_of(peers)) atomicOr(&w.open_blocks[word], bits);
    if (lane_id() != leader_of(mask)) return;
    if (w.open_lo == w.open_hi) {
        w.open_lo = lo;
        w.open_hi = hi;
        w.open_site = site;
    } else {
        w.open_lo = min(w.open_lo, lo);
        w.open_hi = max(w.open_hi, hi);
    }
    __threadfence_block();
    atomicOr(&s->cp_pending, 1u << (warp_id() % 32));
}

// commit_group (leader lane): the open copies become the warp's newest group (an empty one too:
// it keeps wait_group's count in step). A ring already full forgets its oldest group.
__device__ __forceinline__ void cp_commit_leader(Tc5StrictCpWarp& w, u32 site) {
    if (w.commits - w.retired >= TC5_STRICT_CP_GROUPS) w.retired = w.commits - TC5_STRICT_CP_GROUPS + 1;
    const u32 i = w.commits % TC5_STRICT_CP_GROUPS;
    w.group_lo[i] = w.open_lo;
    w.group_hi[i] = w.open_hi;
    w.group_site[i] = w.open_lo == w.open_hi ? site : w.open_site;
    for (u32 k = 0; k < TC5_CP_BLOCK_WORDS; ++k) {
        w.group_blocks[i * TC5_CP_BLOCK_WORDS + k] = w.open_blocks[k];
        w.open_blocks[k] = 0;
    }
    w.open_lo = w.open_hi = w.open_site = 0;
    __threadfence_block();
    w.commits += 1;
}

__device__ void cp_async_commit(u32 site) {
    const u32 mask = __activemask();
    if (lane_id() == leader_of(mask)) cp_commit_leader(my_cp(state()), site);
}

// wait_group n: every group but the n most recent is complete; wait_all: commit, then n = 0.
__device__ void cp_async_wait(u32 n, bool all, u32 site) {
    const u32 mask = __activemask();
    if (lane_id() != leader_of(mask)) return;
    Tc5StrictCta* s = state();
    Tc5StrictCpWarp& w = my_cp(s);
    if (all) {
        cp_commit_leader(w, site);
        n = 0;
    }
    if (w.commits - w.retired > n) w.retired = w.commits - n;
    __threadfence_block();
    if (w.retired == w.commits && w.open_lo == w.open_hi) atomicAnd(&s->cp_pending, ~(1u << (warp_id() % 32)));
}

// cp.async.mbarrier.arrive (PTX path): the barrier tracks the warp's copies, so none is left for a
// wait to retire, and no group is committed.
__device__ void cp_async_arrive(u32) {
    const u32 mask = __activemask();
    if (lane_id() != leader_of(mask)) return;
    Tc5StrictCta* s = state();
    Tc5StrictCpWarp& w = my_cp(s);
    for (u32 k = 0; k < TC5_CP_BLOCK_WORDS; ++k) w.open_blocks[k] = 0;
    w.open_lo = w.open_hi = w.open_site = 0;
    w.retired = w.commits;
    __threadfence_block();
    atomicAnd(&s->cp_pending, ~(1u << (warp_id() % 32)));
}

__device__ void enqueue_mma(u32 d_tmem, u64 a_desc, u32 a_tmem, u64 b_desc, u32 idesc, u32 flags,
                                         u32 site) {
    Tc5StrictCta* s = state();
    const u32 op = (flags & TC5_MMA_TS) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS;
    if (!uniform(op, site, d_tmem) || !uniform(op, site, a_desc ^ a_tmem) || !uniform(op, site, b_desc) ||
        !uniform(op, site, (static_cast<u64>(idesc) << 32) | flags)) {
        return;
    }
    async_op_checks(s, op, site, true);
    // A full ring: the oldest MMAs complete early (always a legal schedule).
    u32 full = 0, issued_now = 0;
    if (lane_id() == 0) {
        issued_now = vload(&s->mma_issued);
        full = issued_now - vload(&s->mma_done) >= TC5_STRICT_MMA_SLOTS;
    }
    if (__shfl_sync(kFullMask, full, 0)) run_until(__shfl_sync(kFullMask, issued_now, 0), kFullMask);

    Tc5StrictMma m;
    m.a_desc = a_desc;
    m.b_desc = b_desc;
    m.d_tmem = d_tmem;
    m.a_tmem = a_tmem;
    m.idesc = idesc;
    m.flags = flags;
    m.site = site;
    m.warp = warp_id();
    const IDesc id = decode_idesc(idesc);
    const u32 e = (flags & TC5_MMA_TF32) ? 4u : 2u, k = (flags & TC5_MMA_TF32) ? 8u : 16u;
    operand_range(b_desc, id.b_mn_major, e, id.n, k, m.smem_b_lo, m.smem_b_hi);
    m.smem_a_lo = m.smem_a_hi = 0;
    if (!(flags & TC5_MMA_TS)) operand_range(a_desc, id.a_mn_major, e, id.m, k, m.smem_a_lo, m.smem_a_hi);
    // Fingerprints now; a different one at execution means a write while in flight. A block that
    // differs from the last proxy snapshot was written by the generic proxy with no fence since.
    u32 stale = 0xffffffffu;
    m.b_hash = range_hash(s, m.smem_b_lo, m.smem_b_hi, true, stale);
    m.a_hash = (flags & TC5_MMA_TS) ? 0u : range_hash(s, m.smem_a_lo, m.smem_a_hi, true, stale);
    if (stale != 0xffffffffu && lane_id() == 0) {
        // The other operation named: the last fence.proxy.async (0: none ran), the writes came after it.
        const u32 fence_site = vload(&s->last_fence_site);
        record_pair(TC5_ERR_MISSING_PROXY_FENCE, op, site, warp_id(), stale * TC5_SMEM_BLOCK_BYTES, fence_site,
                    fence_site ? TC5_OP_FENCE_PROXY : TC5_OP_GENERIC_STORE, fence_site,
                    fence_site ? vload(&s->last_fence_warp) : 0xffffffffu);
    }
    if (lane_id() == 0) {
        cp_async_check(s, op, m);
        lock_cta(s);
        // TMEM hazards against the MMAs still in flight. MMAs of one thread into the same
        // accumulator with the same shape are pipelined (spec §7.2); anything else overlapping is not.
        const u32 done = vload(&s->mma_done), issued = s->mma_issued;
        const Region dr = d_region(m), ar = a_region(m);
        for (u32 q = done; q != issued; ++q) {
            const Tc5StrictMma& o = s->mma[q % TC5_STRICT_MMA_SLOTS];
            const bool same_acc = o.d_tmem == m.d_tmem && o.idesc == m.idesc && o.warp == m.warp;
            const bool clash = (!same_acc && overlap(d_region(o), dr)) || overlap(a_region(o), dr) ||
                               overlap(d_region(o), ar);
            if (clash) {
                record_pair(TC5_ERR_TMEM_BUSY, op, site, m.warp, dr.col_lo, dr.col_hi,
                            (o.flags & TC5_MMA_TS) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS, o.site, o.warp);
                break;
            }
        }
        m.seq = issued;
        s->mma[issued % TC5_STRICT_MMA_SLOTS] = m;
        __threadfence_block();
        atomicExch(&s->mma_issued, issued + 1);
        my_warp(s).mma_count += 1;
        trace(TC5_EV_MMA_ISSUE, site, m.seq, d_tmem);
        unlock_cta(s);
    }
    __syncwarp();
}

__device__ void commit(u32 mbar, u32 site) {
    if (!converged(TC5_OP_COMMIT, site) || !uniform(TC5_OP_COMMIT, site, mbar)) return;
    Tc5StrictCta* s = state();
    Tc5StrictWarp& w = my_warp(s);
    u32 mode = 0, upto = 0;
    if (lane_id() == 0) {
        if (vload(&w.mma_count) == 0) {
            record_pair(TC5_ERR_COMMIT_WITHOUT_MMA, TC5_OP_COMMIT, site, warp_id(), mbar, 0, 0, 0, 0);
        }
        // Commit implies fence::before_thread_sync (spec §7.1).
        w.async_since_fence = 0;
        lock_cta(s);
        // A full commit ring: complete the oldest first (legal: completion may come early).
        while (s->commit_issued - vload(&s->commit_done) >= TC5_STRICT_COMMITS) {
            unlock_cta(s);
            run_until(s->commits[vload(&s->commit_done) % TC5_STRICT_COMMITS].upto, 1u << lane_id());
            lock_cta(s);
        }
        const u32 index = s->commit_issued;
        Tc5StrictCommit& k = s->commits[index % TC5_STRICT_COMMITS];
        k.mbar = mbar;
        k.upto = s->mma_issued;
        upto = k.upto;
        k.site = site;
        k.warp = warp_id();
        mode = seeded_mode(index);
        s->commit_mode[index % TC5_STRICT_COMMITS] = mode;
        // The tcgen05-ordering flag of the barrier (waits on it need fence::after_thread_sync), set
        // before the commit is visible: no waiter can observe its arrive without the flag.
        for (u32 i = 0; i < TC5_STRICT_BARS; ++i)
            if (vload(&s->bars[i].addr) == mbar) atomicOr(&s->bars[i].flags, 1u);
        __threadfence_block();
        atomicExch(&s->commit_issued, index + 1);
        trace(TC5_EV_COMMIT, site, mbar, k.upto);
        unlock_cta(s);
    }
    mode = __shfl_sync(kFullMask, mode, 0);
    upto = __shfl_sync(kFullMask, upto, 0);
    if (mode == 1) run_until(upto, kFullMask);
    __syncwarp();
}

__device__ void wait_ld(u32 site) {
    if (!converged(TC5_OP_WAIT_LD, site)) return;
    Tc5StrictCta* s = state();
    if (lane_id() == 0) {
        my_warp(s).pending_ld_site = 0;
        trace(TC5_EV_WAIT_LD, site, 0, 0);
    }
    __syncwarp();
}

__device__ void wait_st(u32 site) {
    if (!converged(TC5_OP_WAIT_ST, site)) return;
    Tc5StrictCta* s = state();
    if (lane_id() == 0) {
        my_warp(s).pending_st_site = 0;
        trace(TC5_EV_WAIT_ST, site, 0, 0);
    }
    __syncwarp();
}

// Fences are per thread (no .sync.aligned): the active lanes' leader updates the warp state.
__device__ void fence_before(u32) {
    __threadfence_block();
    const u32 mask = __activemask();
    if (lane_id() == leader_of(mask)) my_warp(state()).async_since_fence = 0;
}

__device__ void fence_after(u32) {
    __threadfence_block();
    const u32 mask = __activemask();
    if (lane_id() == leader_of(mask)) my_warp(state()).synced_site = 0;
}

__device__ __forceinline__ u32 sm_id() {
    u32 id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

__device__ __forceinline__ Tc5SmPool* pool() {
    if (tc5_emu_state.sm_pools == 0 || tc5_emu_state.sm_pool_count == 0) __trap();
    return reinterpret_cast<Tc5SmPool*>(tc5_emu_state.sm_pools) + sm_id() % tc5_emu_state.sm_pool_count;
}

// Blocking tcgen05.alloc from the TMEM of this SM, shared with the CTAs resident on it. Returns the
// first 32-column chunk, or TC5_ALLOC_CHUNKS after reporting alloc-timeout (the caller then falls
// back to a private allocation so that the kernel goes on and the report survives).
__device__ u32 pool_alloc(u32 size, u32 site) {
    Tc5SmPool* sp = pool();
    const u32 chunks = size / TC5_ALLOC_UNIT;
    const u32 want = chunks >= 32 ? kFullMask : (1u << chunks) - 1u;
    const u64 start = now_ns();
    bool waited = false;
    for (;;) {
        lock(reinterpret_cast<Tc5CtaMeta*>(sp));  // Tc5SmPool starts with its lock word, as Tc5CtaMeta
        u32 base_chunk = TC5_ALLOC_CHUNKS;
        for (u32 b = 0; b + chunks <= TC5_ALLOC_CHUNKS; b += chunks) {
            if ((sp->used_chunks & (want << b)) == 0) {
                base_chunk = b;
                break;
            }
        }
        if (base_chunk != TC5_ALLOC_CHUNKS) {
            bool holder = false;
            for (u32 i = 0; i < TC5_ALLOC_CHUNKS; ++i) holder = holder || (((sp->used_chunks >> i) & 1u) && sp->owner_block[i] == block_id());
            sp->used_chunks |= want << base_chunk;
            for (u32 i = base_chunk; i < base_chunk + chunks; ++i) {
                sp->owner_block[i] = block_id();
                sp->owner_site[i] = site;
            }
            if (!holder) {
                sp->resident += 1;
                sp->max_resident = max(sp->max_resident, sp->resident);
            }
            if (waited) sp->blocked += 1;
            unlock(reinterpret_cast<Tc5CtaMeta*>(sp));
            trace(TC5_EV_ALLOC, site, base_chunk * TC5_ALLOC_UNIT, size);
            return base_chunk;
        }
        // Name a holder for the report: the owner of the lowest used chunk.
        u32 holder_block = 0, holder_site = 0;
        for (u32 i = 0; i < TC5_ALLOC_CHUNKS; ++i) {
            if ((sp->used_chunks >> i) & 1u) {
                holder_block = sp->owner_block[i];
                holder_site = sp->owner_site[i];
                break;
            }
        }
        const u32 used = sp->used_chunks;
        unlock(reinterpret_cast<Tc5CtaMeta*>(sp));
        waited = true;
        // After one timeout on this SM the columns are known to be stuck: later allocs there report
        // at once instead of each waiting out the limit (which would add up to a watchdog HANG).
        if (vload(&sp->timed_out) != 0 || now_ns() - start > tc5_emu_state.alloc_timeout_ns) {
            atomicExch(&sp->timed_out, 1u);
            // other_warp carries the holder's block: a CTA, not a warp, owns TMEM columns.
            record_pair(TC5_ERR_ALLOC_TIMEOUT, TC5_OP_ALLOC, site, warp_id(), size, used, TC5_OP_ALLOC, holder_site,
                        holder_block);
            return TC5_ALLOC_CHUNKS;
        }
        __nanosleep(2000);
    }
}

__device__ void pool_free(u32 first_chunk, u32 ncols) {
    Tc5SmPool* sp = pool();
    lock(reinterpret_cast<Tc5CtaMeta*>(sp));
    const u32 mask = chunk_mask(first_chunk * TC5_ALLOC_UNIT, ncols);
    u32 mine = 0;
    for (u32 i = 0; i < TC5_ALLOC_CHUNKS; ++i)
        if (((sp->used_chunks >> i) & 1u) && sp->owner_block[i] == block_id()) mine |= 1u << i;
    if ((mine & mask) == mask) {
        sp->used_chunks &= ~mask;
        if ((mine & ~mask) == 0 && sp->resident > 0) sp->resident -= 1;
    }
    unlock(reinterpret_cast<Tc5CtaMeta*>(sp));
    trace(TC5_EV_DEALLOC, 0, first_chunk * TC5_ALLOC_UNIT, ncols);
}

// Executes the deferred groups whose commit arrives on `bar` (and, for the issuing warp, the
// groups it chose to complete at its next wait). Called by whichever lanes poll.
__device__ void poll(u32 bar, u32) {
    const u32 mask = __activemask();
    Tc5StrictCta* s = state();
    u32 target = 0;
    bool any = false;
    if (lane_id() == leader_of(mask)) {
        const u32 done = vload(&s->commit_done), issued = vload(&s->commit_issued);
        for (u32 i = done; i != issued; ++i) {
            const Tc5StrictCommit& k = s->commits[i % TC5_STRICT_COMMITS];
            const bool mine_now = s->commit_mode[i % TC5_STRICT_COMMITS] == 2 && k.warp == warp_id();
            if (k.mbar == bar || mine_now) {
                target = k.upto;
                any = true;
            }
        }
    }
    any = __shfl_sync(mask, any, leader_of(mask));
    target = __shfl_sync(mask, target, leader_of(mask));
    if (any) run_until(target, mask);
}

}  // namespace strict
}  // namespace emu
}  // namespace tc5

// ---- the hooks mbarrier.cuh, tma.cuh and cp_async.cuh call ---------------------------------------

using tc5::emu::strict::leader_of;
using tc5::emu::strict::vload;

__device__ void tc5_strict_mbar_init(unsigned bar, unsigned count, unsigned site) {
    Tc5StrictCta* s = tc5::emu::strict::state();
    tc5::emu::strict::trace(TC5_EV_MBAR_INIT, site, bar, count);
    for (unsigned i = 0; i < TC5_STRICT_BARS; ++i) {
        if (atomicCAS(&s->bars[i].addr, 0u, bar) == 0u || vload(&s->bars[i].addr) == bar) return;
    }
}

__device__ void tc5_strict_mbar_arrive(unsigned bar, unsigned tx_bytes, unsigned site) {
    using namespace tc5::emu;
    Tc5StrictCta* s = strict::state();
    Tc5StrictWarp& w = strict::my_warp(s);
    const unsigned mask = __activemask();
    if (tc5::emu::lane_id() == leader_of(mask)) {
        const unsigned pld = vload(&w.pending_ld_site), pst = vload(&w.pending_st_site);
        const unsigned async = vload(&w.async_since_fence);
        if (pld != 0) {
            strict::record_pair(TC5_ERR_LD_NOT_WAITED, TC5_OP_MBAR_ARRIVE, site, warp_id(), bar, 0, TC5_OP_LD, pld, warp_id());
            w.pending_ld_site = 0;
        }
        if (pst != 0) {
            strict::record_pair(TC5_ERR_ST_NOT_WAITED, TC5_OP_MBAR_ARRIVE, site, warp_id(), bar, 0, TC5_OP_ST, pst, warp_id());
            w.pending_st_site = 0;
        }
        if (async != 0) {
            strict::record_pair(TC5_ERR_MISSING_FENCE_BEFORE, TC5_OP_MBAR_ARRIVE, site, warp_id(), bar, 0,
                                vload(&w.async_op), async, warp_id());
            w.async_since_fence = 0;
        }
        if (vload(&w.tc5_ops)) {
            for (unsigned i = 0; i < TC5_STRICT_BARS; ++i)
                if (s->bars[i].addr == bar) atomicOr(&s->bars[i].flags, 1u);
        }
        if (tx_bytes != 0) {
            // expect-tx: the phase needs TMA bytes; tracked like a load without a destination.
            for (unsigned i = 0; i < TC5_STRICT_TX; ++i) {
                if (atomicCAS(&s->tx[i].mbar, 0u, bar) == 0u) {
                    s->tx[i].dst = 0;
                    s->tx[i].site = site;
                    s->tx[i].warp = warp_id();
                    break;
                }
            }
        }
        strict::trace(TC5_EV_ARRIVE, site, bar, tx_bytes);
    }
}

__device__ void tc5_strict_mbar_poll(unsigned bar, unsigned site) { tc5::emu::strict::poll(bar, site); }

__device__ void tc5_strict_mbar_observed(unsigned bar, bool done, unsigned site) {
    using namespace tc5::emu;
    Tc5StrictCta* s = strict::state();
    Tc5StrictWarp& w = strict::my_warp(s);
    const unsigned mask = __activemask();
    // try_wait suspends each thread on its own, so lanes that arrive here together can disagree on
    // `done`. The lanes that saw the phase complete go on as one group and the others loop as
    // another; a sync over all of `mask` would wait for lanes that already left (session 9: the
    // load warp's lane 0 in __shfl_sync(mask) while lanes 1-31 waited for it at elect.sync).
    const unsigned seen = __ballot_sync(mask, done);
    const unsigned group = done ? seen : mask & ~seen;
    const bool lead = lane_id() == leader_of(group);
    if (!done) {
        if (lead && vload(&w.wait_bar) != bar) {
            w.wait_bar = bar;
            strict::trace(TC5_EV_WAIT_BEGIN, site, bar, 0);
        }
        return;
    }
    bool tma_landed = false;
    if (lead) {
        for (unsigned i = 0; i < TC5_STRICT_TX; ++i) {
            if (vload(&s->tx[i].mbar) == bar) {
                tma_landed = tma_landed || s->tx[i].dst != 0;
                atomicExch(&s->tx[i].mbar, 0u);
            }
        }
        for (unsigned i = 0; i < TC5_STRICT_BARS; ++i)
            if (vload(&s->bars[i].addr) == bar && (vload(&s->bars[i].flags) & 1u)) w.synced_site = site;
        w.wait_bar = 0;
        strict::trace(TC5_EV_WAIT_END, site, bar, 0);
    }
    tma_landed = __shfl_sync(group, tma_landed, leader_of(group));
    // TMA data is async-proxy data: it needs no proxy fence, so it joins the snapshot.
    if (tma_landed) strict::snapshot_all(s, group, site, false);
}

__device__ void tc5_strict_tma_load(unsigned dst, unsigned bar, unsigned site) {
    using namespace tc5::emu;
    Tc5StrictCta* s = strict::state();
    // A TMA write into SMEM an in-flight MMA still reads.
    const unsigned done = vload(&s->mma_done), issued = vload(&s->mma_issued);
    for (unsigned q = done; q != issued; ++q) {
        const Tc5StrictMma& m = s->mma[q % TC5_STRICT_MMA_SLOTS];
        if (vload(&m.seq) != q) continue;
        const bool in_b = dst >= m.smem_b_lo && dst < m.smem_b_hi;
        const bool in_a = !(m.flags & TC5_MMA_TS) && dst >= m.smem_a_lo && dst < m.smem_a_hi;
        if (in_a || in_b) {
            strict::record_pair(TC5_ERR_SMEM_BUSY, TC5_OP_TMA_LOAD, site, warp_id(), dst, bar,
                                (m.flags & TC5_MMA_TS) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS, m.site, m.warp);
            break;
        }
    }
    for (unsigned i = 0; i < TC5_STRICT_TX; ++i) {
        if (atomicCAS(&s->tx[i].mbar, 0u, bar) == 0u) {
            s->tx[i].dst = dst;
            s->tx[i].site = site;
            s->tx[i].warp = warp_id();
            break;
        }
    }
    strict::trace(TC5_EV_TMA_ISSUE, site, dst, bar);
}

__device__ void tc5_strict_cp_async(unsigned dst, unsigned bytes, unsigned site) {
    tc5::emu::strict::cp_async_issue(dst, bytes, site);
}
__device__ void tc5_strict_cp_commit(unsigned site) { tc5::emu::strict::cp_async_commit(site); }
__device__ void tc5_strict_cp_wait(unsigned n, bool all, unsigned site) { tc5::emu::strict::cp_async_wait(n, all, site); }

__device__ void tc5_strict_fence_proxy_async(unsigned site) {
    using namespace tc5::emu;
    const unsigned mask = __activemask();
    strict::snapshot_all(strict::state(), mask, site, true);
}
