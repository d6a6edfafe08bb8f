// Parameter blocks of the tcgen05 test micro-kernels; the harness mirrors them with
// ctypes in tests/tcgen05/tc5_harness.py (and test_tc5_abi.py checks sizes/offsets with the host compiler).
#pragma once

#define TC5T_LDST_WORDS (128 * 512)

struct LdStParams {
    unsigned long long out;   // unsigned int[TC5T_LDST_WORDS]
    unsigned int col_base;    // first TMEM column of the tested access
    unsigned int reserved;
};

#define TC5T_MAX_K_STEPS 8

struct MmaTestParams {
    unsigned long long a_image;   // SS: bytes of A as laid out in shared memory
    unsigned long long b_image;   // bytes of B as laid out in shared memory
    unsigned long long a_tmem;    // TS: unsigned int[128][a_cols], TMEM words of A by lane
    unsigned long long d_out;     // unsigned int[128][n]: the D columns of every lane after the MMAs
    unsigned long long a_desc[TC5T_MAX_K_STEPS];  // start address relative to the A image
    unsigned long long b_desc[TC5T_MAX_K_STEPS];  // start address relative to the B image
    unsigned int a_bytes;
    unsigned int b_bytes;
    unsigned int idesc;
    unsigned int k_steps;
    unsigned int n;
    unsigned int ts;              // 1: A from TMEM (mma_ts)
    unsigned int a_cols;
    unsigned int d_lane0;         // TMEM lane field of D (and A for TS): 0, or 16 for M=64
};

struct ConformanceParams {
    unsigned long long scratch;   // unsigned int[128 * 64]
    unsigned int which;           // TC5_ERR_* code to provoke; 0: a correct kernel
    unsigned int reserved;
};

struct RateParams {
    unsigned long long sink;      // unsigned int[gridDim.x]: keeps the result live
    unsigned int iters;           // MMAs issued per CTA
    unsigned int reserved;
};
