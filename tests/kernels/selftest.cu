// Deliberately broken builds of the reference kernel. They prove that a sweep survives a kernel
// that faults or never returns: only the configs with seq_q == SELFTEST_*_AT_SEQ_Q misbehave,
// so a sweep shows passes before and after the CRASH/HANG it reports.
#include "common/fmha_params.h"

__device__ __forceinline__ void selftest_hook(const FmhaParams& p) {
#ifdef SELFTEST_FAULT_AT_SEQ_Q
    if (p.seq_q == SELFTEST_FAULT_AT_SEQ_Q && threadIdx.x == 0) {
        *reinterpret_cast<volatile int*>(static_cast<unsigned long long>(8)) = 1;  // illegal address
    }
#endif
#ifdef SELFTEST_HANG_AT_SEQ_Q
    if (p.seq_q == SELFTEST_HANG_AT_SEQ_Q) {
        for (;;) asm volatile("nanosleep.u32 1000;");
    }
#endif
}

#define FMHA_SELFTEST_HOOK(p) selftest_hook(p)
#include "ref/fmha_ref.cuh"
