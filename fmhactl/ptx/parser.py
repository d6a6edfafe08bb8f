"""A line-level PTX reader: instructions with their PTX line and `.loc` source line.

PTX is line-oriented enough for what the tcgen05 emulator needs: every instruction the
compilers emit ends with `;` on its own line, `.loc` directives precede the instructions they
describe, and `.file` maps the numbers `.loc` uses to file names. The reader keeps the text of
every line so that the rewriter can replace instructions in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl.errors import BadInput
from fmhactl.ptx.forms import FORMS, RULE_OPERANDS, RULE_UNKNOWN, Form, ld_regs
from fmhactl.schemas import read_capped

MAX_PTX_BYTES = 64 << 20  # a native FMHA build's PTX is a few MiB: more is not a PTX module

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
_INSTRUCTION = re.compile(r"^(?P<indent>\s*)(?:(?P<label>[$\w]+):\s*)?(?:@(?P<pred>!?%?[\w$]+)\s+)?"
                          r"(?P<opcode>tcgen05\.[^\s;]+)\s*(?P<operands>[^;]*);\s*(?://.*)?$")
_TARGET = re.compile(r"^\s*\.target\s+([\w, ]+)")
# A statement that starts with a tcgen05 opcode (after a label and a predicate) but is not one whole
# instruction on its line: refused as unknown rather than left out (it would never run emulated).
_TCGEN05_START = re.compile(r"^\s*(?:[$\w]+:\s*)?(?:@!?%?[\w$]+\s+)?(?P<opcode>tcgen05\.[^\s;{]+)")
_VERSION = re.compile(r"^\s*\.version\s+(\d+)\.(\d+)")


@dataclass(frozen=True)
class SourceLine:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Instruction:
    """One tcgen05 instruction as written in the PTX."""

    ptx_line: int                  # 1-based line in the PTX text
    text: str                      # the instruction, stripped
    opcode: str
    operands: tuple[str, ...]
    predicate: str | None          # "%p1", "!%p1" or None
    label: str | None
    source: SourceLine | None      # the `.loc` in force (innermost)
    caller: SourceLine | None      # the `.loc`'s `inlined_at` (the call site one level out), if any
    form: Form | None

    @property
    def where(self) -> str:
        parts = [f"PTX line {self.ptx_line}"]
        if self.source:
            parts.append(f"source {self.source}")
        if self.caller and self.caller != self.source:
            parts.append(f"inlined at {self.caller}")
        return ", ".join(parts)


@dataclass
class PtxModule:
    """The PTX text, split in lines, with its tcgen05 instructions."""

    lines: list[str]
    version: tuple[int, int]
    targets: list[str]
    files: dict[int, str] = field(default_factory=dict)
    instructions: list[Instruction] = field(default_factory=list)


def split_operands(text: str) -> tuple[str, ...]:
    """Top-level comma split: `{a, b}` and `[x+4]` stay one operand."""
    out: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return tuple(out)


def classify(opcode: str, operands: tuple[str, ...]) -> Form | None:
    """The form of one tcgen05 instruction, or None when the table has no such form."""
    if opcode.startswith("tcgen05.mma.cta_group::1.kind::") and opcode.split("::")[-1] in ("f16", "tf32"):
        kind = opcode.split("::")[-1]
        a_src = "ts" if len(operands) > 1 and operands[1].startswith("[") else "ss"
        has_mask = len(operands) > 4 and operands[4].startswith("{")
        extra = len(operands) - (6 if has_mask else 5)
        if extra not in (0, 1):
            return None
        name = f"mma.{kind}.{a_src}" + (".disable-output-lane" if has_mask else "") + (".scale-input-d" if extra else "")
        return _BY_NAME.get(name)
    exact = _BY_OPCODE.get(opcode)
    if exact is not None:
        return exact
    for form in _PATTERNED:
        if form.matches(opcode):
            return form
    return None


_BY_NAME = {f.name: f for f in FORMS}
_BY_OPCODE = {f.opcode: f for f in FORMS if not f.pattern and not f.name.startswith(("mma.f16", "mma.tf32"))}
_PATTERNED = [f for f in FORMS if f.pattern]


def read_text(path: Path) -> str:
    """The PTX text of a file; BadInput for a missing, unreadable, binary or non-PTX file."""
    try:
        data = read_capped(path, MAX_PTX_BYTES)
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file (give a .ptx file or an sm100 variant name)") from None
    except IsADirectoryError:
        raise BadInput(f"{path}: is a directory, not a PTX file") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if data is None:
        raise BadInput(f"{path}: more than {MAX_PTX_BYTES >> 20} MiB, not a PTX module")
    if b"\0" in data:
        raise BadInput(f"{path}: binary file, not PTX text (a cubin? give the .ptx)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not UTF-8 text, so not PTX") from None
    return text


def parse(text: str, name: str = "<ptx>") -> PtxModule:
    """Parse PTX text; BadInput when it has no `.version` and `.target` (not a PTX module)."""
    lines = text.splitlines()
    version: tuple[int, int] | None = None
    targets: list[str] = []
    files: dict[int, str] = {}
    for line in lines:  # .file directives come at the end of NVRTC's output: read them first
        if m := _FILE.match(line):
            files[int(m.group(1))] = m.group(2)
        elif version is None and (m := _VERSION.match(line)):
            version = (int(m.group(1)), int(m.group(2)))
        elif not targets and (m := _TARGET.match(line)):
            targets = [t.strip() for t in m.group(1).split(",") if t.strip()]
    if version is None or not targets:
        raise BadInput(f"{name}: not a PTX module (no .version / .target directive)")
    module = PtxModule(lines, version, targets, files)
    source: SourceLine | None = None
    caller: SourceLine | None = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith(".loc"):
            if m := _LOC.match(line):
                source = SourceLine(files.get(int(m.group(1)), f"file{m.group(1)}"), int(m.group(2)))
                caller = (SourceLine(files.get(int(m.group(4)), f"file{m.group(4)}"), int(m.group(5)))
                          if m.group(4) else None)
            continue
        if "tcgen05." not in stripped or stripped.startswith("//"):
            continue
        m = _INSTRUCTION.match(line)
        if m is None:
            if start := _TCGEN05_START.match(line):  # e.g. an instruction split over lines
                module.instructions.append(Instruction(
                    ptx_line=number, text=stripped, opcode=start.group("opcode"), operands=(), predicate=None,
                    label=None, source=source, caller=caller, form=None))
            continue  # otherwise tcgen05 in a comment or a string: not an instruction
        opcode = m.group("opcode")
        operands = split_operands(m.group("operands"))
        module.instructions.append(Instruction(
            ptx_line=number, text=stripped, opcode=opcode, operands=operands, predicate=m.group("pred"),
            label=m.group("label"), source=source, caller=caller, form=classify(opcode, operands)))
    return module


def rule_of(instruction: Instruction) -> str | None:
    """The named rule that refuses this instruction (None: it is emulated)."""
    if instruction.form is None:
        return RULE_UNKNOWN
    if instruction.form.status == "rejected":
        return instruction.form.rule
    if operand_problem(instruction):
        return RULE_OPERANDS
    return None


def operand_problem(instruction: Instruction) -> str:
    """Why the operands do not fit the form ('' when they do): register count of ld/st vs .num."""
    form = instruction.form
    if form is None or form.status != "emulated" or form.family not in ("ld", "st"):
        return ""
    shape, num = form.name.split(".")[1], int(form.name.split(".")[2][1:])
    split = shape == "16x32bx2"
    want = 3 if split else 2
    if len(instruction.operands) != want:
        return f"{len(instruction.operands)} operands, the form has {want}"
    vector = instruction.operands[0] if form.family == "ld" else instruction.operands[-1]
    regs = [r for r in vector.strip().strip("{}").split(",") if r.strip()]
    expected = ld_regs(shape, num)
    if not vector.startswith("{") or len(regs) != expected:
        return f"{len(regs)} registers where .{shape}.x{num} moves {expected}"
    return ""
