// Entry points of the SM90 family: one per (dtype, head dim); the switches pick the variant.
#include "sm90/fmha_sm90.cuh"

FMHA_SM90_ENTRY(64, fmha_sm90_bf16_d64, false)
FMHA_SM90_ENTRY(128, fmha_sm90_bf16_d128, false)
FMHA_SM90_ENTRY(256, fmha_sm90_bf16_d256, false)
FMHA_SM90_ENTRY(64, fmha_sm90_f16_d64, true)
FMHA_SM90_ENTRY(128, fmha_sm90_f16_d128, true)
FMHA_SM90_ENTRY(256, fmha_sm90_f16_d256, true)
