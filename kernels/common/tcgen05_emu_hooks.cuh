// Strict-mode hooks of the tcgen05 emulator that mbarrier.cuh, tma.cuh and cp_async.cuh call (declared here,
// defined in tcgen05_emu_strict.cuh). They exist only in emulated strict builds
// (FMHACTL_TCGEN05_EMULATE=1 and FMHACTL_TC5_STRICT=1): a strict build must include tcgen05.cuh,
// which defines them; every other build sees TC5_STRICT 0 and compiles the hooks away.
#pragma once

#if defined(FMHACTL_TCGEN05_EMULATE) && FMHACTL_TCGEN05_EMULATE && defined(FMHACTL_TC5_STRICT) && FMHACTL_TC5_STRICT
#define TC5_STRICT 1
// Addresses are shared-window (.shared::cta) addresses; `site` is the caller's source line.
__device__ void tc5_strict_mbar_init(unsigned bar, unsigned count, unsigned site);
__device__ void tc5_strict_mbar_arrive(unsigned bar, unsigned tx_bytes, unsigned site);
// Before each try_wait: runs the deferred MMA groups whose commit arrives on `bar`.
__device__ void tc5_strict_mbar_poll(unsigned bar, unsigned site);
// After each try_wait: a successful one observes the phase (TMA loads on it complete, fences due).
__device__ void tc5_strict_mbar_observed(unsigned bar, bool done, unsigned site);
__device__ void tc5_strict_tma_load(unsigned dst, unsigned bar, unsigned site);
__device__ void tc5_strict_fence_proxy_async(unsigned site);
// cp_async.cuh (and the PTX path's cp.async lines): before each copy into [dst, dst + bytes), after
// each commit_group, after each wait_group n / wait_all (all: commit, then wait for every group).
__device__ void tc5_strict_cp_async(unsigned dst, unsigned bytes, unsigned site);
__device__ void tc5_strict_cp_commit(unsigned site);
__device__ void tc5_strict_cp_wait(unsigned n, bool all, unsigned site);
#else
#define TC5_STRICT 0
#endif
