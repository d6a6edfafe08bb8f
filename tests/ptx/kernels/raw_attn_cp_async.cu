// raw_attn.cu with K gathered by cp.async (tests/ptx/test_raw_kernel.py: the PTX path's cp.async groups).
#define RAW_CP_ASYNC_K 1
#include "raw_attn.cu"
