"""Strict PTX path (--emulate native --emulation strict): the hooks added around mbarrier, TMA and
proxy-fence lines, and a strict rewrite + link of every emulated form (no GPU: CI runs these)."""

from __future__ import annotations

import re

import pytest

from fmhactl.ptx import forms, linker
from fmhactl.ptx.strict_hooks import hooks_of
from tests.ptx.test_rewrite_link import EMULATED, _no_tcgen05_left, kernel


def entries(line: str) -> tuple[list[tuple[str, tuple[str, ...]]], list[tuple[str, tuple[str, ...]]]]:
    hooked = hooks_of(line, 7)
    assert hooked is not None, line
    return [(c.entry, c.args) for c in hooked.before], [(c.entry, c.args) for c in hooked.after]


@pytest.mark.parametrize("line, before, after", [
    ("\tmbarrier.init.shared::cta.b64 [%r5], 1;", [], [("tc5ptx_mbar_init", ("[%r5]", "1", "7"))]),
    ("mbarrier.arrive.release.cta.shared::cta.b64 _, [%r9];", [("tc5ptx_mbar_arrive", ("[%r9]", "0", "7"))], []),
    ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r9], %r4;",
     [("tc5ptx_mbar_arrive", ("[%r9]", "%r4", "7"))], []),
    ("mbarrier.arrive_drop.shared::cta.b64 %rd3, [%r9+8];", [("tc5ptx_mbar_arrive", ("[%r9+8]", "0", "7"))], []),
    ("mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%r308], %r309;",
     [("tc5ptx_mbar_poll", ("[%r308]", "7"))], [("tc5ptx_mbar_observed", ("[%r308]", "?p", "7"))]),
    ("mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r3], 0;",
     [("tc5ptx_mbar_poll", ("[%r3]", "7"))], [("tc5ptx_mbar_observed", ("[%r3]", "?%p2", "7"))]),
    ("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%r100], "
     "[%rd11, {%r101, %r4, %r6, %r7}], [%r92];", [("tc5ptx_tma_load", ("[%r100]", "[%r92]", "7"))], []),
    ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 4096, [%r3];",
     [("tc5ptx_tma_load", ("[%r1]", "[%r3]", "7"))], []),
    ("fence.proxy.async.shared::cta;", [], [("tc5ptx_fence_proxy_async", ("7",))]),
])
def test_each_synchronising_line_gets_the_strict_emulators_hooks(line, before, after):
    assert entries(line) == (before, after)


@pytest.mark.parametrize("line", [
    "fence.mbarrier_init.release.cluster;",        # orders the init: nothing to track
    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 64;",  # no arrive
    "// mbarrier.arrive.shared::cta.b64 _, [%r1];",
    "add.s32 %r1, %r2, 1;",
    "tcgen05.wait::ld.sync.aligned;",
])
def test_other_lines_get_no_hook(line):
    assert hooks_of(line, 3) is None


def test_label_and_predicate_are_kept():
    hooked = hooks_of("$L__BB0_3: @!%p4 mbarrier.arrive.shared::cta.b64 _, [%r1];", 5)
    assert hooked is not None and hooked.label == "$L__BB0_3" and hooked.predicate == "!%p4"
    generic = hooks_of("mbarrier.try_wait.parity.b64 %p1, [%rd4], %r2;", 5)
    assert generic is not None and generic.generic


SYNC_LINES = ["mbarrier.init.shared::cta.b64 [%r10], 1;",
              "$L__W: mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r10], 128;",
              "@%p1 mbarrier.arrive.release.cta.shared::cta.b64 _, [%r10+8];",
              "mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r10], %r11;",
              "mbarrier.try_wait.parity.b64 %p2, [%rd3], %r11;",
              "fence.proxy.async.shared::cta;"]


@pytest.fixture(scope="module")
def strict_build():
    body = [f.example() for f in EMULATED] + SYNC_LINES
    return linker.build(kernel(body), "all-forms-strict.ptx", optimize=0, strict=True), len(EMULATED)


def test_every_emulated_form_rewrites_and_links_for_the_strict_emulator(strict_build):
    built, count = strict_build
    assert built.cubin[:4] == b"\x7fELF"
    assert built.rewritten.replaced == count
    _no_tcgen05_left(built.rewritten.text)
    # the strict emulator is linked in (the host tells strict modules by this symbol)
    assert re.search(r"^\.visible \.global \.align 4 \.u32 tc5_emu_strict", built.emulator_ptx, re.MULTILINE)
    called = set(built.rewritten.functions)
    for f in EMULATED:
        assert f.entry in called or f"{f.entry}_i4" in called, f.name
    assert {"tc5ptx_mbar_init", "tc5ptx_mbar_arrive", "tc5ptx_mbar_poll", "tc5ptx_mbar_observed",
            "tc5ptx_fence_proxy_async"} <= called
    # strict MMAs wait for their mbarrier: no drain at convergence points
    assert "tc5ptx_drain" not in called


def test_strict_hooks_sit_around_the_line_as_written(strict_build):
    text = [line.strip() for line in strict_build[0].rewritten.text.splitlines()]
    wait = text.index("mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r10], %r11;")
    before, after = "\n".join(text[wait - 8:wait]), "\n".join(text[wait + 1:wait + 14])
    assert "call tc5ptx_mbar_poll" in before and "call tc5ptx_mbar_observed" in after
    assert "selp.u32 %tc5t0, 1, 0, %p2;" in after
    # a predicated arrive: its hook is skipped with it; a labelled one keeps the label first
    assert "@!%p1 bra $tc5ptx_hook" in "\n".join(text)
    label = text.index("$L__W:")
    assert "tc5ptx_mbar_arrive" in "\n".join(text[label:label + 12])
    # generic address of a wait without .shared: converted to the shared window
    assert any(line.startswith("cvta.to.shared.u64") for line in text)


def test_fast_build_has_no_strict_hooks():
    built = linker.build(kernel([forms.FORMS_BY_NAME["mma.f16.ss"].example(), *SYNC_LINES]), "fast.ptx", optimize=0)
    assert not [f for f in built.rewritten.functions if f.startswith("tc5ptx_mbar")]
    assert "tc5_emu_strict" not in built.emulator_ptx
