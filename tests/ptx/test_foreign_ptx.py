"""PTX the project did not write (a user's raw-PTX kernel, CuTeDSL/Triton/CUTLASS output): the
spellings those generators use rewrite and link, and every input the PTX path cannot run is a named
error -- exit 2 with one line for bad input, exit 1 naming the instruction, its PTX line and its
`.loc` source line for a form it does not emulate -- never a wrong answer."""

from __future__ import annotations

import pytest
from fmhactl.ptx import forms, linker, parser
from tests.ptx.test_cli import error_line as one_error_line
from tests.ptx.test_cli import invoke

HEAD = ".version 8.7\n.target sm_100a\n.address_size 64\n"

# CUTLASS's UMMA/copy atoms and Triton's tcgen05 lowering, as they appear in the PTX they emit:
# a predicate declared in the asm's own scope for enable-input-d, 32-bit shared addresses, the
# 16x32bx2 shape with its half-split immediate, a multicast commit.
GENERATED_STYLE = HEAD + """
.visible .entry umma_like(
\t.param .u64 umma_like_param_0
)
.maxntid 128, 1, 1
{
\t.reg .pred \t%p<3>;
\t.reg .b32 \t%r<80>;
\t.reg .b64 \t%rd<8>;
\t.loc\t1 30 5
\tmov.u32 \t%r1, 0;
\tmov.u32 \t%r2, 128;
\t// begin inline asm
\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], %r2;
\t// end inline asm
\t// begin inline asm
\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
\t// end inline asm
\tld.shared.u32 \t%r3, [%r1];
\tmov.b64 \t%rd2, 0;
\tmov.b64 \t%rd3, 0;
\tmov.u32 \t%r4, 135268624;
\tmov.u32 \t%r5, 0;
\t.loc\t1 41 7
\t// begin inline asm
\t{
\t.reg .pred p;
\tsetp.ne.b32 p, %r5, 0;
\ttcgen05.mma.cta_group::1.kind::f16 [%r3], %rd2, %rd3, %r4, p; 
\t}
\t// end inline asm
\t// begin inline asm
\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%r1], %rs1;
\t// end inline asm
\t// begin inline asm
\ttcgen05.ld.sync.aligned.16x32bx2.x4.b32 {%r10, %r11, %r12, %r13}, [%r3], 16;
\t// end inline asm
\t// begin inline asm
\ttcgen05.wait::ld.sync.aligned;
\t// end inline asm
\t// begin inline asm
\ttcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32 [%r3], {%r10, %r11};
\t// end inline asm
\ttcgen05.wait::st.sync.aligned;
\ttcgen05.fence::before_thread_sync;
\tbar.sync \t0;
\ttcgen05.fence::after_thread_sync;
\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, %r2;
\tret;
}
\t.file\t1 "kernel.py"
"""


def test_generator_style_ptx_scans_rewrites_and_links(tmp_path):
    text = GENERATED_STYLE.replace("%rs1", "%r6")  # the multicast mask register
    module = parser.parse(text, "umma_like.ptx")
    assert [parser.rule_of(i) for i in module.instructions] == [None] * len(module.instructions) == [None] * 11
    built = linker.build(text, "umma_like.ptx", optimize=0)
    assert built.cubin[:4] == b"\x7fELF" and built.rewritten.replaced == 11
    path = tmp_path / "umma_like.ptx"
    path.write_text(text)
    result = invoke("ptx", "scan", str(path))
    assert result.exit_code == 0, result.output
    assert "mma.f16.ss" in result.stdout and "16x32bx2" in result.stdout and "kernel.py:41" in result.stdout


@pytest.mark.parametrize("opcode, operands, form", [
    ("tcgen05.ld.red.sync.aligned.32x32b.x4.max.abs.f32", "{%r1, %r2, %r3, %r4}, %r5, [%r6]", "ld.red.32x32b"),
    ("tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.NaN.s32", "{%r1, %r2}, %r5, [%r6], 4", "ld.red.16x32bx2"),
    ("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32", "[%r1], %rd2", "cp.128x256b"),
    ("tcgen05.cp.cta_group::1.32x128b.warpx4", "[%r1], %rd2", "cp.32x128b.warpx4"),
    ("tcgen05.mma.cta_group::1.kind::f16.collector::a::fill", "[%r1], %rd2, %rd3, %r4, %p1", "mma.collector"),
    ("tcgen05.mma.cta_group::1.kind::tf32.collector::a::lastuse", "[%r1], [%r2], %rd3, %r4, %p1", "mma.collector"),
    ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", "[%r1], %rd2, %rd3, %r4, [%r5], [%r6], %p1",
     "mma.mxf8f6f4.block_scale"),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", "[%r1], %rd2, %rd3, %r4, [%r5], [%r6], %p1",
     "mma.mxf4nvf4.block_scale"),
    ("tcgen05.mma.sp.cta_group::1.kind::f16", "[%r1], %rd2, %rd3, [%r7], %r4, %p1", "mma.sp"),
    ("tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b0::fill", "[%r1], %rd2, %rd3, %r4, %p1", "mma.ws"),
    ("tcgen05.mma.cta_group::1.kind::f8f6f4", "[%r1], %rd2, %rd3, %r4, %p1", "mma.f8f6f4"),
    ("tcgen05.mma.cta_group::1.kind::i8", "[%r1], %rd2, %rd3, %r4, %p1", "mma.i8"),
    ("tcgen05.mma.cta_group::2.kind::f16", "[%r1], %rd2, %rd3, %r4, %p1", "cta_group::2"),
    ("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32", "[%r1], %r2", "cta_group::2"),
    ("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64", "[%r1], %rs2",
     "cta_group::2"),
    ("tcgen05.shift.cta_group::1.down", "[%r1]", "shift.down"),
])
def test_other_spellings_of_refused_families_are_refused_by_their_rule(opcode, operands, form):
    ins = parser.parse(f"{HEAD}\t.loc 1 9 2\n\t{opcode} {operands};\n").instructions[0]
    assert ins.form is forms.FORMS_BY_NAME[form]
    assert parser.rule_of(ins) == forms.FORMS_BY_NAME[form].rule


def test_an_instruction_split_over_lines_is_refused_not_skipped(tmp_path):
    path = tmp_path / "split.ptx"
    path.write_text(HEAD + ".file 1 \"k.cu\"\n.loc 1 77 1\ntcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1,\n  %r2}, [%r3];\n")
    line = one_error_line(invoke("ptx", "scan", str(path)), 1)
    assert "unknown: tcgen05.ld.sync.aligned.32x32b.x2.b32" in line and "PTX line 6" in line


@pytest.mark.parametrize("body, fragment", [
    (".version 9.0\n.target sm_90a\n.address_size 64\n", ".target sm_90a: the PTX path runs tcgen05"),
    (".version 9.0\n.target sm_120a\n.address_size 64\ntcgen05.wait::ld.sync.aligned;\n", ".target sm_120a"),
    ("// a .ptx file that is not PTX\nint main() { return 0; }\n", "not a PTX module"),
    ("", "not a PTX module"),
])
@pytest.mark.parametrize("command", ["scan", "link"])
def test_foreign_or_empty_input_is_one_line_exit_2(tmp_path, body, fragment, command):
    path = tmp_path / "in.ptx"
    path.write_text(body)
    args = ["ptx", command, str(path)] + (["-o", str(tmp_path / "out.cubin")] if command == "link" else [])
    assert fragment in one_error_line(invoke(*args), 2)
    assert not (tmp_path / "out.cubin").exists()


def test_malformed_ptx_is_bad_input_named_by_its_line(tmp_path):
    path = tmp_path / "bad.ptx"
    path.write_text(HEAD + ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t.loc 1 12 3\n"
                    "\tmov.b32 %r1, ;\n\ttcgen05.fence::before_thread_sync;\n\tret;\n}\n\t.file 1 \"k.cu\"\n")
    for command in ("link",):  # rewrite takes the same path (services.ptx._build)
        line = one_error_line(invoke("ptx", command, str(path), "-o", str(tmp_path / "out")), 2)
        assert "not valid PTX" in line and "PTX line 8" in line and "k.cu:12" in line, line
    assert not (tmp_path / "out").exists()
