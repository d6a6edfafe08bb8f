// Entry points of the SM100 family: one per (dtype, head dim) whose plan fits these switches
// (FMHA_PLAN_HAS_D*: generated from fmhactl/plans/sm100.py); the switches pick the variant.
#include "sm100/fmha_sm100.cuh"

#if FMHA_PLAN_HAS_D64
FMHA_SM100_ENTRY(64, fmha_sm100_bf16_d64, BF16Traits, tc5::Fmt::bf16)
FMHA_SM100_ENTRY(64, fmha_sm100_f16_d64, F16Traits, tc5::Fmt::f16)
#endif
#if FMHA_PLAN_HAS_D128
FMHA_SM100_ENTRY(128, fmha_sm100_bf16_d128, BF16Traits, tc5::Fmt::bf16)
FMHA_SM100_ENTRY(128, fmha_sm100_f16_d128, F16Traits, tc5::Fmt::f16)
#endif
#if FMHA_PLAN_HAS_D256
FMHA_SM100_ENTRY(256, fmha_sm100_bf16_d256, BF16Traits, tc5::Fmt::bf16)
FMHA_SM100_ENTRY(256, fmha_sm100_f16_d256, F16Traits, tc5::Fmt::f16)
#endif
#if FMHA_PLAN_HAS_D512
FMHA_SM100_ENTRY(512, fmha_sm100_bf16_d512, BF16Traits, tc5::Fmt::bf16)
FMHA_SM100_ENTRY(512, fmha_sm100_f16_d512, F16Traits, tc5::Fmt::f16)
#endif
