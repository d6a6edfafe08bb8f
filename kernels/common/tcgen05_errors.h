// GENERATED from fmhactl/plans/tcgen05_abi.py by `python -m fmhactl.plans --write`; do not edit.
// Conformance errors of the tcgen05 emulator and the device-side state the host runtime fills in
// (host side: fmhactl/runtime/emulation.py, built from the same declarations).
#pragma once

// Violation codes. 0 is never recorded so that a zeroed record reads as "none".
#define TC5_ERR_LANE_QUARTER           1 // ld/st touched a lane outside the warp's quarter (warp % 4)
#define TC5_ERR_ALLOC_COLUMNS          2 // alloc/dealloc nCols not a power of two in [32, 512]
#define TC5_ERR_ALLOC_INCREASING       3 // alloc larger than the CTA's previous alloc
#define TC5_ERR_ALLOC_AFTER_RELINQUISH 4 // alloc after relinquish_alloc_permit
#define TC5_ERR_ALLOC_EXHAUSTED        5 // no free columns: real hardware would block forever
#define TC5_ERR_DEALLOC_UNKNOWN        6 // dealloc of an address/size no alloc returned
#define TC5_ERR_UNALLOCATED_COLUMNS    7 // ld/st/mma touched columns that are not allocated
#define TC5_ERR_ALLOC_LIVE_AT_EXIT     8 // allocation still live when the kernel finished (host check)
#define TC5_ERR_DESC_FIXED_BITS        9 // smem descriptor: bits 46-48 != 0b001, reserved bits, lbo mode, layout
#define TC5_ERR_DESC_BASE_OFFSET       10 // smem descriptor: non-zero matrix base offset (undocumented)
#define TC5_ERR_DESC_MISALIGNED        11 // smem descriptor: start address breaks the swizzle atom
#define TC5_ERR_MMA_SHAPE              12 // M/N (K) invalid for the kind
#define TC5_ERR_IDESC_INVALID          13 // instruction descriptor: formats, reserved bits, major-ness
#define TC5_ERR_UNWRITTEN_READ         14 // ld or mma read a TMEM cell never written since alloc
#define TC5_ERR_MMA_TMEM_ADDRESS       15 // D / A(TS) TMEM address breaks the lane alignment rule
#define TC5_ERR_TMEM_OUT_OF_RANGE      16 // lane >= 128 or column >= 512 (access skipped)
// Strict mode only (FMHACTL_TC5_STRICT=1): asynchronous operations tracked from issue to completion.
#define TC5_ERR_TMEM_BUSY              17 // ld/st/mma touched TMEM an in-flight MMA reads or writes
#define TC5_ERR_SMEM_BUSY              18 // TMA/generic write to SMEM an in-flight MMA reads
#define TC5_ERR_LD_NOT_WAITED          19 // tcgen05.ld not followed by wait::ld before a sync / exit
#define TC5_ERR_ST_NOT_WAITED          20 // tcgen05.st not followed by wait::st before its data is used
#define TC5_ERR_MISSING_PROXY_FENCE    21 // generic SMEM writes read by an MMA with no fence.proxy.async
#define TC5_ERR_MISSING_FENCE_AFTER    22 // tcgen05 op after a thread sync with no fence::after_thread_sync
#define TC5_ERR_MISSING_FENCE_BEFORE   23 // thread sync after tcgen05 ops with no fence::before_thread_sync
#define TC5_ERR_COMMIT_WITHOUT_MMA     24 // commit by a warp that issued no MMA
#define TC5_ERR_MMA_UNCOMMITTED        25 // MMA issued but never committed (host check at exit)
#define TC5_ERR_PARTIAL_WARP           26 // .sync.aligned op executed by part of a warp
#define TC5_ERR_NON_UNIFORM            27 // .sync.aligned op with operands that differ across the warp
#define TC5_ERR_TMA_IN_FLIGHT_AT_EXIT  28 // TMA load whose mbarrier phase nobody observed (host check)
#define TC5_ERR_MMA_IN_FLIGHT_AT_EXIT  29 // committed MMA whose commit arrive nobody observed (host check)
#define TC5_ERR_ALLOC_TIMEOUT          30 // blocking alloc waited past the limit: per-SM TMEM deadlock
#define TC5_ERR_TMA_STORE_NEGATIVE     31 // TMA tile store whose box starts at a negative coordinate (illegal instruction on sm_90; undocumented on sm_100): skipped
#define TC5_ERR_TMA_STORE_SOURCE_OVERWRITTEN 32 // bulk store's SMEM source changed before a cp.async.bulk.wait_group retired its read
#define TC5_ERR_TMA_STORE_PENDING_AT_EXIT 33 // bulk store whose source read no cp.async.bulk.wait_group retired when the CTA exited (host check)
#define TC5_ERR_CP_ASYNC_NOT_WAITED    34 // MMA read SMEM a cp.async writes before the copying warp's cp.async.wait_group / wait_all retired it
#define TC5_ERR_CP_ASYNC_PENDING_AT_EXIT 35 // cp.async copies no cp.async.wait_group / wait_all of the copying warp retired when the CTA exited (host check)
#define TC5_ERR_COUNT                  36

// Operation codes recorded with each violation (the "op" field).
#define TC5_OP_ALLOC                   1
#define TC5_OP_DEALLOC                 2
#define TC5_OP_RELINQUISH              3
#define TC5_OP_LD                      4
#define TC5_OP_ST                      5
#define TC5_OP_MMA_SS                  6
#define TC5_OP_MMA_TS                  7
#define TC5_OP_COMMIT                  8
#define TC5_OP_EXIT                    9
#define TC5_OP_TMA_LOAD                10
#define TC5_OP_MBAR_WAIT               11
#define TC5_OP_MBAR_ARRIVE             12
#define TC5_OP_FENCE_PROXY             13
#define TC5_OP_WAIT_LD                 14
#define TC5_OP_WAIT_ST                 15
#define TC5_OP_GENERIC_STORE           16
#define TC5_OP_FENCE_BEFORE            17
#define TC5_OP_FENCE_AFTER             18
#define TC5_OP_TMA_STORE               19
#define TC5_OP_BULK_STORE              20
#define TC5_OP_BULK_WAIT               21
#define TC5_OP_CP_ASYNC                22

#define TC5_TMEM_LANES                 128
#define TC5_TMEM_COLUMNS               512
#define TC5_ALLOC_UNIT                 32
#define TC5_ALLOC_CHUNKS               (TC5_TMEM_COLUMNS / TC5_ALLOC_UNIT)
// Written-cell bitmap: one bit per (lane, column), 4 words per column (lanes 0-31, 32-63, ...).
#define TC5_WRITTEN_WORDS              (TC5_TMEM_COLUMNS * TC5_TMEM_LANES / 32)

// One recorded conformance violation. `site` is the source line of the tcgen05 call in the kernel.
struct Tc5Violation {
    unsigned int code;
    unsigned int op;
    unsigned int block;                  // linear block index
    unsigned int warp;                   // warp index within the CTA (linear thread id / 32)
    unsigned int lane;                   // lane within the warp that detected it
    unsigned int site;
    unsigned int detail0;                // code-specific: e.g. the offending TMEM lane, nCols, descriptor low word
    unsigned int detail1;                // code-specific: e.g. the offending column, previous nCols, descriptor high word
    unsigned int other_op;               // strict rules: the second operation involved (0: none), its line and warp
    unsigned int other_site;
    unsigned int other_warp;
    unsigned int reserved;
};

// One live TMEM allocation of a CTA, stored at the index of its first 32-column chunk.
struct Tc5Alloc {
    unsigned int ncols;                  // 0: no allocation starts at this chunk
    unsigned int site;
    unsigned int warp;
    unsigned int reserved;
};

// Per-CTA emulator bookkeeping; the host zeroes it before every launch.
struct Tc5CtaMeta {
    unsigned int lock;                   // serialises alloc/dealloc of the CTA
    unsigned int used_chunks;            // bit c: columns [32c, 32c+32) allocated
    unsigned int last_ncols;             // size of the previous alloc (0: none yet)
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
    // Strict mode (ignored by fast builds). 0 pointers: a strict build traps.
    unsigned long long strict;           // struct Tc5StrictCta[ctas]
    unsigned long long sm_pools;         // struct Tc5SmPool[sm_pool_count]: TMEM shared per SM
    unsigned long long trace;            // struct Tc5TraceEvent[trace_capacity]; 0: tracing off
    unsigned long long trace_count;      // unsigned int; counts past the capacity too
    unsigned int trace_capacity;
    unsigned int sm_pool_count;
    unsigned int seed;                   // picks when each deferred MMA group executes
    unsigned int ctas_per_sm;            // co-resident CTAs the launch expects (occupancy), for reports
    unsigned long long alloc_timeout_ns; // a blocked tcgen05.alloc gives up (alloc-timeout) after this
    unsigned long long tma_boxes;        // struct Tc5TmaBox[tma_box_count]: maps the host declared (PTX-path TMA stores)
    unsigned int tma_box_count;
    unsigned int reserved;
};

// ---- strict mode --------------------------------------------------------------------------------
#define TC5_STRICT_MMA_SLOTS           64 // issued, not yet executed MMAs per CTA (a full ring executes the oldest)
#define TC5_STRICT_COMMITS             32 // commits not yet arrived per CTA
#define TC5_STRICT_TX                  64 // TMA loads whose mbarrier phase nobody has observed yet
#define TC5_STRICT_BARS                32 // mbarriers tracked per CTA
#define TC5_STRICT_WARPS               32
#define TC5_SMEM_BLOCK_BYTES           1024 // granularity of the proxy-fence check
#define TC5_SMEM_BLOCKS                240 // 1-KiB blocks of the shared window (absolute addresses < 240 KiB)
#define TC5_STRICT_BULK                32 // bulk stores per CTA not yet retired by a wait_group
#define TC5_BULK_MIN_BYTES             16 // source bytes checked of a store whose map's box is unknown
#define TC5_TMA_BOXES                  32 // tensor maps the host may declare with their box size
#define TC5_TMA_MAP_WORDS              16 // a CUtensorMap: 128 opaque bytes
#define TC5_STRICT_CP_GROUPS           4 // cp.async groups per warp tracked until a wait retires them (older ones: forgotten)
#define TC5_CP_BLOCK_WORDS             8 // words of a group's SMEM block bitmap

// MMA flags word.
#define TC5_MMA_TF32                   1u
#define TC5_MMA_TS                     2u
#define TC5_MMA_ACCUM                  4u

struct Tc5StrictMma {
    unsigned long long a_desc;
    unsigned long long b_desc;
    unsigned int d_tmem;
    unsigned int a_tmem;
    unsigned int idesc;
    unsigned int flags;
    unsigned int site;
    unsigned int warp;
    unsigned int seq;
    unsigned int a_hash;
    unsigned int b_hash;
    unsigned int smem_a_lo;
    unsigned int smem_a_hi;
    unsigned int smem_b_lo;
    unsigned int smem_b_hi;
    unsigned int reserved[3];
};

struct Tc5StrictCommit {
    unsigned int mbar;                   // shared address of the mbarrier to arrive on
    unsigned int upto;                   // arrives once every MMA with seq < upto has executed
    unsigned int site;
    unsigned int warp;
};

struct Tc5StrictTx {                     // one TMA load (or expect-tx) waiting for its phase to be observed
    unsigned int mbar;                   // 0: free slot
    unsigned int dst;                    // shared address of the destination (loads) or 0 (expect-tx)
    unsigned int site;
    unsigned int warp;
};

struct Tc5StrictWarp {
    unsigned int pending_ld_site;        // 0: none; otherwise the line of an ld not yet waited
    unsigned int pending_st_site;
    unsigned int async_since_fence;      // line of an async tcgen05 op since the last fence::before
    unsigned int synced_site;            // line of an observed wait not yet followed by fence::after
    unsigned int mma_count;              // MMAs this warp issued (commit rule)
    unsigned int wait_bar;               // trace: the mbarrier this warp is polling (0: none)
    unsigned int tc5_ops;                // any tcgen05 op issued (arrives from it order tcgen05 work)
    unsigned int async_op;               // TC5_OP_* of the op at async_since_fence
    unsigned int st_col_lo;              // columns [lo, hi) of the st calls not yet waited
    unsigned int st_col_hi;
};

struct Tc5StrictBar {
    unsigned int addr;                   // 0: free
    unsigned int flags;                  // 1: carries tcgen05 ordering (a commit or a tcgen05 warp arrives on it)
};

struct Tc5StrictBulkStore {              // one bulk store whose source read no wait_group retired yet
    unsigned int thread;                 // linear thread id + 1 of the issuing thread; 0: free slot
    unsigned int commits;                // commit_groups that thread ran since the store (0: not committed yet)
    unsigned int src;                    // shared address of the fingerprinted source bytes
    unsigned int bytes;                  // how many: the box, the size operand, or TC5_BULK_MIN_BYTES
    unsigned int hash;                   // their fingerprint at issue
    unsigned int site;
    unsigned int op;                     // TC5_OP_TMA_STORE (tensor) or TC5_OP_BULK_STORE
    unsigned int reserved;
};

struct Tc5StrictCpWarp {                 // one warp's cp.async copies that no wait retired yet
    unsigned int open_lo;                // shared bytes [lo, hi) of the copies not committed yet (lo == hi: none)
    unsigned int open_hi;
    unsigned int open_site;              // line of the first of them
    unsigned int commits;                // cp.async.commit_group calls of the warp (its lanes together count once)
    unsigned int retired;                // groups before this one are complete (a wait_group retired them)
    unsigned int group_lo[TC5_STRICT_CP_GROUPS]; // group g's bytes at g % TC5_STRICT_CP_GROUPS
    unsigned int group_hi[TC5_STRICT_CP_GROUPS];
    unsigned int group_site[TC5_STRICT_CP_GROUPS];
    unsigned int open_blocks[TC5_CP_BLOCK_WORDS]; // bit b of word b / 32: the open copies wrote SMEM block b
    unsigned int group_blocks[TC5_STRICT_CP_GROUPS * TC5_CP_BLOCK_WORDS]; // group g's blocks at words (g % TC5_STRICT_CP_GROUPS) * TC5_CP_BLOCK_WORDS ...
    unsigned int reserved[3];
};

struct Tc5StrictCta {
    unsigned int lock;                   // serialises the queues and the executor
    unsigned int mma_issued;             // seq of the next MMA
    unsigned int mma_done;               // every MMA with seq < mma_done has executed
    unsigned int commit_issued;
    unsigned int commit_done;
    unsigned int hash_ticket;            // orders proxy-fence snapshots (newest wins)
    unsigned int last_fence_site;
    unsigned int last_fence_warp;
    struct Tc5StrictMma mma[TC5_STRICT_MMA_SLOTS];
    struct Tc5StrictCommit commits[TC5_STRICT_COMMITS];
    unsigned int commit_mode[TC5_STRICT_COMMITS]; // 0 lazy (at observation), 1 eager, 2 issuer's next wait
    struct Tc5StrictTx tx[TC5_STRICT_TX];
    struct Tc5StrictWarp warps[TC5_STRICT_WARPS];
    struct Tc5StrictBar bars[TC5_STRICT_BARS];
    unsigned long long smem_hash[TC5_SMEM_BLOCKS]; // (ticket << 32) | hash as of the last fence / TMA
    struct Tc5StrictBulkStore bulk[TC5_STRICT_BULK]; // PTX path: bulk stores not retired by a wait_group
    unsigned int cp_pending;             // bit w: warp w has cp.async copies no wait retired yet
    unsigned int reserved;
    struct Tc5StrictCpWarp cp[TC5_STRICT_WARPS]; // cp.async copies per warp
};

// A tensor map the host encoded and declared, with its box size (the map is opaque: looked up by content).
struct Tc5TmaBox {
    unsigned long long map[TC5_TMA_MAP_WORDS]; // the CUtensorMap's 128 bytes as the driver encoded them
    unsigned int bytes;                  // shared-memory bytes of one box of that map
    unsigned int reserved[3];
};

// TMEM of one SM, shared by the CTAs resident on it.
struct Tc5SmPool {
    unsigned int lock;
    unsigned int used_chunks;
    unsigned int resident;               // CTAs holding columns now
    unsigned int max_resident;           // most CTAs that held columns at once
    unsigned int blocked;                // allocs that had to wait
    unsigned int timed_out;              // an alloc here hit the time limit: later ones report at once
    unsigned int reserved[2];
    unsigned int owner_block[TC5_ALLOC_CHUNKS];
    unsigned int owner_site[TC5_ALLOC_CHUNKS];
};

// Trace events; recorded only when tc5_emu_state.trace != 0.
#define TC5_EV_MMA_ISSUE               1
#define TC5_EV_MMA_COMPLETE            2
#define TC5_EV_COMMIT                  3
#define TC5_EV_COMMIT_ARRIVE           4
#define TC5_EV_TMA_ISSUE               5
#define TC5_EV_ARRIVE                  6
#define TC5_EV_WAIT_BEGIN              7
#define TC5_EV_WAIT_END                8
#define TC5_EV_LD                      9
#define TC5_EV_ST                      10
#define TC5_EV_WAIT_LD                 11
#define TC5_EV_WAIT_ST                 12
#define TC5_EV_ALLOC                   13
#define TC5_EV_DEALLOC                 14
#define TC5_EV_MBAR_INIT               15 // a: mbarrier, b: expected arrivals (fmhactl trace groups arrives into phases)

struct Tc5TraceEvent {
    unsigned long long time_ns;          // %globaltimer
    unsigned int kind;
    unsigned int block;
    unsigned int warp;
    unsigned int site;
    unsigned int a;                      // kind-specific: mbarrier address, MMA seq, TMEM address, ...
    unsigned int b;
};
