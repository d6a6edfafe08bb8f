// Entry points of the SM100 family: one per (dtype, head dim); the switches pick the variant.
#include "sm100/fmha_sm100.cuh"

FMHA_SM100_ENTRY(64, fmha_sm100_bf16_d64, BF16Traits, tc5::Fmt::bf16)
FMHA_SM100_ENTRY(128, fmha_sm100_bf16_d128, BF16Traits, tc5::Fmt::bf16)
FMHA_SM100_ENTRY(256, fmha_sm100_bf16_d256, BF16Traits, tc5::Fmt::bf16)
FMHA_SM100_ENTRY(64, fmha_sm100_f16_d64, F16Traits, tc5::Fmt::f16)
FMHA_SM100_ENTRY(128, fmha_sm100_f16_d128, F16Traits, tc5::Fmt::f16)
FMHA_SM100_ENTRY(256, fmha_sm100_f16_d256, F16Traits, tc5::Fmt::f16)
