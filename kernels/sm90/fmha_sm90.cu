// Entry points of the SM90 family: one per (dtype, head dim); the switches pick the variant.
#include "sm90/fmha_sm90.cuh"

// Three consumer WGs (192-row tiles) leave each 160 registers: hd64 only (fmhactl/plans/sm90.py).
// The entries keep their order so the 2-consumer builds' cubins stay as they were.
FMHA_SM90_ENTRY(64, fmha_sm90_bf16_d64, false)
#if FMHA_CONSUMERS == 2
FMHA_SM90_ENTRY(128, fmha_sm90_bf16_d128, false)
#endif
FMHA_SM90_ENTRY(64, fmha_sm90_f16_d64, true)
#if FMHA_CONSUMERS == 2
FMHA_SM90_ENTRY(128, fmha_sm90_f16_d128, true)
// hd256 holds 128 O + 32 S + 16 P registers per consumer thread: the persistent tile loop's state
// does not fit beside them (ptxas spills), so the persistent variant stops at hd128.
#if !FMHA_PERSISTENT
FMHA_SM90_ENTRY(256, fmha_sm90_bf16_d256, false)
FMHA_SM90_ENTRY(256, fmha_sm90_f16_d256, true)
#endif
#endif
