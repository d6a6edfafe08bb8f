// Split-KV decode kernels (see fmha_decode.cuh): one split entry and one combine entry per
// dtype and compiled head dim (FMHA_DECODE_KERNEL_HEAD_DIMS in fmha_decode_split.h, generated
// from fmhactl/plans/sm90_split_decode.py; other head dims run the next wider one masked). Built
// by fmhactl.torch.decode, not a kernels/family.toml variant: it serves only the torch op's
// small-T calls.
#include "sm90/fmha_decode.cuh"

#define FMHA_DECODE_BOTH_DTYPES(D)           \
    FMHA_DECODE_ENTRIES(bf16, Bf16Mma, D)    \
    FMHA_DECODE_ENTRIES(f16, F16Mma, D)

FMHA_DECODE_KERNEL_HEAD_DIMS(FMHA_DECODE_BOTH_DTYPES)
