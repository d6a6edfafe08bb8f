"""CPU tests of fmhactl/runtime/emulation.py against a fake CUDA driver: buffers, the state
global, reset, collection of recorded violations and of allocations live at exit, and messages."""

from __future__ import annotations

import ctypes
from types import SimpleNamespace

import pytest

from fmhactl.runtime import driver as driver_module
from fmhactl.runtime import emulation as emu
from fmhactl.runtime.driver import CudaError


class FakeDriver:
    """Device memory as bytearrays; only the calls emulation.py makes."""

    CUresult = SimpleNamespace(CUDA_SUCCESS=0, CUDA_ERROR_NOT_FOUND=500, CUDA_ERROR_OUT_OF_MEMORY=2)

    def __init__(self, global_size: int | None = None) -> None:
        self.memory: dict[int, bytearray] = {}
        self.next_ptr = 0x1000_0000
        self.freed: list[int] = []
        self.fail_alloc_after: int | None = None
        self.global_ptr = self._new(global_size or ctypes.sizeof(emu.EmuState)) if global_size != 0 else None

    def _new(self, nbytes: int) -> int:
        ptr = self.next_ptr
        self.memory[ptr] = bytearray(nbytes)
        self.next_ptr += (nbytes + 0xFFFF) & ~0xFFFF
        return ptr

    def _region(self, ptr: int) -> tuple[bytearray, int]:
        ptr = int(ptr)
        for base, buf in self.memory.items():
            if base <= ptr < base + len(buf):
                return buf, ptr - base
        raise AssertionError(f"bad device pointer {ptr:#x}")

    # -- driver API --
    def CUstream(self, handle):  # noqa: N802 - mirrors the driver API name
        return handle

    def cuGetErrorName(self, err):  # noqa: N802
        return 0, b"CUDA_ERROR_FAKE"

    def cuGetErrorString(self, err):  # noqa: N802
        return 0, b"fake failure"

    def cuModuleGetGlobal(self, module, name):  # noqa: N802
        if self.global_ptr is None or name != emu.STATE_SYMBOL.encode():
            return (self.CUresult.CUDA_ERROR_NOT_FOUND, 0, 0)
        return (0, self.global_ptr, len(self.memory[self.global_ptr]))

    def cuMemAlloc(self, nbytes):  # noqa: N802
        if self.fail_alloc_after is not None:
            if self.fail_alloc_after == 0:
                return (self.CUresult.CUDA_ERROR_OUT_OF_MEMORY, None)
            self.fail_alloc_after -= 1
        return (0, self._new(nbytes))

    def cuMemFree(self, ptr):  # noqa: N802
        self.freed.append(int(ptr))
        return (0,)

    def cuMemsetD32(self, ptr, value, count):  # noqa: N802
        buf, off = self._region(ptr)
        buf[off:off + 4 * count] = value.to_bytes(4, "little") * count
        return (0,)

    def cuMemsetD8Async(self, ptr, value, count, stream):  # noqa: N802
        buf, off = self._region(ptr)
        buf[off:off + count] = bytes([value]) * count
        return (0,)

    def cuMemcpyHtoD(self, dst, src_addr, nbytes):  # noqa: N802
        buf, off = self._region(dst)
        buf[off:off + nbytes] = ctypes.string_at(src_addr, nbytes)
        return (0,)

    def cuMemcpyDtoH(self, dst_addr, src, nbytes):  # noqa: N802
        buf, off = self._region(src)
        ctypes.memmove(dst_addr, bytes(buf[off:off + nbytes]), nbytes)
        return (0,)

    def cuStreamSynchronize(self, stream):  # noqa: N802
        return (0,)

    # -- what a kernel would do --
    def write(self, ptr: int, data: bytes) -> None:
        buf, off = self._region(ptr)
        buf[off:off + len(data)] = data

    def state(self) -> emu.EmuState:
        return emu.EmuState.from_buffer_copy(bytes(self.memory[self.global_ptr]))


@pytest.fixture
def fake(monkeypatch):
    drv = FakeDriver()
    monkeypatch.setattr(emu, "_driver", lambda: drv)
    monkeypatch.setattr(driver_module, "_driver", lambda: drv)
    return drv


MODULE = SimpleNamespace(module="fake-module")


def test_session_fills_state_global(fake):
    session = emu.EmulationSession(MODULE, ctas=3, capacity=16)
    state = fake.state()
    assert state.ctas == 3 and state.violation_capacity == 16
    tmem, _ = fake._region(state.tmem)
    assert len(tmem) == 3 * 128 * 512 * 4
    assert tmem[:4] == emu.TMEM_POISON.to_bytes(4, "little")
    meta, _ = fake._region(state.meta)
    assert len(meta) == 3 * ctypes.sizeof(emu.CtaMeta)
    session.close()
    assert sorted(fake.freed) == sorted([state.tmem, state.meta, state.violations, state.violation_count])


def test_reset_clears_bookkeeping_and_count(fake):
    session = emu.EmulationSession(MODULE, ctas=2)
    state = fake.state()
    fake.write(state.meta, b"\xff" * 64)
    fake.write(state.violation_count, (5).to_bytes(4, "little"))
    fake.write(fake.global_ptr, b"\0" * ctypes.sizeof(emu.EmuState))  # someone else's session
    session.reset(stream=7)
    assert fake.state().tmem == state.tmem
    meta, off = fake._region(state.meta)
    assert not any(meta)
    count, _ = fake._region(state.violation_count)
    assert count[:4] == b"\0\0\0\0"


def _record(code: int, op: int, block: int, warp: int, lane: int, site: int, d0: int, d1: int) -> bytes:
    return bytes(emu.ViolationRecord(code, op, block, warp, lane, site, d0, d1))


def test_collect_reads_records_and_live_allocations(fake):
    session = emu.EmulationSession(MODULE, ctas=2, capacity=4)
    state = fake.state()
    fake.write(state.violations, _record(1, 4, 1, 5, 3, 42, 7, 9) + _record(11, 6, 0, 0, 0, 77, 0x40, 0x4000))
    fake.write(state.violation_count, (2).to_bytes(4, "little"))
    meta = emu.CtaMeta()
    meta.used_chunks = 0b11
    meta.allocs[0] = emu.AllocRecord(64, 12, 2, 0)
    fake.write(state.meta + ctypes.sizeof(emu.CtaMeta), bytes(meta))  # CTA 1 still holds 64 columns
    violations = session.collect(stream=0)
    assert [v.name for v in violations] == ["lane-quarter", "desc-misaligned", "alloc-live-at-exit"]
    quarter = violations[0]
    assert (quarter.block, quarter.warp, quarter.lane, quarter.site, quarter.op) == (1, 5, 3, 42, "ld")
    assert str(quarter) == ("tcgen05 lane-quarter: ld at line 42, block 1 warp 5 lane 3: warp 5 may access "
                            "lanes 32..63 (warp % 4 = 1) but touched lane 7 column 9")
    live = violations[2]
    assert (live.block, live.warp, live.site, live.op) == (1, 2, 12, "exit")
    assert "64 columns" in live.detail
    assert "\n" not in str(violations[1])


def test_overflow_is_counted_and_raised(fake):
    session = emu.EmulationSession(MODULE, ctas=1, capacity=2)
    state = fake.state()
    fake.write(state.violations, _record(14, 4, 0, 0, 0, 5, 1, 2) * 2)
    fake.write(state.violation_count, (7).to_bytes(4, "little"))
    with pytest.raises(emu.EmulationViolations) as info:
        session.raise_if_violations()
    assert len(info.value.violations) == 2
    assert "7 tcgen05 conformance violation(s)" in str(info.value)
    assert "5 more not recorded" in str(info.value)
    assert info.value.code == 1


def test_clean_launch_raises_nothing(fake):
    session = emu.EmulationSession(MODULE, ctas=4)
    session.reset()
    session.raise_if_violations()
    assert session.collect() == []


def test_attach_without_emulator_global_returns_none(monkeypatch):
    drv = FakeDriver(global_size=0)
    monkeypatch.setattr(emu, "_driver", lambda: drv)
    monkeypatch.setattr(driver_module, "_driver", lambda: drv)
    assert emu.EmulationSession.attach(MODULE, ctas=1) is None


def test_state_size_mismatch_is_refused(monkeypatch):
    drv = FakeDriver(global_size=24)
    monkeypatch.setattr(emu, "_driver", lambda: drv)
    monkeypatch.setattr(driver_module, "_driver", lambda: drv)
    with pytest.raises(emu.FmhactlError, match="disagree"):
        emu.EmulationSession(MODULE, ctas=1)


def test_failed_allocation_frees_what_was_allocated(fake):
    fake.fail_alloc_after = 2
    with pytest.raises(CudaError, match="cuMemAlloc"):
        emu.EmulationSession(MODULE, ctas=1)
    assert len(fake.freed) == 2


@pytest.mark.parametrize("name", list(emu.ERROR_CODES))
def test_every_error_has_a_specific_description(name):
    for op in ("ld", "mma_ss", "dealloc", "alloc"):
        text = emu.describe(emu.ERROR_CODES[name], op, 1, 0x12, 0x4000)
        assert text and not text.startswith("details"), (name, op)


def test_bad_arguments():
    with pytest.raises(ValueError):
        emu.EmulationSession(MODULE, ctas=0)


def test_sessions_reuse_and_regrow_per_module(fake):
    sessions = emu.EmulationSessions(capacity=8)
    first = sessions.prepare(MODULE, (2, 1, 1), stream=0)
    assert sessions.prepare(MODULE, (1, 2, 1), stream=0) is first
    bigger = sessions.prepare(MODULE, (4, 2, 1), stream=0)
    assert bigger is not first and bigger.ctas == 8
    assert fake.state().ctas == 8
    sessions.finish(MODULE)
    state = fake.state()
    fake.write(state.violations, _record(14, 4, 0, 0, 0, 5, 1, 2))
    fake.write(state.violation_count, (1).to_bytes(4, "little"))
    with pytest.raises(emu.EmulationViolations, match="unwritten-read"):
        sessions.finish(MODULE)
    sessions.close()


def test_every_fast_error_code_has_a_wrong_kernel():
    """Pure Python, so it runs in CI (it used to sit under test_tc5_gpu.py's module-wide gpu mark).
    Strict-mode rules have theirs in tests/kernels/emu_rules (tests/tcgen05/test_emu_rules.py)."""
    from conformance_cases import CONFORMANCE_CASES

    assert set(CONFORMANCE_CASES) == set(emu.FAST_ERRORS)
    assert all(emu.ERROR_CODES[name] > 0 for name in CONFORMANCE_CASES)
