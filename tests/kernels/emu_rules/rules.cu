// Deliberately broken micro-kernels, one per strict-emulation rule (p.which = TC5_ERR_*), plus
// p.which = 0: a correct kernel that must report nothing. Built for sm_90a with the strict
// emulator (FMHACTL_TC5_STRICT=1); tests/tcgen05/test_emu_rules.py expects each named error.
// 128 threads per CTA, kDynSmem bytes of dynamic shared memory, grid (1, 1, 1) unless a case says.
#include "common/cp_async.cuh"
#include "common/mbarrier.cuh"
#include "common/tcgen05.cuh"
#include "common/tma.cuh"

using tc5::Fmt;
using tc5::Layout;
using tc5::Shape;
using tc5::u32;
using tc5::u64;

struct RuleParams {
    unsigned long long scratch;  // u32[1024] the kernels write results into (keeps them honest)
    unsigned int which;
    unsigned int reserved;
};

// Dynamic SMEM: A 4 KiB | B 1 KiB | pad (B2: 1 KiB at 6 KiB) | TMA destination 16 KiB at 8 KiB | barriers at 24 KiB.
constexpr u32 kOffA = 0, kOffB = 4096, kOffB2 = 6144, kOffTma = 8192, kOffBars = 24576, kOffSlot = kOffBars + 64;
constexpr u32 kDynSmem = kOffSlot + 64 + 1024;  // + re-alignment to 1 KiB
// Correct kernels besides which = 0 (no TC5_ERR_* code is this large).
constexpr u32 kCorrectCpSpan = 1000;

__device__ __forceinline__ void cta_sync() {
    tc5::fence_before_thread_sync();
    __syncthreads();
    tc5::fence_after_thread_sync();
}

extern "C" __global__ void __launch_bounds__(128) rule(const RuleParams p, const __grid_constant__ TmaMap map) {
    extern __shared__ __align__(1024) unsigned char dsm_raw[];
    // The 128B-swizzled TMA destination and the 1-KiB fingerprint blocks follow absolute addresses.
    unsigned char* dsm = dsm_raw + ((1024 - (tc5::smem_addr(dsm_raw) & 1023)) & 1023);
    const u32 warp = threadIdx.x / 32, t = threadIdx.x % 32;
    u32* scratch = reinterpret_cast<u32*>(p.scratch);
    unsigned long long* bars = reinterpret_cast<unsigned long long*>(dsm + kOffBars);
    unsigned long long* done = &bars[0];    // MMA commit
    unsigned long long* signal = &bars[1];  // a thread-to-thread hand-off
    unsigned long long* tma_bar = &bars[2];
    u32* slot = reinterpret_cast<u32*>(dsm + kOffSlot);
    for (u32 i = threadIdx.x; i < kOffTma / 4; i += blockDim.x) reinterpret_cast<u32*>(dsm)[i] = 0x3f803f80u * (i & 1);
    tma::fence_proxy_async_shared();  // operands written by the generic proxy, made visible to MMAs
    if (threadIdx.x == 0) {
        mbar::init(done, 1);
        mbar::init(signal, 32);
        mbar::init(tma_bar, 1);
        mbar::fence_init();
    }
    const u32 ncols = p.which == TC5_ERR_ALLOC_TIMEOUT ? 512 : 64;
    // Independent thread scheduling does not promise the warp reconverges after thread 0's branch
    // (at ptxas -O0 it does not); the .sync.aligned alloc below needs all 32 lanes together.
    __syncwarp();
    if (warp == 0) tc5::alloc(slot, ncols);
    cta_sync();
    const u32 base = *slot;
    const u32 quarter = tc5::tmem_addr(32 * warp, 0);

    const u32 a_addr = tc5::smem_addr(dsm + kOffA), b_addr = tc5::smem_addr(dsm + kOffB);
    const u32 idesc = tc5::make_idesc(128, 32, Fmt::bf16, Fmt::bf16, tc5::DFmt::f32);
    // K-major, no swizzle: A 128 rows x 16 K (K chunks 2 KiB apart), B 32 rows x 16 K (512 B apart).
    const u64 a_desc = tc5::make_smem_desc(a_addr, 2048, 128, Layout::none);
    const u64 b_desc = tc5::make_smem_desc(b_addr, 512, 128, Layout::none);
    const u64 b2_desc = tc5::make_smem_desc(tc5::smem_addr(dsm + kOffB2), 512, 128, Layout::none);
    auto mma_and_commit = [&]() {
        if (warp == 0) {
            tc5::mma_ss(base, a_desc, b_desc, idesc, false);
            tc5::commit(done);
        }
    };
    auto wait_done = [&]() {
        mbar::wait_parity(done, 0);
        tc5::fence_after_thread_sync();
    };
    auto read_d = [&](int slot_index) {
        u32 d[32];
        tc5::ld<Shape::k32x32b, 32>(base + quarter, d);
        tc5::wait_ld();
        scratch[slot_index * 128 + threadIdx.x] = d[31];
    };
    // Every case starts from written D and scratch columns (no unwritten-read noise).
    {
        u32 v[32];
        for (u32 j = 0; j < 32; ++j) v[j] = j;
        tc5::st<Shape::k32x32b, 32>(base + quarter, v);
        tc5::st<Shape::k32x32b, 32>(base + quarter + 32, v);
        tc5::wait_st();
    }
    cta_sync();

    // Warp 1 refills B's first 512 bytes by cp.async (with the bytes B already holds, so that only
    // the copy's completion, never its content, can be at fault) as group `group_b`, then copies
    // into the TMA area as the next group, waits with `wait_n`, fences and hands B to warp 0.
    auto copy_b_then_signal = [&](bool wait, int wait_n) {
        if (warp != 1) return;
        u32* source = scratch + 512 + 4 * t;  // 16 bytes a lane, as B's words 1024 + 4t ...
        for (u32 j = 0; j < 4; ++j) source[j] = 0x3f803f80u * ((1024 + 4 * t + j) & 1);
        __syncwarp();
        cp_async::copy16(b_addr + 16 * t, source, true);
        cp_async::commit();
        cp_async::copy16(tc5::smem_addr(dsm + kOffTma) + 16 * t, source, true);
        cp_async::commit();
        if (wait) {
            if (wait_n == 1) cp_async::wait_group<1>();  // B's group retired, the TMA area's still pending
            else cp_async::wait_group<0>();
        }
        tma::fence_proxy_async_shared();
        tc5::fence_before_thread_sync();
        mbar::arrive(signal);  // 32 lanes = the expected count
    };
    auto mma_after_signal = [&]() {
        if (warp == 0) {
            mbar::wait_parity(signal, 0);
            tc5::fence_after_thread_sync();
        }
        mma_and_commit();
        wait_done();
        read_d(0);
        if (warp == 1) cp_async::wait_all();
    };

    switch (p.which) {
        case 0:  // correct: cp.async refill of B waited for (wait_group 1 of 2 groups), MMA, commit, wait + fence, read D
            copy_b_then_signal(true, 1);
            mma_after_signal();
            break;
        case kCorrectCpSpan:
            // correct: warp 1's one pending group writes the 1-KiB blocks on both sides of B2 (below it
            // in the pad, above it in the TMA area), like a top-k gather of K and V around the K stage an
            // MMA still reads; the MMA of B2 races with none of its bytes (session 22's false report)
            if (warp == 1) {
                const u32* source = scratch + 512 + 4 * t;
                cp_async::copy16(tc5::smem_addr(dsm + kOffB2 - 1024) + 16 * t, source, true);
                cp_async::copy16(tc5::smem_addr(dsm + kOffTma) + 16 * t, source, true);
                cp_async::commit();
                tc5::fence_before_thread_sync();
                mbar::arrive(signal);
            }
            if (warp == 0) {
                mbar::wait_parity(signal, 0);
                tc5::fence_after_thread_sync();
                tc5::mma_ss(base, a_desc, b2_desc, idesc, false);
                tc5::commit(done);
            }
            wait_done();
            read_d(0);
            if (warp == 1) cp_async::wait_all();
            break;
        case TC5_ERR_TMEM_BUSY:  // D read while the MMA writing it is still in flight
            mma_and_commit();
            cta_sync();
            read_d(0);  // no wait on `done` first
            wait_done();
            break;
        case TC5_ERR_SMEM_BUSY:  // warp 1 rewrites B (fenced) while the MMA reading it is in flight
            mma_and_commit();
            if (warp == 0) {
                tc5::fence_before_thread_sync();
                mbar::arrive(signal);  // 32 lanes = the expected count
            }
            if (warp == 1) {
                mbar::wait_parity(signal, 0);
                tc5::fence_after_thread_sync();
                for (u32 i = t; i < 256; i += 32) reinterpret_cast<u32*>(dsm + kOffB)[i] = 0x40004000u;
                tma::fence_proxy_async_shared();
            }
            __syncthreads();
            wait_done();
            read_d(0);
            break;
        case TC5_ERR_LD_NOT_WAITED: {  // ld, then signal another warp without wait::ld
            if (warp == 0) {
                u32 d[8];
                tc5::ld<Shape::k32x32b, 8>(base + quarter, d);
                scratch[threadIdx.x] = d[7];
                tc5::fence_before_thread_sync();
                mbar::arrive(signal);
                __syncwarp();  // the strict report above is made by one lane; reconverge before wait::ld
                tc5::wait_ld();
            }
            break;
        }
        case TC5_ERR_ST_NOT_WAITED: {  // st, then ld of the same cells without wait::st
            u32 v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
            tc5::st<Shape::k32x32b, 8>(base + quarter, v);
            tc5::ld<Shape::k32x32b, 8>(base + quarter, v);
            tc5::wait_ld();
            tc5::wait_st();
            scratch[threadIdx.x] = v[3];
            break;
        }
        case TC5_ERR_MISSING_PROXY_FENCE:  // A rewritten by generic stores, no fence.proxy.async
            for (u32 i = threadIdx.x; i < 1024; i += blockDim.x) reinterpret_cast<u32*>(dsm + kOffA)[i] = 0x3f803f80u;
            __syncthreads();
            mma_and_commit();
            wait_done();
            read_d(0);
            break;
        case TC5_ERR_MISSING_FENCE_AFTER:  // mbarrier wait, then ld with no fence::after_thread_sync
            mma_and_commit();
            mbar::wait_parity(done, 0);
            read_d(0);
            break;
        case TC5_ERR_MISSING_FENCE_BEFORE: {  // st + wait::st, then arrive with no fence::before_thread_sync
            if (warp == 0) {
                u32 v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
                tc5::st<Shape::k32x32b, 8>(base + quarter, v);
                tc5::wait_st();
                mbar::arrive(signal);
            }
            break;
        }
        case TC5_ERR_COMMIT_WITHOUT_MMA:  // warp 1 commits MMAs it never issued
            mma_and_commit();
            if (warp == 1) tc5::commit(signal);
            wait_done();
            read_d(0);
            break;
        case TC5_ERR_MMA_UNCOMMITTED:  // an MMA nobody commits
            if (warp == 0) tc5::mma_ss(base, a_desc, b_desc, idesc, false);
            break;
        case TC5_ERR_PARTIAL_WARP: {  // half a warp executes a .sync.aligned ld
            u32 d[8];
            if (t < 16) {
                tc5::ld<Shape::k32x32b, 8>(base + quarter, d);
                scratch[threadIdx.x] = d[0];
            }
            __syncwarp();
            tc5::wait_ld();
            break;
        }
        case TC5_ERR_NON_UNIFORM: {  // lanes name different TMEM addresses in one ld
            u32 d[8];
            tc5::ld<Shape::k32x32b, 8>(base + quarter + 8 * (t & 1), d);
            tc5::wait_ld();
            scratch[threadIdx.x] = d[0];
            break;
        }
        case TC5_ERR_TMA_IN_FLIGHT_AT_EXIT:  // the SM100 kernel's bug: a TMA load nobody waits for
            if (threadIdx.x == 0) {
                mbar::arrive_expect_tx(tma_bar, 128 * 64 * 2);
                tma::load_4d(dsm + kOffTma, &map, tma_bar, 0, 0, 0, 0);
            }
            break;
        case TC5_ERR_MMA_IN_FLIGHT_AT_EXIT:  // committed, but nobody waits on the commit's mbarrier
            mma_and_commit();
            break;
        case TC5_ERR_CP_ASYNC_NOT_WAITED:  // B refilled by cp.async, committed but not waited, then handed over
            copy_b_then_signal(false, 0);
            mma_after_signal();
            break;
        case TC5_ERR_CP_ASYNC_PENDING_AT_EXIT:  // warp 1 copies into the TMA area, commits, and never waits
            if (warp == 1) {
                cp_async::copy16(tc5::smem_addr(dsm + kOffTma) + 16 * t, scratch + 512 + 4 * t, true);
                cp_async::commit();
            }
            break;
        case TC5_ERR_ALLOC_TIMEOUT:  // warp 0 holds all 512 columns; warp 1 waits for 32 more forever
            if (warp == 1) tc5::alloc(slot + 1, 32);
            break;
        default:
            break;
    }
    cta_sync();
    if (warp == 0) tc5::dealloc(base, ncols);
}

// Co-residency: every CTA takes all 512 columns for a while. CTAs resident on one SM share its TMEM,
// so all but one block in tcgen05.alloc until the holder deallocates (a legal, slow schedule).
extern "C" __global__ void __launch_bounds__(128) hog(const RuleParams p, const __grid_constant__ TmaMap) {
    __shared__ u32 slot;
    const u32 warp = threadIdx.x / 32;
    if (warp == 0) tc5::alloc(&slot, 512);
    cta_sync();
    const u64 start = clock64();
    while (clock64() - start < 200000) {
    }
    if (threadIdx.x == 0) reinterpret_cast<u32*>(p.scratch)[blockIdx.x] = slot;
    cta_sync();
    if (warp == 0) tc5::dealloc(slot, 512);
}

// try_wait suspends each thread on its own, so the lanes of one warp can see an mbarrier phase
// complete at different times. Here lane 0 sees it (done) while lanes 1-31 do not and go on to
// meet it at __syncwarp, as a native kernel's lanes meet at elect.sync after their wait loops. The
// strict hook must not hold lane 0 in a warp sync with lanes that already left (session 9: that
// was a HANG of sm100_tma_s2_tmem_ex2 on the PTX path, the load warp's lane 0 in the hook's
// __shfl_sync while lanes 1-31 waited for it at elect.sync).
extern "C" __global__ void __launch_bounds__(128) split_observe(const RuleParams p, const __grid_constant__ TmaMap) {
    __shared__ __align__(8) unsigned long long bar;
    if (threadIdx.x == 0) mbar::init(&bar, 1);
    cta_sync();
    if (threadIdx.x < 32) {
#if TC5_STRICT
        tc5_strict_mbar_observed(tc5::smem_addr(&bar), threadIdx.x == 0, __LINE__);
#endif
        __syncwarp();
        if (threadIdx.x == 0) reinterpret_cast<u32*>(p.scratch)[0] = 1;
    }
}
