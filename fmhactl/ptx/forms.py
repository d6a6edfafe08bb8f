"""Every tcgen05 instruction form of the PTX ISA (cta_group::1), declared once, with its status.

A *form* is one opcode spelling plus one operand pattern. The scanner classifies each tcgen05
instruction of a PTX file into exactly one form; the rewriter replaces an `emulated` form with a
call to the emulator entry point the form names and refuses a `rejected` one with the form's
rule (a named error: never a wrong answer). `docs/ptx-emulation.md` holds the table generated
from this module (`render_markdown`; a test checks the two agree).

Sources: PTX ISA 9.x tcgen05 sections (alloc/dealloc/relinquish, ld/st Table 49, ld.red,
wait, mma/mma.sp/mma.ws and the block-scale kinds, commit, fence, cp, shift).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Status = Literal["emulated", "rejected"]

# Named rules of rejected forms (the error names the form, its PTX line and its .loc source line).
RULE_UNSUPPORTED = "ptx-form-unsupported"     # a real ISA form the emulator does not implement
RULE_CTA_GROUP_2 = "ptx-cta-group-2"          # cta_group::2 needs a CTA pair: out of scope
RULE_UNKNOWN = "ptx-form-unknown"             # a tcgen05 spelling that is not in the table at all
RULE_OPERANDS = "ptx-operand-count"           # operands that do not fit the form (ld/st registers vs .num)

LD_SHAPES: dict[str, tuple[int, ...]] = {
    # shape -> the .num values Table 49 allows (registers per thread = regs_per_rep * num <= 128)
    "32x32b": (1, 2, 4, 8, 16, 32, 64, 128),
    "16x64b": (1, 2, 4, 8, 16, 32, 64, 128),
    "16x128b": (1, 2, 4, 8, 16, 32, 64),
    "16x256b": (1, 2, 4, 8, 16, 32),
    "16x32bx2": (1, 2, 4, 8, 16, 32, 64, 128),
}
REGS_PER_REP = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}

MMA_KINDS_EMULATED = ("f16", "tf32")
MMA_KINDS_REJECTED = ("f8f6f4", "i8")
BLOCK_SCALE_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")
CP_SHAPES = ("128x256b", "4x256b", "128x128b", "64x128b.warpx2::02_13", "64x128b.warpx2::01_23", "32x128b.warpx4")


@dataclass(frozen=True)
class Form:
    """One tcgen05 form: `opcode` is matched exactly unless `pattern` (a regex over the opcode) is set."""

    name: str
    opcode: str
    operands: str           # the operand pattern as the ISA writes it
    status: Status
    entry: str = ""         # emulated: the emulator entry point (extern "C" __device__ function)
    rule: str = ""          # rejected: the named rule
    note: str = ""
    pattern: str = ""       # rejected families: regex over the opcode

    @property
    def family(self) -> str:
        return self.name.split(".")[0]

    def matches(self, opcode: str) -> bool:
        if self.pattern:
            return re.fullmatch(self.pattern, opcode) is not None
        return opcode == self.opcode

    def example(self) -> str:
        """One instruction of this form, as a kernel would write it (the parser tests use these)."""
        return f"{self.opcode if not self.pattern else _pattern_example(self)} {_example_operands(self)};"


def ld_regs(shape: str, num: int) -> int:
    return REGS_PER_REP[shape] * num


def _ldst_forms() -> list[Form]:
    forms: list[Form] = []
    for shape, nums in LD_SHAPES.items():
        split = shape == "16x32bx2"
        for num in nums:
            for packed in (False, True):
                suffix = ".pack::16b" if packed else ""
                entry_tail = f"{shape}_x{num}{'_p' if packed else ''}"
                forms.append(Form(
                    name=f"ld.{shape}.x{num}{suffix}", opcode=f"tcgen05.ld.sync.aligned.{shape}.x{num}{suffix}.b32",
                    operands="r, [taddr], immHalfSplitoff" if split else "r, [taddr]", status="emulated",
                    entry=f"tc5ptx_ld_{entry_tail}",
                    note=f"{ld_regs(shape, num)} registers per thread"))
                usuffix = ".unpack::16b" if packed else ""
                forms.append(Form(
                    name=f"st.{shape}.x{num}{usuffix}", opcode=f"tcgen05.st.sync.aligned.{shape}.x{num}{usuffix}.b32",
                    operands="[taddr], immHalfSplitoff, r" if split else "[taddr], r", status="emulated",
                    entry=f"tc5ptx_st_{entry_tail}",
                    note=f"{ld_regs(shape, num)} registers per thread"))
    for shape in ("32x32b", "16x32bx2"):
        forms.append(Form(
            name=f"ld.red.{shape}", opcode=f"tcgen05.ld.red.sync.aligned.{shape}.xN.{{min,max}}[.abs][.NaN].{{f32,u32,s32}}",
            operands="r, redval, [taddr]" + (", immHalfSplitoff" if shape == "16x32bx2" else ""), status="rejected",
            rule=RULE_UNSUPPORTED, note="load with min/max reduction (sm_103a family)",
            pattern=rf"tcgen05\.ld\.red\.sync\.aligned\.{re.escape(shape)}\.x\d+\.(min|max)(\.abs)?(\.NaN)?\.(f32|u32|s32)"))
    return forms


def _mma_forms() -> list[Form]:
    forms: list[Form] = []
    for kind in MMA_KINDS_EMULATED:
        base = f"tcgen05.mma.cta_group::1.kind::{kind}"
        for a_src, a_ops in (("ss", "a-desc"), ("ts", "[a-tmem]")):
            forms.append(Form(
                name=f"mma.{kind}.{a_src}", opcode=base, operands=f"[d-tmem], {a_ops}, b-desc, idesc, enable-input-d",
                status="emulated", entry=f"tc5ptx_mma_{a_src}",
                note="single-thread issue; enable-input-d is a predicate"))
            forms.append(Form(
                name=f"mma.{kind}.{a_src}.disable-output-lane", opcode=base,
                operands=f"[d-tmem], {a_ops}, b-desc, idesc, {{disable-output-lane x4}}, enable-input-d",
                status="emulated", entry=f"tc5ptx_mma_{a_src}_dol",
                note="lanes whose bit is set keep their D values"))
            forms.append(Form(
                name=f"mma.{kind}.{a_src}.scale-input-d", opcode=base,
                operands=f"[d-tmem], {a_ops}, b-desc, idesc, enable-input-d, scale-input-d",
                status="rejected", rule=RULE_UNSUPPORTED, note="D = A*B + D * 2^-scale: not emulated"))
            forms.append(Form(
                name=f"mma.{kind}.{a_src}.disable-output-lane.scale-input-d", opcode=base,
                operands=f"[d-tmem], {a_ops}, b-desc, idesc, {{disable-output-lane x4}}, enable-input-d, scale-input-d",
                status="rejected", rule=RULE_UNSUPPORTED, note="D = A*B + D * 2^-scale: not emulated"))
    forms.append(Form(
        name="mma.collector", opcode="tcgen05.mma.cta_group::1.kind::{f16,tf32}.collector::a::{fill,use,lastuse,discard}",
        operands="as mma", status="rejected", rule=RULE_UNSUPPORTED, note="A-collector usage hints",
        pattern=r"tcgen05\.mma\.cta_group::1\.kind::\w+\.collector::a::\w+(\.ashift)?|tcgen05\.mma\.cta_group::1\.kind::\w+\.ashift(\.collector::a::\w+)?"))
    for kind in MMA_KINDS_REJECTED:
        forms.append(Form(
            name=f"mma.{kind}", opcode=f"tcgen05.mma.cta_group::1.kind::{kind}", operands="as kind::f16",
            status="rejected", rule=RULE_UNSUPPORTED, note="8-bit and narrower operand kinds are not emulated"))
    for kind in BLOCK_SCALE_KINDS:
        forms.append(Form(
            name=f"mma.{kind}.block_scale", opcode=f"tcgen05.mma.cta_group::1.kind::{kind}.block_scale[.scale_vec]",
            operands="[d-tmem], a, b-desc, idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d",
            status="rejected", rule=RULE_UNSUPPORTED, note="block-scaled MMA",
            pattern=rf"tcgen05\.mma\.cta_group::1\.kind::{kind}\.block_scale(\.scale_vec(::\w+|_size::\w+))?"))
    forms.append(Form(
        name="mma.sp", opcode="tcgen05.mma.sp.cta_group::1.kind::*", operands="... [sparse-meta-tmem] ...",
        status="rejected", rule=RULE_UNSUPPORTED, note="structured-sparse MMA",
        pattern=r"tcgen05\.mma\.sp\.cta_group::1\..*"))
    forms.append(Form(
        name="mma.ws", opcode="tcgen05.mma.ws.cta_group::1.kind::*[.collector::b*::*]",
        operands="[d-tmem], a, b-desc, idesc, enable-input-d[, zero-column-mask-desc]",
        status="rejected", rule=RULE_UNSUPPORTED, note="weight-stationary MMA (M 32/64/128, B collector buffers)",
        pattern=r"tcgen05\.mma\.(sp\.)?ws\.cta_group::1\..*|tcgen05\.mma\.ws\.(sp\.)?cta_group::1\..*"))
    return forms


def _other_forms() -> list[Form]:
    return [
        Form(name="alloc", opcode="tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", operands="[dst], ncols",
             status="emulated", entry="tc5ptx_alloc", note="warp-collective"),
        Form(name="dealloc", opcode="tcgen05.dealloc.cta_group::1.sync.aligned.b32", operands="taddr, ncols",
             status="emulated", entry="tc5ptx_dealloc", note="warp-collective"),
        Form(name="relinquish_alloc_permit", opcode="tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
             operands="", status="emulated", entry="tc5ptx_relinquish", note="warp-collective"),
        Form(name="wait.ld", opcode="tcgen05.wait::ld.sync.aligned", operands="", status="emulated",
             entry="tc5ptx_wait_ld"),
        Form(name="wait.st", opcode="tcgen05.wait::st.sync.aligned", operands="", status="emulated",
             entry="tc5ptx_wait_st"),
        Form(name="commit", opcode="tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64", operands="[mbar]",
             status="emulated", entry="tc5ptx_commit", note="single-thread; tracks the issuing thread's MMAs"),
        Form(name="commit.shared::cluster", opcode="tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
             operands="[mbar]", status="emulated", entry="tc5ptx_commit",
             note="single-thread; a shared::cta address is a valid shared::cluster address of the own CTA"),
        Form(name="commit.multicast", opcode="tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
             operands="[mbar], ctaMask", status="emulated", entry="tc5ptx_commit_multicast",
             note="launches without clusters: arrives on the own CTA when its bit (rank 0) is set"),
        Form(name="fence.before_thread_sync", opcode="tcgen05.fence::before_thread_sync", operands="",
             status="emulated", entry="tc5ptx_fence_before"),
        Form(name="fence.after_thread_sync", opcode="tcgen05.fence::after_thread_sync", operands="",
             status="emulated", entry="tc5ptx_fence_after"),
        *[Form(name=f"cp.{shape}", opcode=f"tcgen05.cp.cta_group::1.{shape}[.multicast][.b8x16.b6x16_p32|.b8x16.b4x16_p64]",
               operands="[taddr], s-desc", status="rejected", rule=RULE_UNSUPPORTED,
               note="shared memory to TMEM copy",
               pattern=rf"tcgen05\.cp\.cta_group::1\.{re.escape(shape)}(\.\w+::\w+)?(\.b8x16\.b(6x16_p32|4x16_p64))?")
          for shape in CP_SHAPES],
        Form(name="shift.down", opcode="tcgen05.shift.cta_group::1.down", operands="[taddr]", status="rejected",
             rule=RULE_UNSUPPORTED, note="shifts 32-byte rows of TMEM down by one lane"),
        Form(name="cta_group::2", opcode="tcgen05.*.cta_group::2.*", operands="", status="rejected",
             rule=RULE_CTA_GROUP_2, note="pairs of CTAs: outside cta_group::1",
             pattern=r"tcgen05\..*cta_group::2.*"),
    ]


FORMS: tuple[Form, ...] = tuple(_other_forms()[:3] + _ldst_forms() + _other_forms()[3:] + _mma_forms())
FORMS_BY_NAME: dict[str, Form] = {f.name: f for f in FORMS}


def _pattern_example(form: Form) -> str:
    examples = {
        "ld.red.32x32b": "tcgen05.ld.red.sync.aligned.32x32b.x2.max.abs.f32",
        "ld.red.16x32bx2": "tcgen05.ld.red.sync.aligned.16x32bx2.x2.min.u32",
        "mma.collector": "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill",
        "mma.sp": "tcgen05.mma.sp.cta_group::1.kind::f16",
        "mma.ws": "tcgen05.mma.ws.cta_group::1.kind::f16",
        "cta_group::2": "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32",
    }
    if form.name in examples:
        return examples[form.name]
    if form.name.endswith(".block_scale"):
        return form.opcode.replace("[.scale_vec]", "")
    if form.name.startswith("cp."):
        return form.opcode.split("[")[0]
    raise KeyError(form.name)


def _regs(n: int, first: int = 10) -> str:
    return "{" + ", ".join(f"%r{first + i}" for i in range(n)) + "}"


def _example_operands(form: Form) -> str:
    """Operands a compiler would emit for this form (registers, a predicate, immediates)."""
    name = form.name
    if name.startswith(("ld.red",)):
        return "{%f1, %f2}, %f3, [%r1]" + (", 2" if "16x32bx2" in name else "")
    if name.startswith(("ld.", "st.")):
        shape, num = name.split(".")[1], int(name.split(".")[2][1:])
        regs = _regs(ld_regs(shape, num))
        split = ", 4" if shape == "16x32bx2" else ""
        return f"{regs}, [%r1]{split}" if name.startswith("ld.") else f"[%r1]{split}, {regs}"
    if name.startswith("mma."):
        a = "[%r2]" if ".ts" in name else "%rd2"
        parts = ["[%r1]", a, "%rd3", "%r4"]
        if "disable-output-lane" in name:
            parts.append("{%r5, %r6, %r7, %r8}")
        parts.append("%p1")
        if "scale-input-d" in name:
            parts.append("3")
        if name in ("mma.collector", "mma.sp", "mma.ws") or name.endswith(".block_scale") or name in (
                "mma.f8f6f4", "mma.i8"):
            parts = ["[%r1]", "%rd2", "%rd3", "%r4", "%p1"]
        if name.endswith(".block_scale"):
            parts = ["[%r1]", "%rd2", "%rd3", "%r4", "[%r5]", "[%r6]", "%p1"]
        return ", ".join(parts)
    return {
        "alloc": "[%r1], 128", "dealloc": "%r1, 128", "commit": "[%r1]", "commit.shared::cluster": "[%r1]",
        "commit.multicast": "[%r1], %rs1", "shift.down": "[%r1]", "cta_group::2": "[%r1], 128",
    }.get(name, "[%r1], %rd1" if name.startswith("cp.") else "").strip()


def render_markdown() -> str:
    """The coverage table of docs/ptx-emulation.md (between its GENERATED markers)."""
    emulated = sum(f.status == "emulated" for f in FORMS)
    lines = [f"{len(FORMS)} forms: {emulated} emulated, {len(FORMS) - emulated} rejected with a named rule.", "",
             "| form | PTX opcode | operands | status | entry point / rule | note |",
             "|---|---|---|---|---|---|"]
    for f in FORMS:
        target = f"`{f.entry}`" if f.status == "emulated" else f"`{f.rule}`"
        lines.append(f"| `{f.name}` | `{f.opcode}` | `{f.operands}` | {f.status} | {target} | {f.note} |"
                     .replace("`` ", "").replace("|  |", "| |"))
    return "\n".join(lines) + "\n"
