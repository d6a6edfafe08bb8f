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
def test_raw_kernel_verifies_on_hopper(tmp_path):
    result = raw_kernel.run(raw_kernel.build_cubin(tmp_path))
    assert result.violations == []
    assert result.max_abs_error <= 2e-2, result.max_abs_error


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
