"""Rewrite + NVRTC emulator + nvJitLink for sm_90a: no GPU needed (CI runs these)."""

from __future__ import annotations

import re

import pytest

from fmhactl.ptx import forms, linker, parser, rewriter

HEADER = ".version 9.0\n.target sm_100a\n.address_size 64\n.file 1 \"k.cu\"\n"
REGS = ".reg .b32 %r<200>;\n.reg .b64 %rd<10>;\n.reg .pred %p<3>;\n.reg .b16 %rs<3>;\n.reg .f32 %f<5>;\n"


def kernel(body: list[str]) -> str:
    lines = [HEADER, ".visible .entry k(.param .u64 out)\n.maxntid 128, 1, 1\n{\n", REGS]
    for index, text in enumerate(body):
        lines.append(f"\t.loc 1 {100 + index} 1\n\t{text}\n")
    lines.append("\tret;\n}\n")
    return "".join(lines)


def strict_build(body: list[str], name: str) -> tuple[linker.PtxBuild, list[int]]:
    """kernel(body) rewritten strict and linked, with the line number each body line has in it."""
    text = kernel(body)
    module = parser.parse(text)
    numbers = [next(n for n, line in enumerate(module.lines, 1) if line.strip() == line_text) for line_text in body]
    return linker.build(text, name, optimize=0, strict=True), numbers


def rewritten_block(built: linker.PtxBuild, original: int) -> list[str]:
    """The rewritten lines that came from original line `original`, in order."""
    lines = built.rewritten.text.splitlines()
    return [lines[n - 1].strip() for n, o in sorted(built.rewritten.line_map.items()) if o == original]


EMULATED = [f for f in forms.FORMS if f.status == "emulated"]


def _no_tcgen05_left(text: str) -> None:
    code = [line for line in text.splitlines() if not line.strip().startswith(("//", ".file"))]
    assert not [line for line in code if "tcgen05." in line]


def test_every_emulated_form_rewrites_and_links():
    body = [f.example() for f in EMULATED] + ["@%p1 tcgen05.wait::st.sync.aligned;",
                                              "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3+32];",
                                              "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 64;"]
    built = linker.build(kernel(body), "all-forms.ptx", optimize=0)
    assert built.cubin[:4] == b"\x7fELF"
    assert built.rewritten.replaced == len(body)
    _no_tcgen05_left(built.rewritten.text)
    assert re.search(r"^\.target sm_90a$", built.rewritten.text, re.MULTILINE)
    called = set(built.rewritten.functions)
    for f in EMULATED:  # ld/st entry points carry the half-split immediate of 16x32bx2 as _i<imm>
        assert f.entry in called or f"{f.entry}_i4" in called, f.name
    # the half-split immediate picks the entry point; offsets and 64-bit addresses are converted
    assert "tc5ptx_ld_16x32bx2_x1_i4" in built.rewritten.functions
    assert "add.u32 %tc5t0, %r3, 32;" in built.rewritten.text
    assert "cvt.u32.u64 %tc5t0, %rd1;" in built.rewritten.text
    assert "@!%p1 bra $tc5ptx_skip0;" in built.rewritten.text


def test_line_map_points_back_at_the_original_instruction():
    text = kernel(["tcgen05.wait::ld.sync.aligned;"])
    module = parser.parse(text)
    built = linker.build(text, "one.ptx", optimize=0)
    call = next(i for i, line in enumerate(built.rewritten.text.splitlines(), 1) if "call.uni tc5ptx_wait_ld" in line)
    assert built.rewritten.line_map[call] == module.instructions[0].ptx_line


@pytest.mark.parametrize("name", [f.name for f in forms.FORMS if f.status == "rejected"])
def test_rejected_form_fails_the_build_with_its_rule_and_lines(name):
    form = forms.FORMS_BY_NAME[name]
    with pytest.raises(rewriter.PtxRejected) as info:
        linker.build(kernel(["tcgen05.wait::ld.sync.aligned;", form.example()]), "bad.ptx", optimize=0)
    message = str(info.value)
    assert form.rule in message and "PTX line" in message and "source k.cu:101" in message
    assert info.value.code == 1


def test_sm90_lacking_instruction_is_named_with_its_lines():
    # valid sm_100a PTX (packed f32x2 arithmetic) that sm_90a lacks: a link failure, not bad input
    text = kernel(["tcgen05.wait::ld.sync.aligned;", "add.rn.f32x2 %rd1, %rd2, %rd3;"])
    assert linker.input_errors(text, parser.parse(text)) == ""
    with pytest.raises(linker.LinkFailed) as info:
        linker.build(text, "bad2.ptx", optimize=0)
    assert "ptx-not-sm90" in str(info.value) and "k.cu:101" in str(info.value)


def test_register_limit_follows_the_launch_bounds():
    module = parser.parse(HEADER + ".visible .entry a()\n.maxntid 192, 1, 1\n.minnctapersm 2\n{\nret;\n}\n"
                          ".visible .entry b()\n.maxnreg 200\n{\nret;\n}\n")
    assert linker.register_limit(module) == 168
