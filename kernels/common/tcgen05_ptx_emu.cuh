// Entry points of the PTX-level tcgen05 emulator (fmhactl/ptx, docs/ptx-emulation.md).
//
// The rewriter replaces each tcgen05 instruction of an sm_100a PTX module with a call to one of
// these extern "C" functions, operands as written; NVRTC compiles them (-rdc, sm_90a) and nvJitLink
// links them with the rewritten module. They are thin shells over the existing emulator
// (tcgen05_emu*.cuh, included through tcgen05.cuh): TMEM, its bookkeeping, the violation records
// and the host side are the same as for the tc5:: emulated build.
//
// Issue semantics: ld/st/alloc/dealloc/relinquish/wait are .sync.aligned in PTX, so the whole warp
// calls and the emulator's warp-collective code runs unchanged (in a strict build: the strict
// emulator's, with its ld/st bookkeeping and hazard rules). mma and commit are single-thread in PTX:
// the calling thread alone checks the operands. Fast build (FMHACTL_TC5_STRICT unset): the MMA is
// queued for its warp and executed at the warp's next convergence point or at its commit, which
// then arrives once (completion at or soon after issue: a legal schedule). Strict build
// (FMHACTL_TC5_STRICT=1): the MMA enters the strict emulator's per-CTA queue (tcgen05_emu_strict.cuh)
// from the one thread and runs only when a thread observes its commit's mbarrier (the rewriter
// turns the PTX's mbarrier init/arrive/try_wait/test_wait, TMA loads and fence.proxy.async into
// calls of the strict emulator's hooks, tc5ptx_mbar_* below, guards TMA tile stores with
// tc5ptx_tma_store_check and tracks bulk stores through their async-groups, tc5ptx_bulk_*), or at
// the seeded eager points.
//
// ld/st entry points are generated per form by TC5PTX_LD / TC5PTX_ST in the source the rewriter
// writes for each module (fmhactl/ptx/emulator.py): the shape, .num, packing and the immediate
// half-split offset are template arguments, exactly as the tc5:: backend instantiates them.
#pragma once

#include "tcgen05.cuh"

#if !TC5_EMULATED
#error "tcgen05_ptx_emu.cuh: compile with FMHACTL_TCGEN05_EMULATE=1"
#endif

namespace tc5ptx {

using tc5::u32;
using tc5::u64;
namespace emu = tc5::emu;

template <int N>
struct Regs {
    u32 r[N];
};

constexpr u32 kKindF16 = 0, kKindTf32 = 1;

// ---- issued, not yet executed MMAs ----------------------------------------------------------------
// The issuing thread queues its MMA (per warp, in order); the whole warp executes the queue
// cooperatively -- lane t computes share t, as the tc5:: emulator does -- at its next full-warp
// convergence point (bar.warp.sync -1 or bar.sync, after which the rewriter calls tc5ptx_drain).
// A commit first executes what its warp still has queued (on the committing thread), so every
// MMA completes before the arrive that announces it. Entries carry the launch's %gridid: a queue
// left by an earlier launch is discarded, never executed. CTAs/warps past the table's size, a full
// queue and the disable-output-lane forms execute on the issuing thread at issue.
constexpr u32 kMaxCtas = 16384, kMaxWarps = 8, kQueue = 4;
constexpr u32 kFlagTf32 = 1, kFlagTs = 2, kFlagAccumulate = 4;

struct PendingMma {
    u64 a_desc, b_desc;
    u32 d_tmem, a_tmem, idesc, flags, site, pad;
};

struct WarpQueue {
    unsigned long long grid;
    u32 count, pad;
    PendingMma q[kQueue];
};

__device__ __forceinline__ u64 grid_id() {
    u64 g;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
    return g;
}

// One lane share (t) of a queued MMA; returns the problem code (0: none), like mma_compute.
// Not inlined (nor are the helpers below): one copy of each mma_compute instantiation in the module.
__device__ __noinline__ u32 execute_share(const emu::Cta& c, const PendingMma& m, u32 t, u32& bad_lane, u32& bad_col) {
    const bool acc = (m.flags & kFlagAccumulate) != 0;
    if (m.flags & kFlagTf32) {
        return (m.flags & kFlagTs) ? emu::mma_compute<tc5::Kind::tf32, true>(c, m.d_tmem, 0, m.a_tmem, m.b_desc, m.idesc, acc, bad_lane, bad_col, t)
                                   : emu::mma_compute<tc5::Kind::tf32, false>(c, m.d_tmem, m.a_desc, 0, m.b_desc, m.idesc, acc, bad_lane, bad_col, t);
    }
    return (m.flags & kFlagTs) ? emu::mma_compute<tc5::Kind::f16, true>(c, m.d_tmem, 0, m.a_tmem, m.b_desc, m.idesc, acc, bad_lane, bad_col, t)
                               : emu::mma_compute<tc5::Kind::f16, false>(c, m.d_tmem, m.a_desc, 0, m.b_desc, m.idesc, acc, bad_lane, bad_col, t);
}

// The whole MMA on the calling thread (all 32 shares), first problem recorded.
__device__ __noinline__ void execute_alone(const emu::Cta& c, const PendingMma& m) {
    u32 first = 0, bad_lane = 0, bad_col = 0;
    for (u32 t = 0; t < 32; ++t) {
        u32 bl = 0, bc = 0;
        const u32 problem = execute_share(c, m, t, bl, bc);
        if (problem != 0 && first == 0) {
            first = problem;
            bad_lane = bl;
            bad_col = bc;
        }
    }
    if (first != 0) emu::record(first, (m.flags & kFlagTs) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS, m.site, bad_lane, bad_col);
}

__device__ WarpQueue queue_table[kMaxCtas * kMaxWarps];

__device__ __forceinline__ WarpQueue* my_queue() {
    const u32 block = emu::block_id(), warp = emu::warp_id();
    if (block >= kMaxCtas || warp >= kMaxWarps) return nullptr;
    return queue_table + block * kMaxWarps + warp;
}

// Single thread: execute (alone) every MMA its warp has queued in this launch, in order.
__device__ __noinline__ void drain_alone(WarpQueue* q) {
    if (q == nullptr) return;
    if (q->grid == grid_id()) {
        emu::Cta c = emu::cta();
        for (u32 i = 0; i < q->count; ++i) execute_alone(c, q->q[i]);
    }
    q->grid = grid_id();
    q->count = 0;
    __threadfence_block();
}

// Single thread, after the checks: queue the MMA for its warp, or execute it now.
__device__ __noinline__ void issue(const PendingMma& m) {
    WarpQueue* q = my_queue();
    if (q == nullptr) {
        execute_alone(emu::cta(), m);
        return;
    }
    if (q->grid != grid_id()) {
        q->grid = grid_id();
        q->count = 0;
    }
    if (q->count == kQueue) drain_alone(q);
    q->q[q->count] = m;
    q->count += 1;
    __threadfence_block();
}

// The TS form's own rules (A in TMEM), single-thread copy of the checks in emu::mma_ts.
__device__ __forceinline__ u32 check_ts(const emu::Cta& c, u32 d_tmem, u32 a_tmem, u32 idesc, u32& d0, u32& d1) {
    if (emu::decode_idesc(idesc).a_mn_major) {  // A in TMEM is K-major only (spec §3.5)
        d0 = idesc;
        return TC5_ERR_IDESC_INVALID;
    }
    const u32 la = a_tmem >> 16, ca = a_tmem & 0xffffu;
    if (la != (d_tmem >> 16)) {
        d0 = a_tmem;
        d1 = d_tmem;
        return TC5_ERR_MMA_TMEM_ADDRESS;
    }
    if (ca + 8 > TC5_TMEM_COLUMNS) {
        d0 = a_tmem;
        return TC5_ERR_TMEM_OUT_OF_RANGE;
    }
    if ((c.meta->used_chunks & emu::chunk_mask(ca, 8)) != emu::chunk_mask(ca, 8)) {
        d0 = a_tmem;
        d1 = 8;
        return TC5_ERR_UNALLOCATED_COLUMNS;
    }
    return 0;
}

#if TC5_STRICT
// ---- strict semantics from one thread ------------------------------------------------------------
// The strict emulator's enqueue_mma / commit are warp-collective (lane 0 writes the queue after the
// warp agreed on the operands); a PTX mma or commit comes from one thread, any lane. These are their
// single-thread forms over the same state (Tc5StrictCta), rules and executor (strict::run_until).
namespace st = tc5::emu::strict;

// strict::range_hash with the one calling lane computing every share (block_hash's value does not
// depend on how the 32 shares are spread), so the executor's full-warp check compares like with like.
__device__ __noinline__ u32 range_hash_alone(Tc5StrictCta* s, u32 lo, u32 hi, bool check_fence, u32& stale_block) {
    u32 first, last;
    if (!st::blocks_of(lo, hi, first, last)) return 0;
    const u32 me = 1u << emu::lane_id();
    u32 h = 0;
    for (u32 b = first; b <= last; ++b) {
        const u32 bh = st::block_hash(b, me);
        h = st::mix(h ^ bh) + b;
        if (check_fence && stale_block == 0xffffffffu) {
            const u64 snap = *reinterpret_cast<volatile u64*>(&s->smem_hash[b]);
            if (static_cast<u32>(snap) != bh) stale_block = b;
        }
    }
    return h;
}

// strict::async_op_checks for an op issued by one thread (that one reports, whatever its lane).
__device__ __forceinline__ void async_checks_alone(Tc5StrictCta* s, u32 op, u32 site) {
    Tc5StrictWarp& w = st::my_warp(s);
    const u32 warp = emu::warp_id();
    const u32 synced = st::vload(&w.synced_site);
    if (synced != 0) {
        st::record_pair(TC5_ERR_MISSING_FENCE_AFTER, op, site, warp, 0, 0, TC5_OP_MBAR_WAIT, synced, warp);
        w.synced_site = 0;
    }
    const u32 pst = st::vload(&w.pending_st_site);
    if (pst != 0) {  // an MMA reads/writes TMEM: an un-waited st of this warp may still be writing it
        st::record_pair(TC5_ERR_ST_NOT_WAITED, op, site, warp, 0, 0, TC5_OP_ST, pst, warp);
        w.pending_st_site = 0;
    }
    w.async_since_fence = site;
    w.async_op = op;
    w.tc5_ops = 1;
}

// One thread queues the MMA in the CTA's strict queue (checked like strict::enqueue_mma).
__device__ __noinline__ void strict_enqueue_alone(const PendingMma& p) {
    Tc5StrictCta* s = st::state();
    const u32 me = 1u << emu::lane_id();
    const u32 flags = ((p.flags & kFlagTf32) ? TC5_MMA_TF32 : 0u) | ((p.flags & kFlagTs) ? TC5_MMA_TS : 0u) |
                      ((p.flags & kFlagAccumulate) ? TC5_MMA_ACCUM : 0u);
    const u32 op = (flags & TC5_MMA_TS) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS;
    async_checks_alone(s, op, p.site);
    const u32 issued_now = st::vload(&s->mma_issued);
    if (issued_now - st::vload(&s->mma_done) >= TC5_STRICT_MMA_SLOTS) st::run_until(issued_now, me);
    Tc5StrictMma m;
    m.a_desc = p.a_desc;
    m.b_desc = p.b_desc;
    m.d_tmem = p.d_tmem;
    m.a_tmem = p.a_tmem;
    m.idesc = p.idesc;
    m.flags = flags;
    m.site = p.site;
    m.warp = emu::warp_id();
    const emu::IDesc id = emu::decode_idesc(p.idesc);
    const u32 e = (flags & TC5_MMA_TF32) ? 4u : 2u, k = (flags & TC5_MMA_TF32) ? 8u : 16u;
    st::operand_range(p.b_desc, id.b_mn_major, e, id.n, k, m.smem_b_lo, m.smem_b_hi);
    m.smem_a_lo = m.smem_a_hi = 0;
    if (!(flags & TC5_MMA_TS)) st::operand_range(p.a_desc, id.a_mn_major, e, id.m, k, m.smem_a_lo, m.smem_a_hi);
    u32 stale = 0xffffffffu;
    m.b_hash = range_hash_alone(s, m.smem_b_lo, m.smem_b_hi, true, stale);
    m.a_hash = (flags & TC5_MMA_TS) ? 0u : range_hash_alone(s, m.smem_a_lo, m.smem_a_hi, true, stale);
    if (stale != 0xffffffffu) {
        const u32 fence_site = st::vload(&s->last_fence_site);
        st::record_pair(TC5_ERR_MISSING_PROXY_FENCE, op, p.site, m.warp, stale * TC5_SMEM_BLOCK_BYTES, fence_site,
                        fence_site ? TC5_OP_FENCE_PROXY : TC5_OP_GENERIC_STORE, fence_site,
                        fence_site ? st::vload(&s->last_fence_warp) : 0xffffffffu);
    }
    st::cp_async_check(s, op, m);  // an operand a cp.async of any warp may still be writing
    st::lock_cta(s);
    // TMEM hazards against the MMAs in flight; one thread's MMAs into the same accumulator with the
    // same shape are pipelined (spec §7.2).
    const u32 done = st::vload(&s->mma_done), issued = s->mma_issued;
    const st::Region dr = st::d_region(m), ar = st::a_region(m);
    for (u32 q = done; q != issued; ++q) {
        const Tc5StrictMma& o = s->mma[q % TC5_STRICT_MMA_SLOTS];
        const bool same_acc = o.d_tmem == m.d_tmem && o.idesc == m.idesc && o.warp == m.warp;
        if ((!same_acc && st::overlap(st::d_region(o), dr)) || st::overlap(st::a_region(o), dr) ||
            st::overlap(st::d_region(o), ar)) {
            st::record_pair(TC5_ERR_TMEM_BUSY, op, p.site, m.warp, dr.col_lo, dr.col_hi,
                            (o.flags & TC5_MMA_TS) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS, o.site, o.warp);
            break;
        }
    }
    m.seq = issued;
    s->mma[issued % TC5_STRICT_MMA_SLOTS] = m;
    __threadfence_block();
    atomicExch(&s->mma_issued, issued + 1);
    st::my_warp(s).mma_count += 1;
    st::trace(TC5_EV_MMA_ISSUE, p.site, m.seq, m.d_tmem);
    st::unlock_cta(s);
}

// One thread's commit (strict::commit's lane-0 part): tracks every MMA the CTA queued so far; its
// arrive comes when a thread observes the mbarrier, or at the seeded eager point.
__device__ __noinline__ void strict_commit_alone(u32 mbar, u32 issued_by_thread, bool arrive, u32 site) {
    Tc5StrictCta* s = st::state();
    const u32 me = 1u << emu::lane_id();
    Tc5StrictWarp& w = st::my_warp(s);
    if (issued_by_thread == 0) {
        st::record_pair(TC5_ERR_COMMIT_WITHOUT_MMA, TC5_OP_COMMIT, site, emu::warp_id(), mbar, 0, 0, 0, 0);
    }
    w.async_since_fence = 0;  // commit implies fence::before_thread_sync (spec §7.1)
    if (!arrive) return;      // multicast to other CTAs only: no CTA of this launch is named
    st::lock_cta(s);
    while (s->commit_issued - st::vload(&s->commit_done) >= TC5_STRICT_COMMITS) {
        st::unlock_cta(s);
        st::run_until(s->commits[st::vload(&s->commit_done) % TC5_STRICT_COMMITS].upto, me);
        st::lock_cta(s);
    }
    const u32 index = s->commit_issued;
    Tc5StrictCommit& k = s->commits[index % TC5_STRICT_COMMITS];
    k.mbar = mbar;
    k.upto = s->mma_issued;
    k.site = site;
    k.warp = emu::warp_id();
    const u32 upto = k.upto, mode = st::seeded_mode(index);
    s->commit_mode[index % TC5_STRICT_COMMITS] = mode;
    for (u32 i = 0; i < TC5_STRICT_BARS; ++i)
        if (st::vload(&s->bars[i].addr) == mbar) atomicOr(&s->bars[i].flags, 1u);
    __threadfence_block();
    atomicExch(&s->commit_issued, index + 1);
    st::trace(TC5_EV_COMMIT, site, mbar, upto);
    st::unlock_cta(s);
    if (mode == 1) st::run_until(upto, me);
}

// ---- bulk async-groups: stores whose source read no wait_group retired yet -----------------------
// PTX ISA (cp.async.bulk.commit_group / wait_group): groups are per thread. commit_group batches the
// thread's uncommitted .bulk_group copies into a new group (an empty one when there are none), and
// wait_group{.read} N returns once at most the N most recent groups are pending, so every older
// group has read its source. Each slot counts the commits its thread ran since the store: a
// wait_group N retires it once that count exceeds N (empty groups count too, as they must).

__device__ __forceinline__ u32 linear_tid() {
    return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}

// The 16-byte chunks of [src, src + bytes) that lie in this CTA's shared memory (dynamic SMEM comes
// last): rounded inwards, so the fingerprint never covers a byte the store does not read.
__device__ __forceinline__ void source_range(u32 src, u32 bytes, u32& lo, u32& hi) {
    const u32 end = st::dyn_base() + st::dyn_size();
    lo = (src + 15u) & ~15u;
    hi = src < end ? (src + min(bytes, end - src)) & ~15u : lo;
    if (hi < lo) hi = lo;
}

// Fingerprint of the shared bytes [lo, hi) (16-byte aligned), computed by the one calling thread:
// a bulk store is one thread's, and so are its commit and wait.
__device__ __noinline__ u32 source_hash(u32 lo, u32 hi) {
    u32 h = st::mix(hi - lo + 0x9e3779b9u);
    for (u32 a = lo; a < hi; a += 16) {
        u32 w[4];
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "r"(a));
        for (u32 i = 0; i < 4; ++i) h = st::mix(h ^ w[i]) + a + i;  // the address too: moved data differs
    }
    return h;
}

// A generic address the map may be read through: global, const or kernel-parameter space (the PTX
// ISA's places for a tensor map), 8-byte aligned. Anything else is not read (the box stays unknown).
__device__ __forceinline__ bool map_readable(u64 map) {
    u32 ok;
    asm("{\n\t.reg .pred g, c, p;\n\tisspacep.global g, %1;\n\tisspacep.const c, %1;\n\tisspacep.param p, %1;\n\t"
        "or.pred g, g, c;\n\tor.pred g, g, p;\n\tselp.u32 %0, 1, 0, g;\n\t}"
        : "=r"(ok) : "l"(map));
    return ok != 0 && (map & 7u) == 0;
}

// Shared-memory bytes of one box of the tensor map at `map`: what the host declared for a map with
// exactly these 128 bytes (EmulationSession.declare_tensor_maps), 0 when it declared none. The map
// is opaque, so it is never decoded (shared/reference/tcgen05-spec.md 8.1), only compared.
__device__ __noinline__ u32 declared_box_bytes(u64 map) {
    const u32 count = min(tc5_emu_state.tma_box_count, static_cast<u32>(TC5_TMA_BOXES));
    if (count == 0 || tc5_emu_state.tma_boxes == 0 || !map_readable(map)) return 0;
    u64 words[TC5_TMA_MAP_WORDS];
    for (u32 i = 0; i < TC5_TMA_MAP_WORDS; ++i) words[i] = reinterpret_cast<const u64*>(map)[i];
    const Tc5TmaBox* boxes = reinterpret_cast<const Tc5TmaBox*>(tc5_emu_state.tma_boxes);
    for (u32 e = 0; e < count; ++e) {
        bool same = true;
        for (u32 i = 0; i < TC5_TMA_MAP_WORDS && same; ++i) same = boxes[e].map[i] == words[i];
        if (same) return boxes[e].bytes;
    }
    return 0;
}

// A bulk store was issued: remember its source bytes until a wait_group retires its group. A full
// table leaves the store untracked (a missed report, never a false one).
__device__ __noinline__ void bulk_track(u32 src, u32 bytes, u32 op, u32 site) {
    Tc5StrictCta* s = st::state();
    u32 lo, hi;
    source_range(src, bytes, lo, hi);
    const u32 me = linear_tid() + 1u;
    for (u32 i = 0; i < TC5_STRICT_BULK; ++i) {
        Tc5StrictBulkStore& b = s->bulk[i];
        if (atomicCAS(&b.thread, 0u, me) != 0u) continue;  // only `me` touches the slot from here on
        b.commits = 0;
        b.src = lo;
        b.bytes = hi - lo;
        b.hash = source_hash(lo, hi);
        b.site = site;
        b.op = op;
        return;
    }
}
#endif  // TC5_STRICT

template <tc5::Kind K, bool kTs>
__device__ __forceinline__ void mma_one_thread(u32 d_tmem, u64 a_desc, u32 a_tmem, u64 b_desc, u32 idesc, u32 enable_d,
                                               const u32* keep_lanes, u32 site) {
    const u32 op = kTs ? TC5_OP_MMA_TS : TC5_OP_MMA_SS;
    emu::Cta c = emu::cta();
    u32 d0 = 0, d1 = 0;
    u32 code = emu::check_common<K>(c, d_tmem, b_desc, idesc, d0, d1);
    if (code == 0 && kTs) code = check_ts(c, d_tmem, a_tmem, idesc, d0, d1);
    if (code == 0 && !kTs) {
        code = emu::check_desc(a_desc, emu::decode_idesc(idesc).a_mn_major, K == tc5::Kind::tf32);
        d0 = static_cast<u32>(a_desc);
        d1 = static_cast<u32>(a_desc >> 32);
    }
    if (code != 0) {
        emu::record(code, op, site, d0, d1);
        return;
    }
    PendingMma m;
    m.a_desc = a_desc;
    m.b_desc = b_desc;
    m.d_tmem = d_tmem;
    m.a_tmem = a_tmem;
    m.idesc = idesc;
    m.flags = (K == tc5::Kind::tf32 ? kFlagTf32 : 0u) | (kTs ? kFlagTs : 0u) | (enable_d ? kFlagAccumulate : 0u);
    m.site = site;
    m.pad = 0;
    const u32 kept = keep_lanes == nullptr ? 0u : (keep_lanes[0] | keep_lanes[1] | keep_lanes[2] | keep_lanes[3]);
    if (kept == 0) {
#if TC5_STRICT
        strict_enqueue_alone(m);
#else
        issue(m);
#endif
        return;
    }
    // disable-output-lane: the D rows (TMEM lanes) whose bit is set keep their values. What the
    // warp queued runs first (issue order); then this MMA runs over every row on this thread, the
    // kept rows saved before and restored after (N <= 256 columns).
#if TC5_STRICT
    // Strict: the CTA's queued MMAs complete first (early completion is legal), then this one at issue.
    st::run_until(st::vload(&st::state()->mma_issued), 1u << emu::lane_id());
#else
    drain_alone(my_queue());
#endif
    const u32 n_cols = emu::decode_idesc(idesc).n, col0 = d_tmem & 0xffffu;
    u32* stash = static_cast<u32*>(malloc(sizeof(u32) * TC5_TMEM_LANES * n_cols));
    if (stash == nullptr) __trap();
    for (u32 lane = 0; lane < TC5_TMEM_LANES; ++lane)
        if ((keep_lanes[lane / 32] >> (lane % 32)) & 1u)
            for (u32 n = 0; n < n_cols; ++n) stash[lane * n_cols + n] = *emu::cell(c, lane, col0 + n);
    execute_alone(c, m);
    for (u32 lane = 0; lane < TC5_TMEM_LANES; ++lane)
        if ((keep_lanes[lane / 32] >> (lane % 32)) & 1u)
            for (u32 n = 0; n < n_cols; ++n) *emu::cell(c, lane, col0 + n) = stash[lane * n_cols + n];
    free(stash);
}

template <bool kTs>
__device__ __forceinline__ void mma_dispatch(u32 d_tmem, u64 a_desc, u32 a_tmem, u64 b_desc, u32 idesc, u32 enable_d,
                                             u32 kind, const u32* keep_lanes, u32 site) {
    if (kind == kKindTf32) {
        mma_one_thread<tc5::Kind::tf32, kTs>(d_tmem, a_desc, a_tmem, b_desc, idesc, enable_d, keep_lanes, site);
    } else {
        mma_one_thread<tc5::Kind::f16, kTs>(d_tmem, a_desc, a_tmem, b_desc, idesc, enable_d, keep_lanes, site);
    }
}

// One thread's commit: its warp's queued MMAs execute first; their TMEM writes are made visible,
// then the arrive.
__device__ __forceinline__ void commit_one_thread(u32 mbar, u32 issued_by_thread, bool arrive, u32 site) {
#if TC5_STRICT
    strict_commit_alone(mbar, issued_by_thread, arrive, site);
    return;
#endif
    drain_alone(my_queue());
    if (issued_by_thread == 0) emu::record(TC5_ERR_COMMIT_WITHOUT_MMA, TC5_OP_COMMIT, site, mbar, 0);
    __threadfence_block();
    if (arrive) asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(mbar) : "memory");
}

}  // namespace tc5ptx

extern "C" {

__device__ __noinline__ void tc5ptx_alloc(unsigned dst_smem, unsigned ncols, unsigned site) {
    tc5::emu::alloc(dst_smem, ncols, site);
}
__device__ __noinline__ void tc5ptx_dealloc(unsigned taddr, unsigned ncols, unsigned site) {
    tc5::emu::dealloc(taddr, ncols, site);
}
__device__ __noinline__ void tc5ptx_relinquish(unsigned site) { tc5::emu::relinquish_alloc_permit(site); }
__device__ __noinline__ void tc5ptx_wait_ld(unsigned site) { tc5::emu::wait_ld(site); }
__device__ __noinline__ void tc5ptx_wait_st(unsigned site) { tc5::emu::wait_st(site); }
__device__ __noinline__ void tc5ptx_fence_before(unsigned site) { tc5::emu::fence_before_thread_sync(site); }
__device__ __noinline__ void tc5ptx_fence_after(unsigned site) { tc5::emu::fence_after_thread_sync(site); }

__device__ __noinline__ void tc5ptx_mma_ss(unsigned d_tmem, unsigned long long a_desc, unsigned long long b_desc,
                                           unsigned idesc, unsigned enable_d, unsigned kind, unsigned site) {
    tc5ptx::mma_dispatch<false>(d_tmem, a_desc, 0, b_desc, idesc, enable_d, kind, nullptr, site);
}
__device__ __noinline__ void tc5ptx_mma_ts(unsigned d_tmem, unsigned a_tmem, unsigned long long b_desc, unsigned idesc,
                                           unsigned enable_d, unsigned kind, unsigned site) {
    tc5ptx::mma_dispatch<true>(d_tmem, 0, a_tmem, b_desc, idesc, enable_d, kind, nullptr, site);
}
__device__ __noinline__ void tc5ptx_mma_ss_dol(unsigned d_tmem, unsigned long long a_desc, unsigned long long b_desc,
                                               unsigned idesc, unsigned m0, unsigned m1, unsigned m2, unsigned m3,
                                               unsigned enable_d, unsigned kind, unsigned site) {
    const unsigned keep[4] = {m0, m1, m2, m3};
    tc5ptx::mma_dispatch<false>(d_tmem, a_desc, 0, b_desc, idesc, enable_d, kind, keep, site);
}
__device__ __noinline__ void tc5ptx_mma_ts_dol(unsigned d_tmem, unsigned a_tmem, unsigned long long b_desc,
                                               unsigned idesc, unsigned m0, unsigned m1, unsigned m2, unsigned m3,
                                               unsigned enable_d, unsigned kind, unsigned site) {
    const unsigned keep[4] = {m0, m1, m2, m3};
    tc5ptx::mma_dispatch<true>(d_tmem, 0, a_tmem, b_desc, idesc, enable_d, kind, keep, site);
}

__device__ __noinline__ void tc5ptx_commit(unsigned mbar, unsigned issued_by_thread, unsigned site) {
    tc5ptx::commit_one_thread(mbar, issued_by_thread, true, site);
}
// Launches have no clusters: the CTA is rank 0 of a cluster of one, so bit 0 of the mask names it.
__device__ __noinline__ void tc5ptx_commit_multicast(unsigned mbar, unsigned cta_mask, unsigned issued_by_thread,
                                                     unsigned site) {
    tc5ptx::commit_one_thread(mbar, issued_by_thread, (cta_mask & 1u) != 0, site);
}

// Warp-collective (after bar.warp.sync -1 / bar.sync): the warp executes its queued MMAs together.
__device__ __noinline__ void tc5ptx_drain(unsigned site) {
    (void)site;
    tc5ptx::WarpQueue* q = tc5ptx::my_queue();
    if (q == nullptr) return;
    const unsigned lane = tc5::emu::lane_id();
    unsigned n = 0;
    if (lane == 0) n = q->grid == tc5ptx::grid_id() ? q->count : 0u;
    n = __shfl_sync(0xffffffffu, n, 0);
    if (n == 0) return;
    tc5::emu::Cta c = tc5::emu::cta();
    for (unsigned i = 0; i < n; ++i) {
        const tc5ptx::PendingMma m = q->q[i];
        unsigned bad_lane = 0, bad_col = 0;
        const unsigned problem = tc5ptx::execute_share(c, m, lane, bad_lane, bad_col);
        tc5::emu::report_first(problem, (m.flags & tc5ptx::kFlagTs) ? TC5_OP_MMA_TS : TC5_OP_MMA_SS, m.site, bad_lane,
                               bad_col);
    }
    __threadfence_block();
    __syncwarp();
    if (lane == 0) q->count = 0;
    __syncwarp();
}

#if TC5_STRICT
// The PTX's mbarrier and TMA instructions stay as written; in a strict build the rewriter adds these
// calls around them (the hooks mbarrier.cuh and tma.cuh call in the tc5:: strict build).
__device__ __noinline__ void tc5ptx_mbar_init(unsigned bar, unsigned count, unsigned site) {
    tc5_strict_mbar_init(bar, count, site);
}
__device__ __noinline__ void tc5ptx_mbar_arrive(unsigned bar, unsigned tx_bytes, unsigned site) {
    tc5_strict_mbar_arrive(bar, tx_bytes, site);
}
__device__ __noinline__ void tc5ptx_mbar_poll(unsigned bar, unsigned site) { tc5_strict_mbar_poll(bar, site); }
__device__ __noinline__ void tc5ptx_mbar_observed(unsigned bar, unsigned done, unsigned site) {
    tc5_strict_mbar_observed(bar, done != 0, site);
}
__device__ __noinline__ void tc5ptx_tma_load(unsigned dst, unsigned bar, unsigned site) {
    tc5_strict_tma_load(dst, bar, site);
}
__device__ __noinline__ void tc5ptx_fence_proxy_async(unsigned site) { tc5_strict_fence_proxy_async(site); }
// Called before each TMA tile store; 0: the rewriter skips the store. On sm_90 a store box that
// starts at a negative coordinate is an illegal instruction that kills the context
// (scripts/device/tma_negative_probe.cu, H200, session 19; loads there zero-fill, boxes past the
// end are clipped), and the PTX ISA does not say what sm_100 does: report it by name instead.
__device__ __noinline__ unsigned tc5ptx_tma_store_check(int c0, int c1, int c2, int c3, int c4, unsigned ndims,
                                                        unsigned site) {
    const int c[5] = {c0, c1, c2, c3, c4};
    for (unsigned d = 0; d < ndims && d < 5; ++d) {
        if (c[d] < 0) {
            tc5::emu::strict::record_pair(TC5_ERR_TMA_STORE_NEGATIVE, TC5_OP_TMA_STORE, site, tc5::emu::warp_id(), d,
                                          static_cast<unsigned>(c[d]), 0, 0, 0);
            return 0;
        }
    }
    return 1;
}
// Before each cp{.reduce}.async.bulk.tensor store with .bulk_group (after its negative-coordinate
// check): its source is the box of `map`, whose size the host declared; otherwise only the first
// TC5_BULK_MIN_BYTES, which every box's source starts with, are watched. map 0: not a tile-mode
// store or not a register operand (the box is then unknown too).
__device__ __noinline__ void tc5ptx_bulk_store_tensor(unsigned long long map, unsigned src, unsigned site) {
    const unsigned box = map != 0 ? tc5ptx::declared_box_bytes(map) : 0u;
    tc5ptx::bulk_track(src, box != 0 ? box : TC5_BULK_MIN_BYTES, TC5_OP_TMA_STORE, site);
}
// Before each non-tensor cp{.reduce}.async.bulk.global.shared::cta.bulk_group: the size is its operand.
__device__ __noinline__ void tc5ptx_bulk_store(unsigned src, unsigned bytes, unsigned site) {
    tc5ptx::bulk_track(src, bytes, TC5_OP_BULK_STORE, site);
}
// After cp.async.bulk.commit_group: the thread's stores all move one group further from the newest.
__device__ __noinline__ void tc5ptx_bulk_commit(unsigned site) {
    (void)site;
    Tc5StrictCta* s = tc5::emu::strict::state();
    const unsigned me = tc5ptx::linear_tid() + 1u;
    for (unsigned i = 0; i < TC5_STRICT_BULK; ++i)
        if (vload(&s->bulk[i].thread) == me) s->bulk[i].commits += 1u;
}
// After cp.async.bulk.wait_group{.read} n: every store of this thread in a group older than the n
// most recent has read its source; one whose source changed since its issue may have read the new
// bytes (tma-store-source-overwritten). Stores not yet committed stay pending, as in the ISA.
__device__ __noinline__ void tc5ptx_bulk_wait(unsigned n, unsigned site) {
    Tc5StrictCta* s = tc5::emu::strict::state();
    const unsigned me = tc5ptx::linear_tid() + 1u, warp = tc5::emu::warp_id();
    for (unsigned i = 0; i < TC5_STRICT_BULK; ++i) {
        Tc5StrictBulkStore& b = s->bulk[i];
        if (vload(&b.thread) != me || b.commits <= n) continue;
        if (tc5ptx::source_hash(b.src, b.src + b.bytes) != b.hash) {
            tc5::emu::strict::record_pair(TC5_ERR_TMA_STORE_SOURCE_OVERWRITTEN, b.op, b.site, warp, b.src, b.bytes,
                                          TC5_OP_BULK_WAIT, site, warp);
        }
        atomicExch(&b.thread, 0u);
    }
}
// Non-bulk cp.async (global -> shared): the same per-warp group tracking as cp_async.cuh's hooks.
__device__ __noinline__ void tc5ptx_cp_async(unsigned dst, unsigned bytes, unsigned site) {
    tc5_strict_cp_async(dst, bytes, site);
}
__device__ __noinline__ void tc5ptx_cp_async_commit(unsigned site) { tc5_strict_cp_commit(site); }
__device__ __noinline__ void tc5ptx_cp_async_wait(unsigned n, unsigned all, unsigned site) {
    tc5_strict_cp_wait(n, all != 0, site);
}
// cp.async.mbarrier.arrive{.noinc}: the mbarrier's phase now waits for the thread's copies, so they
// are counted complete here (a reader that never observes that phase is not caught: a missed report).
__device__ __noinline__ void tc5ptx_cp_async_arrive(unsigned site) { tc5::emu::strict::cp_async_arrive(site); }
#endif

}  // extern "C"

// One ld/st entry point per form (and half-split immediate), named as the rewriter calls it.
#define TC5PTX_LD(NAME, SHAPE, NUM, PACK, IMM)                                                          \
    extern "C" __device__ __noinline__ tc5ptx::Regs<tc5::regs<tc5::Shape::SHAPE, NUM>()> NAME(unsigned taddr, \
                                                                                        unsigned site) {  \
        tc5ptx::Regs<tc5::regs<tc5::Shape::SHAPE, NUM>()> out;                                        \
        tc5::emu::ld<tc5::Shape::SHAPE, NUM, PACK, IMM>(taddr, out.r, site);                           \
        return out;                                                                                     \
    }

#define TC5PTX_ST(NAME, SHAPE, NUM, PACK, IMM)                                                          \
    extern "C" __device__ __noinline__ void NAME(unsigned taddr, tc5ptx::Regs<tc5::regs<tc5::Shape::SHAPE, NUM>()> in, \
                                                 unsigned site) {                                       \
        tc5::emu::st<tc5::Shape::SHAPE, NUM, PACK, IMM>(taddr, in.r, site);                            \
    }
