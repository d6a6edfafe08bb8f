"""The forms table: declared once, documented from itself, every form parsed back to itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from fmhactl.ptx import forms, parser

DOC = Path(__file__).resolve().parents[2] / "docs" / "ptx-emulation.md"
START, END = "<!-- GENERATED: ptx forms -->\n", "<!-- END GENERATED -->"


def test_doc_table_is_the_generated_one():
    text = DOC.read_text()
    assert START in text and END in text
    generated = text.split(START, 1)[1].split(END, 1)[0]
    assert generated == forms.render_markdown(), "regenerate docs/ptx-emulation.md from fmhactl.ptx.forms"


def test_names_unique_and_statuses_complete():
    names = [f.name for f in forms.FORMS]
    assert len(names) == len(set(names))
    for f in forms.FORMS:
        assert f.status in ("emulated", "rejected")
        assert (f.entry != "") == (f.status == "emulated"), f.name
        assert (f.rule != "") == (f.status == "rejected"), f.name


def test_table_49_counts():
    # every .num of every shape, packed and not, for ld and for st (PTX ISA Table 49)
    ld = [f for f in forms.FORMS if f.name.startswith("ld.") and not f.name.startswith("ld.red")]
    st = [f for f in forms.FORMS if f.name.startswith("st.")]
    expected = 2 * sum(len(nums) for nums in forms.LD_SHAPES.values())
    assert len(ld) == len(st) == expected == 74
    assert all(forms.ld_regs(f.name.split(".")[1], int(f.name.split(".")[2][1:])) <= 128 for f in ld)


@pytest.mark.parametrize("form", forms.FORMS, ids=lambda f: f.name)
def test_parser_classifies_each_form_example(form):
    text = f".version 9.0\n.target sm_100a\n.address_size 64\n\t.loc 1 7 3\n\t{form.example()}\n"
    module = parser.parse(text, "t.ptx")
    assert len(module.instructions) == 1
    ins = module.instructions[0]
    assert ins.form is form
    assert ins.ptx_line == 5
    assert ins.source == parser.SourceLine("file1", 7)
    assert parser.rule_of(ins) == (None if form.status == "emulated" else form.rule)


def test_predicated_and_labelled_instruction():
    text = (".version 9.0\n.target sm_100a\n.address_size 64\n.file 2 \"k.cu\"\n.loc 2 40 1, function_name $L, "
            "inlined_at 2 90 5\n$L1: @!%p3 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r9]; // c\n")
    ins = parser.parse(text).instructions[0]
    assert (ins.label, ins.predicate, ins.operands) == ("$L1", "!%p3", ("[%r9]",))
    assert ins.form is forms.FORMS_BY_NAME["commit.shared::cluster"]
    assert str(ins.source) == "k.cu:40" and str(ins.caller) == "k.cu:90"


def test_unknown_spelling_is_refused_by_name():
    text = ".version 9.0\n.target sm_100a\n.address_size 64\ntcgen05.frobnicate.cta_group::1 [%r1];\n"
    ins = parser.parse(text).instructions[0]
    assert ins.form is None and parser.rule_of(ins) == forms.RULE_UNKNOWN


def test_mma_operand_count_decides_the_form():
    base = "tcgen05.mma.cta_group::1.kind::tf32"
    assert parser.classify(base, ("[%r1]", "[%r2]", "%rd3", "%r4", "%p1")).name == "mma.tf32.ts"
    assert parser.classify(base, ("[%r1]", "%rd2", "%rd3", "%r4", "{%r5, %r6, %r7, %r8}", "%p1", "2")).name == \
        "mma.tf32.ss.disable-output-lane.scale-input-d"
    assert parser.classify(base, ("[%r1]", "%rd2")) is None


def test_not_ptx_inputs_are_bad_input(tmp_path):
    from fmhactl.errors import BadInput

    binary = tmp_path / "k.cubin"
    binary.write_bytes(b"\x7fELF\0\0")
    with pytest.raises(BadInput, match="binary"):
        parser.read_text(binary)
    with pytest.raises(BadInput, match="no such file"):
        parser.read_text(tmp_path / "missing.ptx")
    with pytest.raises(BadInput, match="not a PTX module"):
        parser.parse("int main() { return 0; }\n", "x.c")


def test_register_count_must_match_the_num():
    text = (".version 9.0\n.target sm_100a\n.address_size 64\n"
            "tcgen05.st.sync.aligned.32x32b.x8.b32 [%r1], {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10};\n")
    ins = parser.parse(text).instructions[0]
    assert parser.rule_of(ins) == forms.RULE_OPERANDS
    assert "9 registers where .32x32b.x8 moves 8" in parser.operand_problem(ins)
