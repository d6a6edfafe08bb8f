"""A kernel written with raw inline tcgen05 PTX (no tc5::) runs through the PTX path and verifies."""

from __future__ import annotations

import pytest

from fmhactl.ptx import parser
from fmhactl.ptx.build import cu_ptx
from tests.ptx import raw_kernel


def test_raw_kernel_uses_only_emulated_forms_and_links(tmp_path):
    module = parser.parse(cu_ptx(raw_kernel.SOURCE), "raw_attn.cu")
    names = {i.form.name for i in module.instructions if i.form}
    assert {"alloc", "mma.f16.ss", "commit.shared::cluster", "ld.32x32b.x32", "wait.ld", "dealloc"} <= names
    assert all(parser.rule_of(i) is None for i in module.instructions)
    assert raw_kernel.build_cubin(tmp_path).read_bytes()[:4] == b"\x7fELF"


@pytest.mark.gpu
@pytest.mark.parametrize("strict", [False, True], ids=["fast", "strict"])
def test_raw_kernel_verifies_on_hopper(tmp_path, strict):
    result = raw_kernel.run(raw_kernel.build_cubin(tmp_path, strict=strict))
    assert result.violations == []
    assert result.max_abs_error <= 2e-2, result.max_abs_error


def _without_ld_waits() -> str:
    text = cu_ptx(raw_kernel.SOURCE)
    kept = [line for line in text.splitlines() if not line.strip().startswith("tcgen05.wait::ld")]
    assert len(kept) < len(text.splitlines())
    return "\n".join(kept) + "\n"


@pytest.mark.gpu
def test_dropped_wait_ld_is_caught_by_strict_only(tmp_path):
    """The raw kernel with its tcgen05.wait::ld removed: fast semantics complete an ld at issue and
    pass it; strict keeps the ld pending and names it (ld-not-waited)."""
    text = _without_ld_waits()
    fast = raw_kernel.run(raw_kernel.build_cubin(tmp_path, text))
    assert fast.ok, (fast.max_abs_error, fast.violations)  # fast semantics cannot see it
    strict = raw_kernel.run(raw_kernel.build_cubin(tmp_path, text, strict=True))
    assert any(v.name == "ld-not-waited" for v in strict.violations), strict.violations


@pytest.mark.gpu
def test_accumulate_fault_in_the_raw_kernel_is_caught(tmp_path):
    """A fault in the raw kernel (the first MMA's enable-input-d forced on: D accumulates onto
    unwritten TMEM) is reported by rule, not passed."""
    text = cu_ptx(raw_kernel.SOURCE)
    module = parser.parse(text)
    first_mma = next(i for i in module.instructions if i.form and i.form.family == "mma")
    lines = text.splitlines()
    pred = first_mma.operands[-1]
    setp = max(i for i in range(first_mma.ptx_line - 1) if lines[i].strip().startswith(f"setp.ne.b32 {pred},"))
    lines[setp] = f"setp.eq.b32 {pred}, 0, 0;"  # enable-input-d always true
    result = raw_kernel.run(raw_kernel.build_cubin(tmp_path, "\n".join(lines) + "\n"))
    assert any(v.name == "unwritten-read" for v in result.violations), result.violations
