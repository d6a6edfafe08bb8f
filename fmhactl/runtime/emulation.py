"""Host side of the tcgen05 emulator (kernels/common/tcgen05_emu.cuh).

An emulated build (sm_100a kernel compiled for sm_90a with FMHACTL_TCGEN05_EMULATE=1) keeps its
Tensor Memory and its conformance records in device memory that this module provides. The kernel
finds them through the module global ``tc5_emu_state``; kernel parameters are unchanged.

Use per launch::

    session = EmulationSession.attach(module, ctas=grid_x * grid_y * grid_z)  # None: no tcgen05
    session.reset(stream)            # before every launch, on the launch stream
    launch(...)
    synchronize(stream)
    session.raise_if_violations()    # or: violations = session.collect()

Numbers and struct layouts come from fmhactl/plans/tcgen05_abi.py, the declaration that
kernels/common/tcgen05_errors.h is generated from (`python -m fmhactl.plans --write`).

Strict builds (FMHACTL_TC5_STRICT=1, ``--emulation strict``; the module exports ``tc5_emu_strict``)
also get per-CTA trackers (``StrictCta``), the per-SM TMEM pools and, on request, a trace buffer.
After the launch, ``collect`` adds what each CTA left in flight at exit (``in_flight_at_exit``);
``reset(seed=...)`` picks when deferred MMAs run (seed 0: always as late as legal). A launcher that
passes a TMA store's tensor map declares it (``declare_tensor_maps``), so that the PTX path's store
tracking watches the whole box. See docs/emulation-strict.md.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fmhactl.errors import BadInput, ExitCode, FmhactlError
from fmhactl.plans import tcgen05_abi as abi
from fmhactl.plans.cstruct import ctypes_struct
from fmhactl.plans.hardware import TMEM_ALLOC_UNIT, TMEM_COLUMNS, TMEM_LANES
from fmhactl.plans.tcgen05_abi import (  # noqa: F401 (re-exported: tests and trace read them here)
    ALLOC_CHUNKS, ERROR_CODES, ERROR_COUNT, OP_CODES, SMEM_BLOCK_BYTES, SMEM_BLOCKS, STRICT_BARS, STRICT_COMMITS,
    STRICT_CP_GROUPS, STRICT_MMA_SLOTS, STRICT_TX, STRICT_WARPS, TRACE_EVENTS, WRITTEN_WORDS,
)
from fmhactl.runtime.driver import LoadedModule, check

if TYPE_CHECKING:
    from fmhactl.layout.tensormap import TensorMapParams

STATE_SYMBOL = "tc5_emu_state"
# The numbers and records are declared once in fmhactl/plans/tcgen05_abi.py (which also renders
# kernels/common/tcgen05_errors.h); this module reads them from there.
ALLOC_UNIT = TMEM_ALLOC_UNIT
TMEM_BYTES_PER_CTA = TMEM_LANES * TMEM_COLUMNS * 4
# Fresh TMEM reads as a NaN pattern, so a value that escapes the unwritten-read check stands out.
TMEM_POISON = 0x7FBADBAD
DEFAULT_CAPACITY = 1024

FAST_ERRORS = frozenset(name for name, code in ERROR_CODES.items() if code < abi.STRICT_FIRST_ERROR)
STRICT_ERRORS = frozenset(ERROR_CODES) - FAST_ERRORS
ERROR_NAMES: dict[int, str] = {code: name for name, code in ERROR_CODES.items()}
OP_NAMES: dict[int, str] = {code: name for name, code in OP_CODES.items()}


ViolationRecord = ctypes_struct(abi.VIOLATION)
AllocRecord = ctypes_struct(abi.ALLOC)
CtaMeta = ctypes_struct(abi.CTA_META)
EmuState = ctypes_struct(abi.EMU_STATE)


# ---- strict mode (Tc5StrictCta and friends) ----------------------------------------------------------
STRICT_SYMBOL = "tc5_emu_strict"
MMA_TS = abi.MMA_FLAGS["TS"]
SM_POOLS = 256             # %smid modulo this; more than any GPU has SMs
DEFAULT_ALLOC_TIMEOUT_S = 5.0

StrictMma = ctypes_struct(abi.STRICT_MMA)
StrictCommit = ctypes_struct(abi.STRICT_COMMIT)
StrictTx = ctypes_struct(abi.STRICT_TX_RECORD)
StrictWarp = ctypes_struct(abi.STRICT_WARP)
StrictBar = ctypes_struct(abi.STRICT_BAR)
StrictCta = ctypes_struct(abi.STRICT_CTA)
SmPool = ctypes_struct(abi.SM_POOL)
TraceEvent = ctypes_struct(abi.TRACE_EVENT)
StrictBulkStore = ctypes_struct(abi.STRICT_BULK_STORE)
TmaBox = ctypes_struct(abi.TMA_BOX)
TMA_MAP_BYTES = abi.TMA_MAP_WORDS * 8


@dataclass(frozen=True)
class TensorMapBox:
    """A tensor map as the driver encoded it and the shared-memory bytes one box of it occupies.

    The map is opaque (never decoded): a strict PTX-path build finds a TMA store's box size by
    comparing the store's map with the declared ones byte for byte."""

    map_bytes: bytes
    box_bytes: int

    @classmethod
    def of(cls, tensor_map: ctypes.Structure, params: TensorMapParams) -> TensorMapBox:
        """From an encoded map (tma_maps.TmaMap) and the TensorMapParams it was encoded from.

        The box's bytes are its elements times the element size (layout.tensormap.box_summary): its
        shared-memory footprint, except under a swizzle whose span is wider than the inner box row,
        where the row pitch is undocumented (shared/reference/tcgen05-spec.md 8.1): such a map is
        refused rather than declared with a size that may cover bytes the store does not read.
        """
        from fmhactl.layout.tensormap import SWIZZLE_SPAN, Interleave, Swizzle, box_summary

        summary = box_summary(params)
        if summary is None:
            raise BadInput(f"tensor map parameters {params.as_dict()} have no box size (unknown dtype, swizzle or "
                           "element strides)")
        span = SWIZZLE_SPAN.get(Swizzle(params.swizzle))
        if span and params.interleave == Interleave.NONE and summary.inner_box_bytes < span:
            raise BadInput(f"tensor map with a {summary.inner_box_bytes:g}-byte inner box row under a {span}-byte "
                           "swizzle: its shared-memory pitch is undocumented, so its box size cannot be declared "
                           "(leave it undeclared: the store's first 16 bytes are watched)")
        return cls(bytes(tensor_map), summary.box_bytes)


def _describe_desc(lo: int, hi: int) -> str:
    d = (hi << 32) | lo
    start, lbo, sbo = (d & 0x3FFF) << 4, ((d >> 16) & 0x3FFF) << 4, ((d >> 32) & 0x3FFF) << 4
    return (f"smem descriptor 0x{d:016x} (start 0x{start:x}, LBO {lbo}, SBO {sbo}, bits46-48 "
            f"{(d >> 46) & 7:03b}, base offset {(d >> 49) & 7}, lbo mode {(d >> 52) & 1}, layout {(d >> 61) & 7})")


def _describe_idesc(x: int) -> str:
    return (f"instruction descriptor 0x{x:08x} (M {((x >> 24) & 31) << 4}, N {((x >> 17) & 63) << 3}, "
            f"D fmt {(x >> 4) & 3}, A fmt {(x >> 7) & 7}, B fmt {(x >> 10) & 7}, "
            f"A MN-major {(x >> 15) & 1}, B MN-major {(x >> 16) & 1})")


def describe(code: int, op: str, warp: int, d0: int, d1: int) -> str:
    """The human half of a violation: what exactly was wrong, from the two detail words."""
    name = ERROR_NAMES.get(code, f"code-{code}")
    if name == "lane-quarter":
        q = warp % 4
        return (f"warp {warp} may access lanes {32 * q}..{32 * q + 31} (warp % 4 = {q}) but touched "
                f"lane {d0} column {d1}")
    if name == "alloc-columns":
        ncols = d1 if op == "dealloc" else d0
        return f"nCols {ncols} is not a power of two in [32, 512]"
    if name == "alloc-increasing":
        return f"alloc of {d0} columns after an alloc of {d1}: sizes must not increase within a CTA"
    if name == "alloc-after-relinquish":
        return f"alloc of {d0} columns after relinquish_alloc_permit"
    if name == "alloc-exhausted":
        return (f"no room for {d0} columns (allocated 32-column chunks 0x{d1:04x}); hardware would block "
                "forever")
    if name == "dealloc-unknown":
        return f"dealloc(taddr 0x{d0:08x}, nCols {d1}) matches no live allocation"
    if name == "unallocated-columns":
        if op.startswith("mma"):
            return f"TMEM operand at 0x{d0:08x} spans {d1} columns that are not all allocated"
        return f"TMEM lane {d0} column {d1} is not allocated"
    if name == "alloc-live-at-exit":
        return f"{d0} columns from column {d1} (alloc at line shown) were never deallocated"
    if name in ("desc-fixed-bits", "desc-base-offset", "desc-misaligned"):
        return _describe_desc(d0, d1)
    if name in ("mma-shape", "idesc-invalid"):
        if d1:  # a descriptor/major-ness mismatch carries the descriptor
            return "layout not allowed for this kind/major-ness: " + _describe_desc(d0, d1)
        return _describe_idesc(d0)
    if name == "unwritten-read":
        return f"TMEM lane {d0} column {d1} read before anything was written there since alloc"
    if name == "mma-tmem-address":
        return (f"TMEM address 0x{d0:08x}: D needs lane 0 (M=128) or 0/16 (M=64); TS A needs D's lane "
                f"(D 0x{d1:08x})")
    if name == "tmem-out-of-range":
        return f"lane {d0} column {d1} lies outside the 128 x 512 Tensor Memory (access skipped)"
    return _describe_strict(name, op, d0, d1)


def _commit_age(commits: int) -> str:
    """How long ago the thread's commit_group took a pending copy or store (0: never committed)."""
    return "never committed" if commits == 0 else f"committed, {commits} commit_group(s) ago"


def _describe_strict(name: str, op: str, d0: int, d1: int) -> str:
    """The strict-mode rules; the second operation is printed by Violation itself."""
    if name == "tmem-busy":
        return f"TMEM columns {d0}..{d1 - 1} are read or written by an MMA that has not completed"
    if name == "smem-busy":
        if op == "tma_load":
            return f"TMA load into SMEM 0x{d0:x} (mbarrier 0x{d1:x}) overwrites an operand of an MMA in flight"
        return f"SMEM operand 0x{d0:x}..0x{d1:x} changed between the MMA's issue and its execution"
    if name == "ld-not-waited":
        return "tcgen05.ld with no tcgen05.wait::ld before this point"
    if name == "st-not-waited":
        return "tcgen05.st with no tcgen05.wait::st before its data is used"
    if name == "missing-proxy-fence":
        return (f"SMEM block 0x{d0:x} read by the MMA (async proxy) was written by the generic proxy after the "
                "last fence.proxy.async (named below when there was one)")
    if name == "missing-fence-after":
        return "async tcgen05 op after an mbarrier wait with no tcgen05.fence::after_thread_sync between"
    if name == "missing-fence-before":
        return f"mbarrier 0x{d0:x} arrive after async tcgen05 ops with no tcgen05.fence::before_thread_sync"
    if name == "commit-without-mma":
        return f"tcgen05.commit to mbarrier 0x{d0:x} from a warp that issued no MMA: it tracks nothing"
    if name == "mma-uncommitted":
        return "MMA issued but never committed: nothing tells anyone it completed"
    if name == "partial-warp":
        return (f".sync.aligned tcgen05 op executed by lanes 0x{d0:08x} only (all 32 must; if every lane does "
                "reach it, the warp was not reconverged after a branch: __syncwarp() before the op)")
    if name == "non-uniform":
        return f".sync.aligned tcgen05 op with operands that differ across the warp (0x{d0:x} vs 0x{d1:x})"
    if name == "tma-in-flight-at-exit":
        return (f"CTA exited with a TMA load into SMEM 0x{d0:x} in flight: nobody waited on mbarrier 0x{d1:x} "
                "for its bytes")
    if name == "mma-in-flight-at-exit":
        return f"CTA exited with MMA #{d0} in flight: nobody waited on its commit's mbarrier 0x{d1:x}"
    if name == "alloc-timeout":
        return (f"tcgen05.alloc of {d0} columns blocked past the time limit: this SM's TMEM (chunks 0x{d1:04x}) "
                "is held by the CTA named below; on hardware this CTA would hang")
    if name == "tma-store-negative":
        start = d1 - (1 << 32) if d1 >= 1 << 31 else d1
        return (f"TMA tile store whose box starts at coordinate {start} in dimension {d0}: an illegal instruction on "
                "sm_90 (it kills the context), undocumented on sm_100; the store was skipped")
    if name == "tma-store-source-overwritten":
        return (f"SMEM 0x{d0:x}..0x{d0 + d1:x} ({d1} bytes checked), the source of this store, changed before a "
                "cp.async.bulk.wait_group retired the store's bulk async-group (named below): the store may have "
                "read the new bytes")
    if name == "tma-store-pending-at-exit":
        return (f"CTA exited with a bulk store from SMEM 0x{d0:x} ({_commit_age(d1)}) whose source read no "
                "cp.async.bulk.wait_group retired: the next CTA on the SM may reuse that memory while it is read")
    if name == "cp-async-not-waited":
        return (f"SMEM operand 0x{d0:x}..0x{d1:x} holds bytes of a cp.async (named below) that no "
                "cp.async.wait_group / wait_all of the copying warp had retired when the MMA issued: the MMA may "
                "read them before they land")
    if name == "cp-async-pending-at-exit":
        return (f"CTA exited with cp.async copies into SMEM from 0x{d0:x} ({_commit_age(d1)}) that no "
                "cp.async.wait_group / wait_all of this warp retired: they may still write shared memory the next CTA "
                "on the SM is given, and no reader could have been ordered after them")
    return f"details 0x{d0:08x} 0x{d1:08x}"


@dataclass(frozen=True)
class Violation:
    name: str
    block: int
    warp: int
    lane: int
    site: int  # source line of the tcgen05 call in the kernel
    op: str
    detail: str
    code: int = 0
    other_op: str = ""      # strict rules: the second operation involved
    other_site: int = 0
    other_warp: int = -1    # -1: unknown; for alloc-timeout the block holding the columns

    def __str__(self) -> str:
        text = (f"tcgen05 {self.name}: {self.op} at line {self.site}, block {self.block} warp {self.warp} "
                f"lane {self.lane}: {self.detail}")
        if self.other_op:
            who = ("" if self.other_warp < 0 else
                   f" (block {self.other_warp})" if self.name == "alloc-timeout" else f" (warp {self.other_warp})")
            where = f" at line {self.other_site}" if self.other_site else ""
            text += f"; other operation: {self.other_op}{where}{who}"
        return text

    @classmethod
    def from_record(cls, rec: ViolationRecord) -> Violation:
        op = OP_NAMES.get(rec.op, f"op-{rec.op}")
        other = OP_NAMES.get(rec.other_op, f"op-{rec.other_op}") if rec.other_op else ""
        other_warp = -1 if rec.other_warp == 0xFFFFFFFF else rec.other_warp
        return cls(ERROR_NAMES.get(rec.code, f"code-{rec.code}"), rec.block, rec.warp, rec.lane, rec.site, op,
                   describe(rec.code, op, rec.warp, rec.detail0, rec.detail1), rec.code, other, rec.other_site,
                   other_warp)


class EmulationViolations(FmhactlError):
    """A launch finished but broke tcgen05 rules; the message lists every violation, one per line."""

    def __init__(self, violations: list[Violation], dropped: int = 0) -> None:
        lines = [str(v) for v in violations]
        if dropped:
            lines.append(f"... and {dropped} more not recorded (violation buffer full)")
        super().__init__(f"{len(violations) + dropped} tcgen05 conformance violation(s):\n" + "\n".join(lines),
                         ExitCode.VERIFY_FAILED)
        self.violations = violations


def _driver():
    from cuda.bindings import driver
    return driver


class _DeviceBuffer:
    def __init__(self, nbytes: int, what: str) -> None:
        self.nbytes = nbytes
        self.ptr = check(_driver().cuMemAlloc(nbytes), f"cuMemAlloc({what}, {nbytes} bytes)")

    @property
    def address(self) -> int:
        return int(self.ptr)

    def free(self) -> None:
        if self.ptr is not None:
            check(_driver().cuMemFree(self.ptr), "cuMemFree")
            self.ptr = None


class EmulationSession:
    """Tensor Memory backing, allocation bookkeeping and the violation buffer for one module."""

    def __init__(self, module: LoadedModule, ctas: int, capacity: int = DEFAULT_CAPACITY,
                 trace_capacity: int = 0, alloc_timeout_s: float = DEFAULT_ALLOC_TIMEOUT_S) -> None:
        if ctas < 1:
            raise ValueError(f"ctas must be positive, got {ctas}")
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity}")
        driver = _driver()
        self.ctas = ctas
        self.capacity = capacity
        self._buffers: list[_DeviceBuffer] = []
        self._global, size = check(driver.cuModuleGetGlobal(module.module, STATE_SYMBOL.encode()),
                                   f"cuModuleGetGlobal({STATE_SYMBOL})")
        if int(size) != ctypes.sizeof(EmuState):
            raise FmhactlError(f"{STATE_SYMBOL} is {int(size)} bytes in the module but {ctypes.sizeof(EmuState)} "
                               "in fmhactl: tcgen05_errors.h and emulation.py disagree", ExitCode.MISSING_ENV)
        err, *_ = driver.cuModuleGetGlobal(module.module, STRICT_SYMBOL.encode())
        self.strict = err == driver.CUresult.CUDA_SUCCESS
        self.trace_capacity = trace_capacity if self.strict else 0
        try:
            self._tmem = self._alloc(ctas * TMEM_BYTES_PER_CTA, "emulated TMEM")
            self._meta = self._alloc(ctas * ctypes.sizeof(CtaMeta), "emulated TMEM bookkeeping")
            self._records = self._alloc(capacity * ctypes.sizeof(ViolationRecord), "violation records")
            self._count = self._alloc(8, "violation and trace counts")
            check(driver.cuMemsetD32(self._tmem.ptr, TMEM_POISON, self._tmem.nbytes // 4), "cuMemsetD32(TMEM poison)")
            self._state = EmuState(self._tmem.address, self._meta.address, self._records.address,
                                   self._count.address, capacity, ctas)
            if self.strict:
                self._strict = self._alloc(ctas * ctypes.sizeof(StrictCta), "strict-mode tracker")
                self._pools = self._alloc(SM_POOLS * ctypes.sizeof(SmPool), "per-SM TMEM pools")
                self._state.strict = self._strict.address
                self._state.sm_pools = self._pools.address
                self._state.sm_pool_count = SM_POOLS
                self._state.alloc_timeout_ns = int(alloc_timeout_s * 1e9)
                self._boxes = self._alloc(abi.TMA_BOXES * ctypes.sizeof(TmaBox), "declared tensor-map boxes")
                self._state.tma_boxes = self._boxes.address
                if self.trace_capacity:
                    self._trace = self._alloc(self.trace_capacity * ctypes.sizeof(TraceEvent), "trace events")
                    self._state.trace = self._trace.address
                    self._state.trace_count = self._count.address + 4
                    self._state.trace_capacity = self.trace_capacity
            self._write_state()
        except BaseException:
            self.close()
            raise

    @classmethod
    def attach(cls, module: LoadedModule, ctas: int, capacity: int = DEFAULT_CAPACITY) -> EmulationSession | None:
        """A session for a module built with the emulator, None for one that uses no tcgen05."""
        driver = _driver()
        err, *_ = driver.cuModuleGetGlobal(module.module, STATE_SYMBOL.encode())
        if err == driver.CUresult.CUDA_ERROR_NOT_FOUND:
            return None
        return cls(module, ctas, capacity)

    def _alloc(self, nbytes: int, what: str) -> _DeviceBuffer:
        buffer = _DeviceBuffer(nbytes, what)
        self._buffers.append(buffer)
        return buffer

    def _write_state(self) -> None:
        check(_driver().cuMemcpyHtoD(self._global, ctypes.addressof(self._state), ctypes.sizeof(self._state)),
              f"cuMemcpyHtoD({STATE_SYMBOL})")

    def declare_tensor_maps(self, boxes: Sequence[TensorMapBox]) -> None:
        """The tensor maps the next launches pass, with their box sizes (replaces earlier ones).

        Strict builds of the PTX path fingerprint a TMA store's whole box only for a declared map;
        an undeclared one is watched on its first 16 bytes. Fast builds track no store: ignored.
        """
        table = box_table(boxes)
        if not self.strict:
            return
        if len(table):
            check(_driver().cuMemcpyHtoD(self._boxes.ptr, ctypes.addressof(table), ctypes.sizeof(table)),
                  "cuMemcpyHtoD(tensor-map boxes)")
        self._state.tma_box_count = len(table)
        self._write_state()

    def reset(self, stream: int = 0, seed: int = 0, ctas_per_sm: int = 0) -> None:
        """Clear allocations, written bits, violations and (strict) the trackers; call before every
        launch, on its stream. `seed` picks, per commit, when strict mode runs the deferred MMAs.

        TMEM contents are kept (as on hardware, a fresh allocation holds stale data); the written
        bitmap makes reading them a violation.
        """
        driver = _driver()
        handle = driver.CUstream(stream)
        self._state.seed = seed & 0xFFFFFFFF
        self._state.ctas_per_sm = ctas_per_sm
        self._write_state()  # another session on the same module may have pointed it elsewhere
        check(driver.cuMemsetD8Async(self._meta.ptr, 0, self._meta.nbytes, handle), "cuMemsetD8Async(bookkeeping)")
        check(driver.cuMemsetD8Async(self._count.ptr, 0, 8, handle), "cuMemsetD8Async(violation count)")
        if self.strict:
            check(driver.cuMemsetD8Async(self._strict.ptr, 0, self._strict.nbytes, handle), "cuMemsetD8Async(strict)")
            check(driver.cuMemsetD8Async(self._pools.ptr, 0, self._pools.nbytes, handle), "cuMemsetD8Async(pools)")

    def collect(self, stream: int | None = None) -> list[Violation]:
        """Violations of the last launch (synchronises `stream` first when given).

        Recorded ones in the order the device wrote them, then one alloc-live-at-exit per
        allocation still live (found in each CTA's bookkeeping).
        """
        driver = _driver()
        if stream is not None:
            check(driver.cuStreamSynchronize(driver.CUstream(stream)), "cuStreamSynchronize")
        count = ctypes.c_uint32(0)
        check(driver.cuMemcpyDtoH(ctypes.addressof(count), self._count.ptr, 4), "cuMemcpyDtoH(violation count)")
        recorded = min(count.value, self.capacity)
        self.dropped = count.value - recorded
        violations: list[Violation] = []
        if recorded:
            records = (ViolationRecord * recorded)()
            check(driver.cuMemcpyDtoH(ctypes.addressof(records), self._records.ptr, ctypes.sizeof(records)),
                  "cuMemcpyDtoH(violation records)")
            violations = [Violation.from_record(r) for r in records]
        metas = (CtaMeta * self.ctas)()
        check(driver.cuMemcpyDtoH(ctypes.addressof(metas), self._meta.ptr, ctypes.sizeof(metas)),
              "cuMemcpyDtoH(bookkeeping)")
        violations.extend(live_allocations(metas))
        if self.strict:
            trackers = (StrictCta * self.ctas)()
            check(driver.cuMemcpyDtoH(ctypes.addressof(trackers), self._strict.ptr, ctypes.sizeof(trackers)),
                  "cuMemcpyDtoH(strict trackers)")
            violations.extend(in_flight_at_exit(trackers))
            pools = (SmPool * SM_POOLS)()
            check(driver.cuMemcpyDtoH(ctypes.addressof(pools), self._pools.ptr, ctypes.sizeof(pools)),
                  "cuMemcpyDtoH(TMEM pools)")
            self.pool_stats = {"max_ctas_holding_tmem_per_sm": max(p.max_resident for p in pools),
                               "allocs_blocked": sum(p.blocked for p in pools)}
        return violations

    def trace_events(self) -> list[TraceEvent]:
        """Events of the last launch (strict builds with trace_capacity > 0; issue 16 renders them)."""
        if not self.trace_capacity:
            return []
        driver = _driver()
        count = ctypes.c_uint32(0)
        check(driver.cuMemcpyDtoH(ctypes.addressof(count), int(self._count.ptr) + 4, 4), "cuMemcpyDtoH(trace count)")
        n = min(count.value, self.trace_capacity)
        self.trace_dropped = count.value - n
        events = (TraceEvent * n)()
        if n:
            check(driver.cuMemcpyDtoH(ctypes.addressof(events), self._trace.ptr, ctypes.sizeof(events)),
                  "cuMemcpyDtoH(trace)")
        return list(events)

    def raise_if_violations(self, stream: int | None = None) -> None:
        violations = self.collect(stream)
        if violations or self.dropped:
            raise EmulationViolations(violations, self.dropped)

    def close(self) -> None:
        for buffer in self._buffers:
            buffer.free()
        self._buffers.clear()

    def __enter__(self) -> EmulationSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    dropped: int = 0
    trace_dropped: int = 0
    pool_stats: dict = {}


def box_table(boxes: Sequence[TensorMapBox]) -> ctypes.Array:
    """The device table of declared maps; BadInput naming the first entry that cannot be one."""
    if len(boxes) > abi.TMA_BOXES:
        raise BadInput(f"{len(boxes)} tensor maps declared; the emulator looks up at most {abi.TMA_BOXES}")
    table = (TmaBox * len(boxes))()
    for index, box in enumerate(boxes):
        if not isinstance(box.map_bytes, (bytes, bytearray)):
            raise BadInput(f"declared tensor map {index} is a {type(box.map_bytes).__name__}, not the map's bytes "
                           "(TensorMapBox.of takes the encoded map)")
        if len(box.map_bytes) != TMA_MAP_BYTES:
            raise BadInput(f"declared tensor map {index} is {len(box.map_bytes)} bytes; a CUtensorMap is "
                           f"{TMA_MAP_BYTES}")
        if box.box_bytes <= 0 or box.box_bytes % 16:
            raise BadInput(f"declared tensor map {index}: a box of {box.box_bytes} bytes is not a positive multiple "
                           "of 16 (cuTensorMapEncodeTiled's rule)")
        ctypes.memmove(ctypes.addressof(table[index].map), box.map_bytes, TMA_MAP_BYTES)
        table[index].bytes = box.box_bytes
    return table


def pending_bulk_store(block: int, tracker: ctypes.Structure) -> Violation | None:
    """tma-store-pending-at-exit for the first bulk store of a CTA that no wait_group retired."""
    code = ERROR_CODES["tma-store-pending-at-exit"]
    for b in tracker.bulk:
        if b.thread:
            tid = b.thread - 1
            op = OP_NAMES.get(b.op, f"op-{b.op}")
            return Violation("tma-store-pending-at-exit", block, tid // 32, tid % 32, b.site, op,
                             describe(code, op, tid // 32, b.src, b.commits), code, "exit", 0, -1)
    return None


def pending_cp_async(block: int, tracker: ctypes.Structure) -> Violation | None:
    """cp-async-pending-at-exit for the first warp of a CTA that left cp.async copies no wait retired.

    Open copies (not committed) come first, then the warp's unretired groups oldest first; a group
    without copies (an empty commit_group) is nothing pending. Groups the ring forgot are not seen.
    """
    code = ERROR_CODES["cp-async-pending-at-exit"]
    for warp, w in enumerate(tracker.cp):
        if w.open_lo != w.open_hi:
            return Violation("cp-async-pending-at-exit", block, warp, 0, w.open_site, "cp_async",
                             describe(code, "cp_async", warp, w.open_lo, 0), code, "exit", 0, -1)
        unretired = min((w.commits - w.retired) & 0xFFFFFFFF, STRICT_CP_GROUPS)
        for age in range(unretired, 0, -1):  # age 1: the newest group
            i = (w.commits - age) % STRICT_CP_GROUPS
            if w.group_lo[i] != w.group_hi[i]:
                return Violation("cp-async-pending-at-exit", block, warp, 0, w.group_site[i], "cp_async",
                                 describe(code, "cp_async", warp, w.group_lo[i], age), code, "exit", 0, -1)
    return None


def in_flight_at_exit(trackers) -> list[Violation]:
    """Strict mode: what each CTA left in flight when it exited (the device cannot see its own exit).

    TMA loads whose mbarrier phase nobody observed; MMAs never committed; committed MMAs whose
    commit nobody observed; tcgen05.ld / st never waited; bulk stores (PTX path) whose source read
    no wait_group retired; cp.async copies no wait of their warp retired.
    """
    out: list[Violation] = []

    def add(name: str, block: int, warp: int, site: int, op: str, d0: int, d1: int) -> None:
        code = ERROR_CODES[name]
        out.append(Violation(name, block, warp, 0, site, op, describe(code, op, warp, d0, d1), code, "exit", 0, -1))

    for block, t in enumerate(trackers):
        for tx in t.tx:
            if tx.mbar and tx.dst:
                add("tma-in-flight-at-exit", block, tx.warp, tx.site, "tma_load", tx.dst, tx.mbar)
                break
        if t.mma_issued != t.mma_done:
            last_upto = t.commits[(t.commit_issued - 1) % STRICT_COMMITS].upto if t.commit_issued else 0
            first = t.mma[t.mma_done % STRICT_MMA_SLOTS]
            op = "mma_ts" if first.flags & MMA_TS else "mma_ss"
            if t.mma_done >= last_upto:
                add("mma-uncommitted", block, first.warp, first.site, op, t.mma_done, 0)
            else:
                pending = t.commits[t.commit_done % STRICT_COMMITS]
                add("mma-in-flight-at-exit", block, first.warp, first.site, op, t.mma_done, pending.mbar)
                out[-1] = Violation(out[-1].name, block, first.warp, 0, first.site, op, out[-1].detail, out[-1].code,
                                    "commit", pending.site, pending.warp)
        for warp, w in enumerate(t.warps):
            if w.pending_ld_site:
                add("ld-not-waited", block, warp, w.pending_ld_site, "ld", 0, 0)
            if w.pending_st_site:
                add("st-not-waited", block, warp, w.pending_st_site, "st", 0, 0)
        if (store := pending_bulk_store(block, t)) is not None:
            out.append(store)
        if (copies := pending_cp_async(block, t)) is not None:
            out.append(copies)
    return out


def live_allocations(metas) -> list[Violation]:
    """alloc-live-at-exit for every allocation a CTA still holds after the kernel finished."""
    code = ERROR_CODES["alloc-live-at-exit"]
    out: list[Violation] = []
    for block, meta in enumerate(metas):
        if not meta.used_chunks:
            continue
        for chunk in range(ALLOC_CHUNKS):
            alloc = meta.allocs[chunk]
            if alloc.ncols:
                out.append(Violation("alloc-live-at-exit", block, alloc.warp, 0, alloc.site, "exit",
                                     describe(code, "exit", alloc.warp, alloc.ncols, chunk * ALLOC_UNIT), code))
    return out


class EmulationSessions:
    """One EmulationSession per loaded module, regrown when a launch needs more CTAs.

    The launch path calls prepare() before each emulated launch and finish() after synchronising.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = capacity
        self._sessions: dict[int, tuple[LoadedModule, EmulationSession]] = {}

    def prepare(self, module: LoadedModule, grid: tuple[int, int, int], stream: int = 0,
                seed: int = 0, ctas_per_sm: int = 0, trace_capacity: int = 0) -> EmulationSession:
        """`trace_capacity` > 0 records trace events (strict builds; fmhactl trace); 0 keeps tracing off."""
        ctas = grid[0] * grid[1] * grid[2]
        entry = self._sessions.get(id(module))
        # A fast (non-strict) module never traces: asking it to is no reason to rebuild its session.
        stale_trace = entry is not None and entry[1].strict and entry[1].trace_capacity != trace_capacity
        if entry is None or entry[1].ctas < ctas or stale_trace:
            if entry is not None:
                entry[1].close()
            entry = (module, EmulationSession(module, ctas, self.capacity, trace_capacity=trace_capacity))
            self._sessions[id(module)] = entry
        entry[1].reset(stream, seed, ctas_per_sm)
        return entry[1]

    def stats(self, module: LoadedModule) -> dict:
        """Strict mode, after finish(): the most CTAs that held TMEM on one SM, allocs that blocked."""
        entry = self._sessions.get(id(module))
        return dict(entry[1].pool_stats) if entry is not None else {}

    def trace_events(self, module: LoadedModule) -> tuple[list[TraceEvent], int]:
        """The module's last launch's trace events and how many did not fit the buffer."""
        entry = self._sessions.get(id(module))
        if entry is None:
            return [], 0
        events = entry[1].trace_events()
        return events, entry[1].trace_dropped

    def finish(self, module: LoadedModule, stream: int | None = None) -> None:
        """Raise EmulationViolations if the module's last launch broke a tcgen05 rule."""
        entry = self._sessions.get(id(module))
        if entry is not None:
            entry[1].raise_if_violations(stream)

    def close(self) -> None:
        for _, session in self._sessions.values():
            session.close()
        self._sessions.clear()
