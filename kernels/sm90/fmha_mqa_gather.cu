// Entry points of sm90_mqa_gather (see fmha_mqa_gather.cuh): one per (dtype, head dim).
#include "sm90/fmha_mqa_gather.cuh"

FMHA_MQA_GATHER_ENTRY(bf16, true, 64)
FMHA_MQA_GATHER_ENTRY(bf16, true, 128)
FMHA_MQA_GATHER_ENTRY(bf16, true, 256)
FMHA_MQA_GATHER_ENTRY(bf16, true, 512)
FMHA_MQA_GATHER_ENTRY(f16, false, 64)
FMHA_MQA_GATHER_ENTRY(f16, false, 128)
FMHA_MQA_GATHER_ENTRY(f16, false, 256)
FMHA_MQA_GATHER_ENTRY(f16, false, 512)
