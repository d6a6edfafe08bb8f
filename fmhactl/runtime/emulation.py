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

Numbers and struct layouts mirror kernels/common/tcgen05_errors.h; tests/tcgen05/test_errors_abi.py
compiles that header on the host and checks both sides agree.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from fmhactl.errors import ExitCode, FmhactlError
from fmhactl.runtime.driver import LoadedModule, check

STATE_SYMBOL = "tc5_emu_state"
TMEM_LANES = 128
TMEM_COLUMNS = 512
ALLOC_UNIT = 32
ALLOC_CHUNKS = TMEM_COLUMNS // ALLOC_UNIT
WRITTEN_WORDS = TMEM_COLUMNS * TMEM_LANES // 32
TMEM_BYTES_PER_CTA = TMEM_LANES * TMEM_COLUMNS * 4
# Fresh TMEM reads as a NaN pattern, so a value that escapes the unwritten-read check stands out.
TMEM_POISON = 0x7FBADBAD
DEFAULT_CAPACITY = 1024

# TC5_ERR_* codes, by name as printed.
ERROR_CODES: dict[str, int] = {
    "lane-quarter": 1,
    "alloc-columns": 2,
    "alloc-increasing": 3,
    "alloc-after-relinquish": 4,
    "alloc-exhausted": 5,
    "dealloc-unknown": 6,
    "unallocated-columns": 7,
    "alloc-live-at-exit": 8,
    "desc-fixed-bits": 9,
    "desc-base-offset": 10,
    "desc-misaligned": 11,
    "mma-shape": 12,
    "idesc-invalid": 13,
    "unwritten-read": 14,
    "mma-tmem-address": 15,
    "tmem-out-of-range": 16,
}
ERROR_COUNT = 17  # TC5_ERR_COUNT: one past the last code
ERROR_NAMES: dict[int, str] = {code: name for name, code in ERROR_CODES.items()}

# TC5_OP_* codes: which call detected the violation.
OP_CODES: dict[str, int] = {
    "alloc": 1, "dealloc": 2, "relinquish_alloc_permit": 3, "ld": 4, "st": 5,
    "mma_ss": 6, "mma_ts": 7, "commit": 8, "exit": 9,
}
OP_NAMES: dict[int, str] = {code: name for name, code in OP_CODES.items()}


class ViolationRecord(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint32), ("op", ctypes.c_uint32), ("block", ctypes.c_uint32),
                ("warp", ctypes.c_uint32), ("lane", ctypes.c_uint32), ("site", ctypes.c_uint32),
                ("detail0", ctypes.c_uint32), ("detail1", ctypes.c_uint32)]


class AllocRecord(ctypes.Structure):
    _fields_ = [("ncols", ctypes.c_uint32), ("site", ctypes.c_uint32), ("warp", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]


class CtaMeta(ctypes.Structure):
    _fields_ = [("lock", ctypes.c_uint32), ("used_chunks", ctypes.c_uint32), ("last_ncols", ctypes.c_uint32),
                ("relinquished", ctypes.c_uint32), ("allocs", AllocRecord * ALLOC_CHUNKS),
                ("written", ctypes.c_uint32 * WRITTEN_WORDS)]


class EmuState(ctypes.Structure):
    _fields_ = [("tmem", ctypes.c_uint64), ("meta", ctypes.c_uint64), ("violations", ctypes.c_uint64),
                ("violation_count", ctypes.c_uint64), ("violation_capacity", ctypes.c_uint32),
                ("ctas", ctypes.c_uint32)]


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

    def __str__(self) -> str:
        return (f"tcgen05 {self.name}: {self.op} at line {self.site}, block {self.block} warp {self.warp} "
                f"lane {self.lane}: {self.detail}")

    @classmethod
    def from_record(cls, rec: ViolationRecord) -> Violation:
        op = OP_NAMES.get(rec.op, f"op-{rec.op}")
        return cls(ERROR_NAMES.get(rec.code, f"code-{rec.code}"), rec.block, rec.warp, rec.lane, rec.site, op,
                   describe(rec.code, op, rec.warp, rec.detail0, rec.detail1), rec.code)


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

    def __init__(self, module: LoadedModule, ctas: int, capacity: int = DEFAULT_CAPACITY) -> None:
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
        try:
            self._tmem = self._alloc(ctas * TMEM_BYTES_PER_CTA, "emulated TMEM")
            self._meta = self._alloc(ctas * ctypes.sizeof(CtaMeta), "emulated TMEM bookkeeping")
            self._records = self._alloc(capacity * ctypes.sizeof(ViolationRecord), "violation records")
            self._count = self._alloc(4, "violation count")
            check(driver.cuMemsetD32(self._tmem.ptr, TMEM_POISON, self._tmem.nbytes // 4), "cuMemsetD32(TMEM poison)")
            self._state = EmuState(self._tmem.address, self._meta.address, self._records.address,
                                   self._count.address, capacity, ctas)
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

    def reset(self, stream: int = 0) -> None:
        """Clear allocations, written bits and violations; call before every launch, on its stream.

        TMEM contents are kept (as on hardware, a fresh allocation holds stale data); the written
        bitmap makes reading them a violation.
        """
        driver = _driver()
        handle = driver.CUstream(stream)
        self._write_state()  # another session on the same module may have pointed it elsewhere
        check(driver.cuMemsetD8Async(self._meta.ptr, 0, self._meta.nbytes, handle), "cuMemsetD8Async(bookkeeping)")
        check(driver.cuMemsetD8Async(self._count.ptr, 0, 4, handle), "cuMemsetD8Async(violation count)")

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
        return violations

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

    def prepare(self, module: LoadedModule, grid: tuple[int, int, int], stream: int = 0) -> EmulationSession:
        ctas = grid[0] * grid[1] * grid[2]
        entry = self._sessions.get(id(module))
        if entry is None or entry[1].ctas < ctas:
            if entry is not None:
                entry[1].close()
            entry = (module, EmulationSession(module, ctas, self.capacity))
            self._sessions[id(module)] = entry
        entry[1].reset(stream)
        return entry[1]

    def finish(self, module: LoadedModule, stream: int | None = None) -> None:
        """Raise EmulationViolations if the module's last launch broke a tcgen05 rule."""
        entry = self._sessions.get(id(module))
        if entry is not None:
            entry[1].raise_if_violations(stream)

    def close(self) -> None:
        for _, session in self._sessions.values():
            session.close()
        self._sessions.clear()
