// Entry points of sm90_mqa_decode (see fmha_mqa_decode.cuh): one per dtype at head dim 512.
#include "sm90/fmha_mqa_decode.cuh"

FMHA_MQA_DECODE_ENTRY(bf16, false, 512)
FMHA_MQA_DECODE_ENTRY(f16, true, 512)
