// Conformance errors of the tcgen05 emulator and the device-side state the host runtime fills in.
// Shared with Python: fmhactl/runtime/emulation.py mirrors every number and struct here, and
// tests/tcgen05/test_errors_abi.py compiles this header with the host compiler to check that the
// two agree. Change both together.
#pragma once

// Violation codes. 0 is never recorded so that a zeroed record reads as "none".
#define TC5_ERR_LANE_QUARTER            1   // ld/st touched a lane outside the warp's quarter (warp % 4)
#define TC5_ERR_ALLOC_COLUMNS           2   // alloc/dealloc nCols not a power of two in [32, 512]
#define TC5_ERR_ALLOC_INCREASING        3   // alloc larger than the CTA's previous alloc
#define TC5_ERR_ALLOC_AFTER_RELINQUISH  4   // alloc after relinquish_alloc_permit
#define TC5_ERR_ALLOC_EXHAUSTED         5   // no free columns: real hardware would block forever
#define TC5_ERR_DEALLOC_UNKNOWN         6   // dealloc of an address/size no alloc returned
#define TC5_ERR_UNALLOCATED_COLUMNS     7   // ld/st/mma touched columns that are not allocated
#define TC5_ERR_ALLOC_LIVE_AT_EXIT      8   // allocation still live when the kernel finished (host check)
#define TC5_ERR_DESC_FIXED_BITS         9   // smem descriptor: bits 46-48 != 0b001, reserved bits, lbo mode, layout
#define TC5_ERR_DESC_BASE_OFFSET       10   // smem descriptor: non-zero matrix base offset (undocumented)
#define TC5_ERR_DESC_MISALIGNED        11   // smem descriptor: start address breaks the swizzle atom
#define TC5_ERR_MMA_SHAPE              12   // M/N (K) invalid for the kind
#define TC5_ERR_IDESC_INVALID          13   // instruction descriptor: formats, reserved bits, major-ness
#define TC5_ERR_UNWRITTEN_READ         14   // ld or mma read a TMEM cell never written since alloc
#define TC5_ERR_MMA_TMEM_ADDRESS       15   // D / A(TS) TMEM address breaks the lane alignment rule
#define TC5_ERR_TMEM_OUT_OF_RANGE      16   // lane >= 128 or column >= 512 (access skipped)
#define TC5_ERR_COUNT                  17

// Operation codes recorded with each violation (the "op" field).
#define TC5_OP_ALLOC       1
#define TC5_OP_DEALLOC     2
#define TC5_OP_RELINQUISH  3
#define TC5_OP_LD          4
#define TC5_OP_ST          5
#define TC5_OP_MMA_SS      6
#define TC5_OP_MMA_TS      7
#define TC5_OP_COMMIT      8
#define TC5_OP_EXIT        9

#define TC5_TMEM_LANES     128
#define TC5_TMEM_COLUMNS   512
#define TC5_ALLOC_UNIT     32
#define TC5_ALLOC_CHUNKS   (TC5_TMEM_COLUMNS / TC5_ALLOC_UNIT)
// Written-cell bitmap: one bit per (lane, column), 4 words per column (lanes 0-31, 32-63, ...).
#define TC5_WRITTEN_WORDS  (TC5_TMEM_COLUMNS * TC5_TMEM_LANES / 32)

// One recorded conformance violation. `site` is the source line of the tcgen05 call in the kernel.
struct Tc5Violation {
    unsigned int code;
    unsigned int op;
    unsigned int block;     // linear block index
    unsigned int warp;      // warp index within the CTA (linear thread id / 32)
    unsigned int lane;      // lane within the warp that detected it
    unsigned int site;
    unsigned int detail0;   // code-specific: e.g. the offending TMEM lane, nCols, descriptor low word
    unsigned int detail1;   // code-specific: e.g. the offending column, previous nCols, descriptor high word
};

// One live TMEM allocation of a CTA, stored at the index of its first 32-column chunk.
struct Tc5Alloc {
    unsigned int ncols;     // 0: no allocation starts at this chunk
    unsigned int site;
    unsigned int warp;
    unsigned int reserved;
};

// Per-CTA emulator bookkeeping; the host zeroes it before every launch.
struct Tc5CtaMeta {
    unsigned int lock;           // serialises alloc/dealloc of the CTA
    unsigned int used_chunks;    // bit c: columns [32c, 32c+32) allocated
    unsigned int last_ncols;     // size of the previous alloc (0: none yet)
    unsigned int relinquished;
    struct Tc5Alloc allocs[TC5_ALLOC_CHUNKS];
    unsigned int written[TC5_WRITTEN_WORDS];
};

// The module global `tc5_emu_state` (emulated builds only). The host writes it with
// cuModuleGetGlobal + cuMemcpyHtoD before launching; pointers are device addresses.
struct Tc5EmuState {
    unsigned long long tmem;             // unsigned int[ctas][TC5_TMEM_COLUMNS][TC5_TMEM_LANES]
    unsigned long long meta;             // struct Tc5CtaMeta[ctas]
    unsigned long long violations;       // struct Tc5Violation[violation_capacity]
    unsigned long long violation_count;  // unsigned int; counts past the capacity too
    unsigned int violation_capacity;
    unsigned int ctas;                   // blocks the buffers cover; a larger grid traps
};
