// Split-KV decode kernels (see fmha_decode.cuh): one split entry and one combine entry per
// dtype and head dim. Built by fmhactl.torch.decode, not a kernels/family.toml variant: it
// serves only the torch op's small-T calls.
#include "sm90/fmha_decode.cuh"

FMHA_DECODE_ENTRIES(bf16, Bf16Mma, 64)
FMHA_DECODE_ENTRIES(bf16, Bf16Mma, 128)
FMHA_DECODE_ENTRIES(f16, F16Mma, 64)
FMHA_DECODE_ENTRIES(f16, F16Mma, 128)
