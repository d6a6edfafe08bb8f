// GENERATED from fmhactl/plans/ref.py by `python -m fmhactl.plans --write`; do not edit.
// The reference kernel's plan (kernels/ref/fmha_ref.cuh): switch defaults and fixed sizes.
#pragma once

#ifndef FMHA_BLOCK_M
#define FMHA_BLOCK_M 16
#endif
#ifndef FMHA_BLOCK_N
#define FMHA_BLOCK_N 32
#endif

#define FMHA_REF_THREADS 128
#define FMHA_REF_MAX_HEAD_DIM 512
#define FMHA_REF_K_ROW_PAD 2  // 16-bit elements: one 32-bit word per K row
