"""Strict PTX path: non-bulk cp.async copies (global -> shared) are tracked through their groups.

Per the PTX ISA (cp.async.commit_group / wait_group / wait_all) a thread's copies complete only
once a wait of that thread retires their group. The rewriter calls tc5ptx_cp_async before each
`cp.async.ca/cg` (destination and cp-size), tc5ptx_cp_async_commit after each commit_group,
tc5ptx_cp_async_wait after each wait_group / wait_all and tc5ptx_cp_async_arrive after each
cp.async.mbarrier.arrive; an MMA that reads bytes of a copy no wait retired is cp-async-not-waited.
The rule's device logic is shared with the tc5:: build (common/cp_async.cuh calls the same
tc5_strict_cp_* hooks), whose broken and correct kernels run on a GPU in
tests/tcgen05/test_emu_rules.py; these tests (CPU) check which lines get which call and that the
calls assemble and link.
"""

from __future__ import annotations

import pytest

from fmhactl.plans.tcgen05_abi import ERROR_CODES, OP_CODES, PTX_PATH_ERRORS, STRICT_CP_GROUPS, STRICT_WARPS
from fmhactl.ptx.strict_hooks import (BULK_COMMIT, BULK_WAIT, CP_ASYNC, CP_ASYNC_ARRIVE, CP_ASYNC_COMMIT,
                                      CP_ASYNC_WAIT, hooks_of)
from fmhactl.runtime import emulation as emu
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
    assert "cp-async-not-waited" in emu.STRICT_ERRORS and "cp-async-not-waited" not in PTX_PATH_ERRORS
    cta = emu.StrictCta()
    assert len(cta.cp) == STRICT_WARPS and len(cta.cp[0].group_lo) == STRICT_CP_GROUPS


def test_report_names_the_copy_and_its_warp():
    rec = emu.ViolationRecord(ERROR_CODES["cp-async-not-waited"], OP_CODES["mma_ss"], 0, 0, 0, 120,
                              0x1000, 0x1400, OP_CODES["cp_async"], 98, 1, 0)
    text = str(emu.Violation.from_record(rec))
    assert text.startswith("tcgen05 cp-async-not-waited: mma_ss at line 120, block 0 warp 0")
    assert "0x1000..0x1400" in text and text.endswith("other operation: cp_async at line 98 (warp 1)")
