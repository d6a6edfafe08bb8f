// Entry points of the SM90 family: one per (dtype, head dim); the switches pick the variant.
#include "sm90/fmha_sm90.cuh"

FMHA_SM90_ENTRY(64, fmha_sm90_bf16_d64, false)
FMHA_SM90_ENTRY(128, fmha_sm90_bf16_d128, false)
FMHA_SM90_ENTRY(64, fmha_sm90_f16_d64, true)
FMHA_SM90_ENTRY(128, fmha_sm90_f16_d128, true)
// hd256 holds 128 O + 32 S + 16 P registers per consumer thread: the persistent tile loop's state
// does not fit beside them (ptxas spills), so the persistent variant stops at hd128.
#if !FMHA_PERSISTENT
FMHA_SM90_ENTRY(256, fmha_sm90_bf16_d256, false)
FMHA_SM90_ENTRY(256, fmha_sm90_f16_d256, true)
#endif
