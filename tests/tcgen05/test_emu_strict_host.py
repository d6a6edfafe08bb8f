"""Host side of strict emulation, on the CPU: the exit checks read from Tc5StrictCta, the report
text (both operations named), and the --emulation switch reaching the build."""

from __future__ import annotations

import pytest

from fmhactl.build.compiler import BuildTarget, _options
from fmhactl.errors import BadInput
from fmhactl.registry import get_variant
from fmhactl.runtime import emulation as emu
from fmhactl.runtime import modes


def _trackers(n: int = 2):
    return (emu.StrictCta * n)()


def test_clean_trackers_report_nothing():
    assert emu.in_flight_at_exit(_trackers()) == []


def test_unobserved_tma_load_is_reported_once_per_cta():
    t = _trackers()
    t[1].tx[0] = emu.StrictTx(0x9000, 0, 170, 5)       # expect-tx entry: no destination
    t[1].tx[1] = emu.StrictTx(0x9000, 0x400, 171, 5)   # the load
    t[1].tx[2] = emu.StrictTx(0x9000, 0x4400, 171, 5)
    out = emu.in_flight_at_exit(t)
    assert [(v.name, v.block, v.warp, v.site, v.op, v.other_op) for v in out] == [
        ("tma-in-flight-at-exit", 1, 5, 171, "tma_load", "exit")]
    assert "SMEM 0x400" in out[0].detail and "0x9000" in out[0].detail
    assert str(out[0]).endswith("other operation: exit")


def test_uncommitted_and_unobserved_mmas():
    t = _trackers()
    # CTA 0: two MMAs, no commit at all.
    t[0].mma_issued = 2
    t[0].mma[0] = emu.StrictMma(site=120, warp=4, seq=0)
    # CTA 1: three MMAs committed to mbarrier 0x8008 (line 130), nobody waited: none ran.
    t[1].mma_issued = 3
    t[1].mma[0] = emu.StrictMma(site=125, warp=4, seq=0, flags=emu.MMA_TS)
    t[1].commit_issued = 1
    t[1].commits[0] = emu.StrictCommit(0x8008, 3, 130, 4)
    out = emu.in_flight_at_exit(t)
    assert [(v.name, v.block, v.site, v.op) for v in out] == [
        ("mma-uncommitted", 0, 120, "mma_ss"), ("mma-in-flight-at-exit", 1, 125, "mma_ts")]
    assert (out[1].other_op, out[1].other_site, out[1].other_warp) == ("commit", 130, 4)
    assert "other operation: commit at line 130 (warp 4)" in str(out[1])


def test_pending_ld_st_at_exit():
    t = _trackers(1)
    t[0].warps[2].pending_ld_site = 200
    t[0].warps[3].pending_st_site = 210
    out = emu.in_flight_at_exit(t)
    assert [(v.name, v.warp, v.site) for v in out] == [("ld-not-waited", 2, 200), ("st-not-waited", 3, 210)]


def test_record_with_second_operation_and_holder_block():
    rec = emu.ViolationRecord(emu.ERROR_CODES["alloc-timeout"], emu.OP_CODES["alloc"], 3, 1, 0, 77, 32, 0xFFFF,
                              emu.OP_CODES["alloc"], 48, 2, 0)
    v = emu.Violation.from_record(rec)
    assert v.name == "alloc-timeout" and v.other_op == "alloc" and v.other_site == 48
    assert str(v).endswith("other operation: alloc at line 48 (block 2)")
    rec = emu.ViolationRecord(emu.ERROR_CODES["tmem-busy"], emu.OP_CODES["ld"], 0, 1, 0, 90, 0, 32,
                              emu.OP_CODES["mma_ss"], 60, 4, 0)
    assert str(emu.Violation.from_record(rec)).endswith("other operation: mma_ss at line 60 (warp 4)")


def test_strict_and_fast_errors_partition_the_codes():
    assert emu.FAST_ERRORS | emu.STRICT_ERRORS == set(emu.ERROR_CODES)
    assert not emu.FAST_ERRORS & emu.STRICT_ERRORS
    assert "tma-in-flight-at-exit" in emu.STRICT_ERRORS and "lane-quarter" in emu.FAST_ERRORS


def test_emulation_switch_reaches_the_build(monkeypatch):
    variant = get_variant("sm100_tma_s2_tmem")
    monkeypatch.delenv(modes.EMULATION_ENV, raising=False)
    target, mode = modes.plan(variant, (9, 0))
    assert mode == modes.EMULATED and target.strict and target.label == "sm_90a+emu-strict"
    assert "-DFMHACTL_TC5_STRICT=1" in _options(variant, target)
    monkeypatch.setenv(modes.EMULATION_ENV, "fast")
    target, _ = modes.plan(variant, (9, 0))
    assert not target.strict and target.label == "sm_90a+emu"
    assert not any("STRICT" in o for o in _options(variant, target))
    assert not BuildTarget("sm_100a").strict  # native builds never carry the emulator
    monkeypatch.setenv(modes.EMULATION_ENV, "sloppy")
    with pytest.raises(BadInput):
        modes.plan(variant, (9, 0))
