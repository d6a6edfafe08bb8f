"""Strict PTX path: non-bulk cp.async copies (global -> shared) are tracked through their groups.

Per the PTX ISA (cp.async.commit_group / wait_group / wait_all) a thread's copies complete only
once a wait of that thread retires their group. The rewriter calls tc5ptx_cp_async before each
`cp.async.ca/cg` (destination and cp-size), tc5ptx_cp_async_commit after each commit_group,
tc5ptx_cp_async_wait after each wait_group / wait_all and tc5ptx_cp_async_arrive after each
cp.async.mbarrier.arrive; an MMA that reads bytes of a copy no wait retired is cp-async-not-waited,
and copies no wait retired when the CTA exits are cp-async-pending-at-exit (host check).
The rule's device logic is shared with the tc5:: build (common/cp_async.cuh calls the same
tc5_strict_cp_* hooks), whose broken and correct kernels run on a GPU in
tests/tcgen05/test_emu_rules.py. Here: which lines get which call, that the calls assemble and
link, the exit check on the host (CPU), and on a GPU the raw-PTX attention tile with K gathered by
cp.async (tests/ptx/kernels/raw_attn_cp_async.cu), its wait kept, moved or dropped:
    pytest -q tests/ptx/test_cp_async_groups.py -m gpu -p no:cacheprovider
"""

from __future__ import annotations

import pytest

from fmhactl.plans.tcgen05_abi import ERROR_CODES, OP_CODES, PTX_PATH_ERRORS, STRICT_CP_GROUPS, STRICT_WARPS
from fmhactl.ptx import linker
from fmhactl.ptx.build import cu_ptx
from fmhactl.ptx.strict_hooks import (BULK_COMMIT, BULK_WAIT, CP_ASYNC, CP_ASYNC_ARRIVE, CP_ASYNC_COMMIT,
                                      CP_ASYNC_WAIT, hooks_of)
from fmhactl.runtime import emulation as emu
from tests.ptx import raw_kernel
from tests.ptx.test_rewrite_link import rewritten_block, strict_build

CP_ENTRIES = {CP_ASYNC, CP_ASYNC_COMMIT, CP_ASYNC_WAIT, CP_ASYNC_ARRIVE}


def calls(line: str, site: int = 7) -> tuple[list, list]:
    hooked = hooks_of(line, site)
    assert hooked is not None, line
    return [(c.entry, c.args) for c in hooked.before], [(c.entry, c.args) for c in hooked.after]


@pytest.mark.parametrize("line, dst, size", [
    ("cp.async.ca.shared.global [%r1], [%rd2], 4;", "[%r1]", "4"),
    ("cp.async.cg.shared.global [%r1+256], [%rd2], 16;", "[%r1+256]", "16"),
    ("cp.async.cg.shared::cta.global.L2::128B [%r3], [%rd4], 16, %r5;", "[%r3]", "16"),   # src-size: zero fill
    ("cp.async.ca.shared.global.L2::cache_hint [%r3], [%rd4], 8, %rd5;", "[%r3]", "8"),
    ("cp.async.ca.shared.global [%r6], [%rd4], 16, %p1;", "[%r6]", "16"),                 # ignore-src
    ("cp.async.cg.shared.global [tile], [%rd4], 16;", "[tile]", "16"),                    # a .shared symbol
])
def test_each_copy_is_tracked_before_it_issues(line, dst, size):
    assert calls(line) == ([(CP_ASYNC, (dst, size, "7"))], [])


@pytest.mark.parametrize("line, after", [
    ("cp.async.commit_group;", [(CP_ASYNC_COMMIT, ("7",))]),
    ("cp.async.wait_group 2;", [(CP_ASYNC_WAIT, ("2", "0", "7"))]),
    ("cp.async.wait_all;", [(CP_ASYNC_WAIT, ("0", "1", "7"))]),
    ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r9];", [(CP_ASYNC_ARRIVE, ("7",))]),
    ("cp.async.mbarrier.arrive.b64 [%rd3];", [(CP_ASYNC_ARRIVE, ("7",))]),
])
def test_groups_and_waits_are_hooked_after_the_line(line, after):
    assert calls(line) == ([], after)


@pytest.mark.parametrize("line", [
    # bulk copies are the TMA's (mbarrier or bulk async-group), not cp.async groups
    "cp.async.bulk.commit_group;",
    "cp.async.bulk.wait_group.read 0;",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 4096, [%r3];",
    "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [%r3];",
    "cp.async.bulk.prefetch.L2.global [%rd1], 4096;",
])
def test_bulk_copies_are_not_cp_async_groups(line):
    hooked = hooks_of(line, 3)
    assert hooked is None or not {c.entry for c in (*hooked.before, *hooked.after)} & CP_ENTRIES


def test_label_and_predicate_are_kept():
    hooked = hooks_of("$L__BB0_4: @!%p2 cp.async.wait_group 1;", 5)
    assert hooked is not None and hooked.label == "$L__BB0_4" and hooked.predicate == "!%p2"
    assert [(c.entry, c.args) for c in hooked.after] == [(CP_ASYNC_WAIT, ("1", "0", "5"))]


BODY = [
    "cp.async.cg.shared.global [%r1], [%rd2], 16;",
    "cp.async.ca.shared.global [%r1+16], [%rd2], 8, %r5;",
    "cp.async.commit_group;",
    "@%p1 cp.async.wait_group 1;",
    "cp.async.wait_all;",
    "cp.async.mbarrier.arrive.noinc.shared.b64 [%r9];",
]


@pytest.fixture(scope="module")
def strict_cp() -> tuple:
    return strict_build(BODY, "cp-async-strict.ptx")


def test_cp_async_hooks_assemble_and_link_for_sm90(strict_cp):
    built, _ = strict_cp
    assert built.cubin[:4] == b"\x7fELF"
    assert CP_ENTRIES <= set(built.rewritten.functions)
    assert not {BULK_COMMIT, BULK_WAIT} & set(built.rewritten.functions)


def test_copies_are_tracked_before_and_groups_after(strict_cp):
    built, numbers = strict_cp
    copy = rewritten_block(built, numbers[0])
    call = next(i for i, text in enumerate(copy) if text.startswith(f"call {CP_ASYNC},"))
    assert call < copy.index(BODY[0])  # the range is recorded before the copy can land
    wait = rewritten_block(built, numbers[3])
    # a predicated wait: its hook is skipped with it
    assert wait.index("@%p1 cp.async.wait_group 1;") < next(i for i, t in enumerate(wait) if t.startswith("@!%p1 bra"))
    assert any(t.startswith(f"call {CP_ASYNC_WAIT},") for t in wait)


def test_rule_is_declared_once_and_run_by_both_paths():
    assert ERROR_CODES["cp-async-not-waited"] == 34 and OP_CODES["cp_async"] == 22
    assert ERROR_CODES["cp-async-pending-at-exit"] == 35
    for name in ("cp-async-not-waited", "cp-async-pending-at-exit"):
        assert name in emu.STRICT_ERRORS and name not in PTX_PATH_ERRORS
    cta = emu.StrictCta()
    assert len(cta.cp) == STRICT_WARPS and len(cta.cp[0].group_lo) == STRICT_CP_GROUPS


def test_report_names_the_copy_and_its_warp():
    rec = emu.ViolationRecord(ERROR_CODES["cp-async-not-waited"], OP_CODES["mma_ss"], 0, 0, 0, 120,
                              0x1000, 0x1400, OP_CODES["cp_async"], 98, 1, 0)
    text = str(emu.Violation.from_record(rec))
    assert text.startswith("tcgen05 cp-async-not-waited: mma_ss at line 120, block 0 warp 0")
    assert "0x1000..0x1400" in text and text.endswith("other operation: cp_async at line 98 (warp 1)")


# ---- host side: the exit check ----------------------------------------------------------------------------------
def _tracked(cta, warp: int, groups: list[tuple[int, int, int]], retired: int, open_span=(0, 0, 0)) -> None:
    """Warp `warp` of `cta` committed `groups` ((lo, hi, site) each, oldest first) and retired the first
    `retired`; `open_span`: copies not committed yet."""
    w = cta.cp[warp]
    for g, (lo, hi, site) in enumerate(groups):
        i = g % STRICT_CP_GROUPS
        w.group_lo[i], w.group_hi[i], w.group_site[i] = lo, hi, site
    w.commits, w.retired = len(groups), retired
    w.open_lo, w.open_hi, w.open_site = open_span


def test_unretired_copies_at_exit_are_named_by_their_first_line():
    trackers = (emu.StrictCta * 2)()
    _tracked(trackers[1], 3, [(0x400, 0x800, 60), (0x800, 0xC00, 61), (0xC00, 0xC00, 62)], retired=1)
    out = emu.in_flight_at_exit(trackers)
    # one report per CTA: the warp's oldest unretired group with copies (the empty newest one is nothing)
    assert [(v.name, v.block, v.warp, v.site, v.op, v.other_op) for v in out] == [
        ("cp-async-pending-at-exit", 1, 3, 61, "cp_async", "exit")]
    assert "SMEM from 0x800 (committed, 2 commit_group(s) ago)" in out[0].detail
    _tracked(trackers[1], 3, [], retired=0, open_span=(0x1000, 0x1010, 70))
    assert "0x1000 (never committed)" in emu.in_flight_at_exit(trackers)[0].detail


@pytest.mark.parametrize("groups, retired", [
    ([(0x400, 0x800, 60)], 1),                       # waited
    ([(0x400, 0x800, 60), (0x800, 0x800, 61)], 1),   # the group left pending is empty
    ([], 0),                                         # no copies at all
])
def test_retired_or_empty_groups_are_not_pending(groups, retired):
    trackers = (emu.StrictCta * 1)()
    _tracked(trackers[0], 2, groups, retired)
    assert emu.in_flight_at_exit(trackers) == []


def test_counters_past_2_to_32_wrap():
    trackers = (emu.StrictCta * 1)()
    w = trackers[0].cp[0]
    w.commits, w.retired = 1, 0xFFFFFFFF  # two groups: commit 0xffffffff (slot 3) and commit 0 (slot 0)
    w.group_lo[3], w.group_hi[3], w.group_site[3] = 0x100, 0x200, 44
    assert [v.site for v in emu.in_flight_at_exit(trackers)] == [44]


# ---- on a GPU: the raw attention tile with K gathered by cp.async (PTX path, strict) ------------------------------
CP_SOURCE = raw_kernel.SOURCE.with_name("raw_attn_cp_async.cu")
WAIT = "cp.async.wait_group 0;"


def cp_ptx(*replacement: str) -> str:
    """raw_attn_cp_async.cu's PTX with its one `cp.async.wait_group 0;` replaced by `replacement`."""
    lines = cu_ptx(CP_SOURCE).splitlines()
    at = [i for i, line in enumerate(lines) if line.strip() == WAIT]
    assert len(at) == 1, at
    lines[at[0]:at[0] + 1] = [f"\t{line}" for line in replacement]
    return "\n".join(lines) + "\n"


def test_cp_async_k_kernel_is_hooked_and_links():
    text = cu_ptx(CP_SOURCE)
    stripped = [line.strip() for line in text.splitlines()]
    assert sum(line.startswith("cp.async.cg.shared.global") for line in stripped) >= 1
    assert stripped.count("cp.async.commit_group;") == 1 and stripped.count(WAIT) == 1
    built = linker.build(text, CP_SOURCE.name, strict=True, optimize=0)
    assert built.cubin[:4] == b"\x7fELF"
    assert {CP_ASYNC, CP_ASYNC_COMMIT, CP_ASYNC_WAIT} <= set(built.rewritten.functions)


@pytest.mark.gpu
@pytest.mark.parametrize("wait", [(WAIT,), ("cp.async.commit_group;", "cp.async.wait_group 1;"),
                                  ("cp.async.wait_all;",)], ids=["wait-group-0", "newer-empty-group", "wait-all"])
def test_waited_k_gather_verifies(tmp_path, wait):
    result = raw_kernel.run(raw_kernel.build_cubin(tmp_path, cp_ptx(*wait), strict=True))
    assert result.violations == [], "\n".join(map(str, result.violations))
    assert result.max_abs_error <= 2e-2, result.max_abs_error


@pytest.mark.gpu
@pytest.mark.parametrize("wait", [(), ("cp.async.wait_group 1;",)], ids=["dropped", "k-group-newest"])
def test_unretired_k_gather_is_named(tmp_path, wait):
    text = cp_ptx(*wait)
    result = raw_kernel.run(raw_kernel.build_cubin(tmp_path, text, strict=True))
    report = "\n".join(map(str, result.violations))
    lines = text.splitlines()
    raced = [v for v in result.violations if v.name == "cp-async-not-waited"]
    assert raced and raced[0].op == "mma_ss" and raced[0].other_op == "cp_async", report
    assert lines[raced[0].site - 1].strip().startswith("tcgen05.mma"), report
    assert lines[raced[0].other_site - 1].strip().startswith("cp.async.cg.shared.global"), report
    left = [v for v in result.violations if v.name == "cp-async-pending-at-exit"]
    assert left and lines[left[0].site - 1].strip().startswith("cp.async.cg.shared.global"), report
