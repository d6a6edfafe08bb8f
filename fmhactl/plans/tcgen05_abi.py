"""The tcgen05 emulator's shared numbers and records, declared once.

`python -m fmhactl.plans --write` renders kernels/common/tcgen05_errors.h from these declarations;
`runtime/emulation.py` (the host side) reads the codes and builds its ctypes records from the same
structs, so the device and the host cannot disagree on a code or an offset.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.plans.cstruct import U32, U64, CField, CStruct, render_c
from fmhactl.plans.hardware import TMEM_ALLOC_UNIT, TMEM_COLUMNS, TMEM_LANES

HEADER_PATH = "kernels/common/tcgen05_errors.h"


@dataclass(frozen=True)
class Code:
    """A numbered code: `name` as printed by fmhactl, `macro` its C name, `meaning` the C comment."""

    name: str
    value: int
    meaning: str = ""
    macro_suffix: str = ""

    def macro(self, prefix: str) -> str:
        return f"{prefix}{self.macro_suffix or self.name.upper().replace('-', '_')}"


STRICT_FIRST_ERROR = 17  # codes from here on are recorded by strict builds only

# Violation codes. 0 is never recorded so that a zeroed record reads as "none".
ERRORS: tuple[Code, ...] = (
    Code("lane-quarter", 1, "ld/st touched a lane outside the warp's quarter (warp % 4)"),
    Code("alloc-columns", 2, "alloc/dealloc nCols not a power of two in [32, 512]"),
    Code("alloc-increasing", 3, "alloc larger than the CTA's previous alloc"),
    Code("alloc-after-relinquish", 4, "alloc after relinquish_alloc_permit"),
    Code("alloc-exhausted", 5, "no free columns: real hardware would block forever"),
    Code("dealloc-unknown", 6, "dealloc of an address/size no alloc returned"),
    Code("unallocated-columns", 7, "ld/st/mma touched columns that are not allocated"),
    Code("alloc-live-at-exit", 8, "allocation still live when the kernel finished (host check)"),
    Code("desc-fixed-bits", 9, "smem descriptor: bits 46-48 != 0b001, reserved bits, lbo mode, layout"),
    Code("desc-base-offset", 10, "smem descriptor: non-zero matrix base offset (undocumented)"),
    Code("desc-misaligned", 11, "smem descriptor: start address breaks the swizzle atom"),
    Code("mma-shape", 12, "M/N (K) invalid for the kind"),
    Code("idesc-invalid", 13, "instruction descriptor: formats, reserved bits, major-ness"),
    Code("unwritten-read", 14, "ld or mma read a TMEM cell never written since alloc"),
    Code("mma-tmem-address", 15, "D / A(TS) TMEM address breaks the lane alignment rule"),
    Code("tmem-out-of-range", 16, "lane >= 128 or column >= 512 (access skipped)"),
    Code("tmem-busy", 17, "ld/st/mma touched TMEM an in-flight MMA reads or writes"),
    Code("smem-busy", 18, "TMA/generic write to SMEM an in-flight MMA reads"),
    Code("ld-not-waited", 19, "tcgen05.ld not followed by wait::ld before a sync / exit"),
    Code("st-not-waited", 20, "tcgen05.st not followed by wait::st before its data is used"),
    Code("missing-proxy-fence", 21, "generic SMEM writes read by an MMA with no fence.proxy.async"),
    Code("missing-fence-after", 22, "tcgen05 op after a thread sync with no fence::after_thread_sync"),
    Code("missing-fence-before", 23, "thread sync after tcgen05 ops with no fence::before_thread_sync"),
    Code("commit-without-mma", 24, "commit by a warp that issued no MMA"),
    Code("mma-uncommitted", 25, "MMA issued but never committed (host check at exit)"),
    Code("partial-warp", 26, ".sync.aligned op executed by part of a warp"),
    Code("non-uniform", 27, ".sync.aligned op with operands that differ across the warp"),
    Code("tma-in-flight-at-exit", 28, "TMA load whose mbarrier phase nobody observed (host check)"),
    Code("mma-in-flight-at-exit", 29, "committed MMA whose commit arrive nobody observed (host check)"),
    Code("alloc-timeout", 30, "blocking alloc waited past the limit: per-SM TMEM deadlock"),
    Code("tma-store-negative", 31,
         "TMA tile store whose box starts at a negative coordinate (illegal instruction on sm_90; undocumented on "
         "sm_100): skipped"),
    Code("tma-store-source-overwritten", 32,
         "bulk store's SMEM source changed before a cp.async.bulk.wait_group retired its read"),
    Code("tma-store-pending-at-exit", 33,
         "bulk store whose source read no cp.async.bulk.wait_group retired when the CTA exited (host check)"),
    Code("cp-async-not-waited", 34,
         "MMA read SMEM a cp.async writes before the copying warp's cp.async.wait_group / wait_all retired it"),
    Code("cp-async-pending-at-exit", 35,
         "cp.async copies no cp.async.wait_group / wait_all of the copying warp retired when the CTA exited "
         "(host check)"),
)
ERROR_CODES: dict[str, int] = {code.name: code.value for code in ERRORS}
ERROR_COUNT = max(ERROR_CODES.values()) + 1  # TC5_ERR_COUNT: one past the last code
# Strict codes only the PTX path records (its rewriter's hooks; the tc5:: headers issue no TMA store
# and no bulk async-group), so the tc5:: rule kernels (tests/kernels/emu_rules) have no case for
# them; tests/ptx covers them (test_tma_store_guard.py, test_bulk_groups.py).
PTX_PATH_ERRORS: frozenset[str] = frozenset({"tma-store-negative", "tma-store-source-overwritten",
                                             "tma-store-pending-at-exit"})

# Operation codes recorded with each violation (the "op" field).
OPS: tuple[Code, ...] = (
    Code("alloc", 1), Code("dealloc", 2), Code("relinquish_alloc_permit", 3, macro_suffix="RELINQUISH"),
    Code("ld", 4), Code("st", 5), Code("mma_ss", 6), Code("mma_ts", 7), Code("commit", 8), Code("exit", 9),
    Code("tma_load", 10), Code("mbar_wait", 11), Code("mbar_arrive", 12), Code("fence_proxy", 13),
    Code("wait_ld", 14), Code("wait_st", 15), Code("generic_store", 16), Code("fence_before", 17),
    Code("fence_after", 18), Code("tma_store", 19), Code("bulk_store", 20), Code("bulk_wait", 21),
    Code("cp_async", 22),
)
OP_CODES: dict[str, int] = {code.name: code.value for code in OPS}

# Trace events; recorded only when tc5_emu_state.trace != 0.
EVENTS: tuple[Code, ...] = (
    Code("mma_issue", 1), Code("mma_complete", 2), Code("commit", 3), Code("commit_arrive", 4),
    Code("tma_issue", 5), Code("arrive", 6), Code("wait_begin", 7), Code("wait_end", 8), Code("ld", 9),
    Code("st", 10), Code("wait_ld", 11), Code("wait_st", 12), Code("alloc", 13), Code("dealloc", 14),
    Code("mbar_init", 15, "a: mbarrier, b: expected arrivals (fmhactl trace groups arrives into phases)"),
)
TRACE_EVENTS: dict[str, int] = {code.name: code.value for code in EVENTS}

ALLOC_CHUNKS = TMEM_COLUMNS // TMEM_ALLOC_UNIT
WRITTEN_WORDS = TMEM_COLUMNS * TMEM_LANES // 32  # one bit per (lane, column)

# Strict mode capacities.
STRICT_MMA_SLOTS = 64
STRICT_COMMITS = 32
STRICT_TX = 64
STRICT_BARS = 32
STRICT_WARPS = 32
SMEM_BLOCK_BYTES = 1024
SMEM_BLOCKS = 240
MMA_FLAGS = {"TF32": 1, "TS": 2, "ACCUM": 4}
# Bulk stores (PTX path): stores per CTA whose source read no wait_group retired yet (more go
# untracked: a missed report, never a false one), and what a tensor store's source fingerprint
# covers when its map's box is unknown: a box occupies [source, source + its bytes), and its inner
# row alone is a multiple of 16 bytes (swizzles permute 16-byte chunks within rows).
STRICT_BULK = 32
BULK_MIN_BYTES = 16
# Tensor maps the host declared with their box size (EmulationSession.declare_tensor_maps), so
# that a TMA store's source fingerprint covers the whole box. The map itself is opaque (128 bytes;
# shared/reference/tcgen05-spec.md 8.1: keep a side table keyed by the encode call, never decode it).
TMA_BOXES = 32
TMA_MAP_WORDS = 16
# cp.async (non-bulk) groups, tracked per warp (docs/emulation-strict.md): the most recent groups a
# warp committed and no wait retired yet; an older one is forgotten (a missed report, never a false one).
STRICT_CP_GROUPS = 4
# Which 1-KiB blocks of the shared window (SMEM_BLOCKS of them) a group's copies wrote: a byte
# range alone (min to max) would also cover the stages between a K and a V gather.
CP_BLOCK_WORDS = -(-SMEM_BLOCKS // 32)


def _u32(*names: str, comment: str = "") -> tuple[CField, ...]:
    """Several unsigned int members; `comment` goes on the last."""
    return tuple(CField(n, U32, comment if i == len(names) - 1 else "") for i, n in enumerate(names))


VIOLATION = CStruct("Tc5Violation", (
    CField("code", U32), CField("op", U32),
    CField("block", U32, "linear block index"),
    CField("warp", U32, "warp index within the CTA (linear thread id / 32)"),
    CField("lane", U32, "lane within the warp that detected it"),
    CField("site", U32),
    CField("detail0", U32, "code-specific: e.g. the offending TMEM lane, nCols, descriptor low word"),
    CField("detail1", U32, "code-specific: e.g. the offending column, previous nCols, descriptor high word"),
    CField("other_op", U32, "strict rules: the second operation involved (0: none), its line and warp"),
    CField("other_site", U32), CField("other_warp", U32), CField("reserved", U32),
), comment="One recorded conformance violation. `site` is the source line of the tcgen05 call in the kernel.")

ALLOC = CStruct("Tc5Alloc", (
    CField("ncols", U32, "0: no allocation starts at this chunk"), CField("site", U32), CField("warp", U32),
    CField("reserved", U32),
), comment="One live TMEM allocation of a CTA, stored at the index of its first 32-column chunk.")

CTA_META = CStruct("Tc5CtaMeta", (
    CField("lock", U32, "serialises alloc/dealloc of the CTA"),
    CField("used_chunks", U32, "bit c: columns [32c, 32c+32) allocated"),
    CField("last_ncols", U32, "size of the previous alloc (0: none yet)"),
    CField("relinquished", U32),
    CField("allocs", ALLOC, count="TC5_ALLOC_CHUNKS", count_value=ALLOC_CHUNKS),
    CField("written", U32, count="TC5_WRITTEN_WORDS", count_value=WRITTEN_WORDS),
), comment="Per-CTA emulator bookkeeping; the host zeroes it before every launch.")

EMU_STATE = CStruct("Tc5EmuState", (
    CField("tmem", U64, "unsigned int[ctas][TC5_TMEM_COLUMNS][TC5_TMEM_LANES]"),
    CField("meta", U64, "struct Tc5CtaMeta[ctas]"),
    CField("violations", U64, "struct Tc5Violation[violation_capacity]"),
    CField("violation_count", U64, "unsigned int; counts past the capacity too"),
    CField("violation_capacity", U32),
    CField("ctas", U32, "blocks the buffers cover; a larger grid traps"),
    CField("strict", U64, "struct Tc5StrictCta[ctas]",
           note="Strict mode (ignored by fast builds). 0 pointers: a strict build traps."),
    CField("sm_pools", U64, "struct Tc5SmPool[sm_pool_count]: TMEM shared per SM"),
    CField("trace", U64, "struct Tc5TraceEvent[trace_capacity]; 0: tracing off"),
    CField("trace_count", U64, "unsigned int; counts past the capacity too"),
    CField("trace_capacity", U32),
    CField("sm_pool_count", U32),
    CField("seed", U32, "picks when each deferred MMA group executes"),
    CField("ctas_per_sm", U32, "co-resident CTAs the launch expects (occupancy), for reports"),
    CField("alloc_timeout_ns", U64, "a blocked tcgen05.alloc gives up (alloc-timeout) after this"),
    CField("tma_boxes", U64, "struct Tc5TmaBox[tma_box_count]: maps the host declared (PTX-path TMA stores)"),
    CField("tma_box_count", U32),
    CField("reserved", U32),
), comment=("The module global `tc5_emu_state` (emulated builds only). The host writes it with\n"
            "cuModuleGetGlobal + cuMemcpyHtoD before launching; pointers are device addresses."))

STRICT_MMA = CStruct("Tc5StrictMma", (
    CField("a_desc", U64), CField("b_desc", U64),
    *_u32("d_tmem", "a_tmem", "idesc", "flags", "site", "warp", "seq", "a_hash", "b_hash",
          "smem_a_lo", "smem_a_hi", "smem_b_lo", "smem_b_hi"),
    CField("reserved", U32, count=3),
))

STRICT_COMMIT = CStruct("Tc5StrictCommit", (
    CField("mbar", U32, "shared address of the mbarrier to arrive on"),
    CField("upto", U32, "arrives once every MMA with seq < upto has executed"),
    CField("site", U32), CField("warp", U32),
))

STRICT_TX_RECORD = CStruct("Tc5StrictTx", (
    CField("mbar", U32, "0: free slot"),
    CField("dst", U32, "shared address of the destination (loads) or 0 (expect-tx)"),
    CField("site", U32), CField("warp", U32),
), trailing="one TMA load (or expect-tx) waiting for its phase to be observed")

STRICT_WARP = CStruct("Tc5StrictWarp", (
    CField("pending_ld_site", U32, "0: none; otherwise the line of an ld not yet waited"),
    CField("pending_st_site", U32),
    CField("async_since_fence", U32, "line of an async tcgen05 op since the last fence::before"),
    CField("synced_site", U32, "line of an observed wait not yet followed by fence::after"),
    CField("mma_count", U32, "MMAs this warp issued (commit rule)"),
    CField("wait_bar", U32, "trace: the mbarrier this warp is polling (0: none)"),
    CField("tc5_ops", U32, "any tcgen05 op issued (arrives from it order tcgen05 work)"),
    CField("async_op", U32, "TC5_OP_* of the op at async_since_fence"),
    CField("st_col_lo", U32, "columns [lo, hi) of the st calls not yet waited"),
    CField("st_col_hi", U32),
))

STRICT_BULK_STORE = CStruct("Tc5StrictBulkStore", (
    CField("thread", U32, "linear thread id + 1 of the issuing thread; 0: free slot"),
    CField("commits", U32, "commit_groups that thread ran since the store (0: not committed yet)"),
    CField("src", U32, "shared address of the fingerprinted source bytes"),
    CField("bytes", U32, "how many: the box, the size operand, or TC5_BULK_MIN_BYTES"),
    CField("hash", U32, "their fingerprint at issue"),
    CField("site", U32),
    CField("op", U32, "TC5_OP_TMA_STORE (tensor) or TC5_OP_BULK_STORE"),
    CField("reserved", U32),
), trailing="one bulk store whose source read no wait_group retired yet")

STRICT_CP_WARP = CStruct("Tc5StrictCpWarp", (
    CField("open_lo", U32, "shared bytes [lo, hi) of the copies not committed yet (lo == hi: none)"),
    CField("open_hi", U32),
    CField("open_site", U32, "line of the first of them"),
    CField("commits", U32, "cp.async.commit_group calls of the warp (its lanes together count once)"),
    CField("retired", U32, "groups before this one are complete (a wait_group retired them)"),
    CField("group_lo", U32, "group g's bytes at g % TC5_STRICT_CP_GROUPS", count="TC5_STRICT_CP_GROUPS",
           count_value=STRICT_CP_GROUPS),
    CField("group_hi", U32, count="TC5_STRICT_CP_GROUPS", count_value=STRICT_CP_GROUPS),
    CField("group_site", U32, count="TC5_STRICT_CP_GROUPS", count_value=STRICT_CP_GROUPS),
    CField("open_blocks", U32, "bit b of word b / 32: the open copies wrote SMEM block b", count="TC5_CP_BLOCK_WORDS",
           count_value=CP_BLOCK_WORDS),
    CField("group_blocks", U32, "group g's blocks at words (g % TC5_STRICT_CP_GROUPS) * TC5_CP_BLOCK_WORDS ...",
           count="TC5_STRICT_CP_GROUPS * TC5_CP_BLOCK_WORDS", count_value=STRICT_CP_GROUPS * CP_BLOCK_WORDS),
    CField("reserved", U32, count=3),
), trailing="one warp's cp.async copies that no wait retired yet")

TMA_BOX = CStruct("Tc5TmaBox", (
    CField("map", U64, "the CUtensorMap's 128 bytes as the driver encoded them",
           count="TC5_TMA_MAP_WORDS", count_value=TMA_MAP_WORDS),
    CField("bytes", U32, "shared-memory bytes of one box of that map"),
    CField("reserved", U32, count=3),
), comment="A tensor map the host encoded and declared, with its box size (the map is opaque: looked up by content).")

STRICT_BAR = CStruct("Tc5StrictBar", (
    CField("addr", U32, "0: free"),
    CField("flags", U32, "1: carries tcgen05 ordering (a commit or a tcgen05 warp arrives on it)"),
))

STRICT_CTA = CStruct("Tc5StrictCta", (
    CField("lock", U32, "serialises the queues and the executor"),
    CField("mma_issued", U32, "seq of the next MMA"),
    CField("mma_done", U32, "every MMA with seq < mma_done has executed"),
    CField("commit_issued", U32), CField("commit_done", U32),
    CField("hash_ticket", U32, "orders proxy-fence snapshots (newest wins)"),
    CField("last_fence_site", U32), CField("last_fence_warp", U32),
    CField("mma", STRICT_MMA, count="TC5_STRICT_MMA_SLOTS", count_value=STRICT_MMA_SLOTS),
    CField("commits", STRICT_COMMIT, count="TC5_STRICT_COMMITS", count_value=STRICT_COMMITS),
    CField("commit_mode", U32, "0 lazy (at observation), 1 eager, 2 issuer's next wait",
           count="TC5_STRICT_COMMITS", count_value=STRICT_COMMITS),
    CField("tx", STRICT_TX_RECORD, count="TC5_STRICT_TX", count_value=STRICT_TX),
    CField("warps", STRICT_WARP, count="TC5_STRICT_WARPS", count_value=STRICT_WARPS),
    CField("bars", STRICT_BAR, count="TC5_STRICT_BARS", count_value=STRICT_BARS),
    CField("smem_hash", U64, "(ticket << 32) | hash as of the last fence / TMA",
           count="TC5_SMEM_BLOCKS", count_value=SMEM_BLOCKS),
    CField("bulk", STRICT_BULK_STORE, "PTX path: bulk stores not retired by a wait_group",
           count="TC5_STRICT_BULK", count_value=STRICT_BULK),
    CField("cp_pending", U32, "bit w: warp w has cp.async copies no wait retired yet"),
    CField("reserved", U32),
    CField("cp", STRICT_CP_WARP, "cp.async copies per warp", count="TC5_STRICT_WARPS", count_value=STRICT_WARPS),
))

SM_POOL = CStruct("Tc5SmPool", (
    CField("lock", U32), CField("used_chunks", U32),
    CField("resident", U32, "CTAs holding columns now"),
    CField("max_resident", U32, "most CTAs that held columns at once"),
    CField("blocked", U32, "allocs that had to wait"),
    CField("timed_out", U32, "an alloc here hit the time limit: later ones report at once"),
    CField("reserved", U32, count=2),
    CField("owner_block", U32, count="TC5_ALLOC_CHUNKS", count_value=ALLOC_CHUNKS),
    CField("owner_site", U32, count="TC5_ALLOC_CHUNKS", count_value=ALLOC_CHUNKS),
), comment="TMEM of one SM, shared by the CTAs resident on it.")

TRACE_EVENT = CStruct("Tc5TraceEvent", (
    CField("time_ns", U64, "%globaltimer"),
    CField("kind", U32), CField("block", U32), CField("warp", U32), CField("site", U32),
    CField("a", U32, "kind-specific: mbarrier address, MMA seq, TMEM address, ..."),
    CField("b", U32),
))


def _define(name: str, value: object, comment: str = "") -> str:
    text = f"#define {name:<30} {value}"
    return f"{text:<38} // {comment}" if comment else text


def render_errors_header() -> list[str]:
    """The body of kernels/common/tcgen05_errors.h (after the GENERATED banner)."""
    out = ["// Conformance errors of the tcgen05 emulator and the device-side state the host runtime fills in",
           "// (host side: fmhactl/runtime/emulation.py, built from the same declarations).",
           "#pragma once", "", "// Violation codes. 0 is never recorded so that a zeroed record reads as \"none\"."]
    for code in ERRORS:
        if code.value == STRICT_FIRST_ERROR:
            out.append("// Strict mode only (FMHACTL_TC5_STRICT=1): asynchronous operations tracked from issue to completion.")
        out.append(_define(code.macro("TC5_ERR_"), code.value, code.meaning))
    out += [_define("TC5_ERR_COUNT", ERROR_COUNT), "",
            "// Operation codes recorded with each violation (the \"op\" field)."]
    out += [_define(code.macro("TC5_OP_"), code.value) for code in OPS]
    out += ["", _define("TC5_TMEM_LANES", TMEM_LANES), _define("TC5_TMEM_COLUMNS", TMEM_COLUMNS),
            _define("TC5_ALLOC_UNIT", TMEM_ALLOC_UNIT),
            _define("TC5_ALLOC_CHUNKS", "(TC5_TMEM_COLUMNS / TC5_ALLOC_UNIT)"),
            "// Written-cell bitmap: one bit per (lane, column), 4 words per column (lanes 0-31, 32-63, ...).",
            _define("TC5_WRITTEN_WORDS", "(TC5_TMEM_COLUMNS * TC5_TMEM_LANES / 32)"), ""]
    for struct in (VIOLATION, ALLOC, CTA_META, EMU_STATE):
        out += [*render_c(struct), ""]
    out += ["// ---- strict mode " + "-" * 80,
            _define("TC5_STRICT_MMA_SLOTS", STRICT_MMA_SLOTS,
                    "issued, not yet executed MMAs per CTA (a full ring executes the oldest)"),
            _define("TC5_STRICT_COMMITS", STRICT_COMMITS, "commits not yet arrived per CTA"),
            _define("TC5_STRICT_TX", STRICT_TX, "TMA loads whose mbarrier phase nobody has observed yet"),
            _define("TC5_STRICT_BARS", STRICT_BARS, "mbarriers tracked per CTA"),
            _define("TC5_STRICT_WARPS", STRICT_WARPS),
            _define("TC5_SMEM_BLOCK_BYTES", SMEM_BLOCK_BYTES, "granularity of the proxy-fence check"),
            _define("TC5_SMEM_BLOCKS", SMEM_BLOCKS, "1-KiB blocks of the shared window (absolute addresses < 240 KiB)"),
            _define("TC5_STRICT_BULK", STRICT_BULK, "bulk stores per CTA not yet retired by a wait_group"),
            _define("TC5_BULK_MIN_BYTES", BULK_MIN_BYTES, "source bytes checked of a store whose map's box is unknown"),
            _define("TC5_TMA_BOXES", TMA_BOXES, "tensor maps the host may declare with their box size"),
            _define("TC5_TMA_MAP_WORDS", TMA_MAP_WORDS, "a CUtensorMap: 128 opaque bytes"),
            _define("TC5_STRICT_CP_GROUPS", STRICT_CP_GROUPS,
                    "cp.async groups per warp tracked until a wait retires them (older ones: forgotten)"),
            _define("TC5_CP_BLOCK_WORDS", CP_BLOCK_WORDS, "words of a group's SMEM block bitmap"),
            "", "// MMA flags word."]
    out += [_define(f"TC5_MMA_{name}", f"{value}u") for name, value in MMA_FLAGS.items()]
    out.append("")
    for struct in (STRICT_MMA, STRICT_COMMIT, STRICT_TX_RECORD, STRICT_WARP, STRICT_BAR, STRICT_BULK_STORE,
                   STRICT_CP_WARP, STRICT_CTA,
                   TMA_BOX, SM_POOL):
        out += [*render_c(struct), ""]
    out.append("// Trace events; recorded only when tc5_emu_state.trace != 0.")
    out += [_define(code.macro("TC5_EV_"), code.value, code.meaning) for code in EVENTS]
    out += ["", *render_c(TRACE_EVENT)]
    return out
