"""Rewrite sm_100a PTX for sm_90a: each tcgen05 instruction becomes a call into the emulator.

Operands are passed as written (registers, immediates, `[reg+offset]` addresses); vector
destinations of tcgen05.ld come back through the callee's return parameter, tcgen05.st's
vector goes in as one aggregate parameter. A predicated instruction (`@p tcgen05...`) becomes a
branch around its call. `site` (the emulator's report location) is the instruction's line in the
original PTX; `fmhactl ptx scan` and the rewrite's line map turn it back into the `.loc` source line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fmhactl.errors import CheckFailed
from fmhactl.ptx import strict_hooks
from fmhactl.ptx.emulator import LdStEntry, Prototype
from fmhactl.ptx.parser import Instruction, PtxModule, rule_of

# Per function: MMAs this thread has issued. A commit tracks *all* prior async tcgen05 operations
# of its thread, so several commits after one MMA are legal; one from a thread that issued none
# tracks nothing (commit-without-mma, the tc5:: strict emulator's rule).
ISSUED_REG = "%tc5ptx_issued"
_REG_DECL = re.compile(r"^\s*\.reg\s+\.(?P<type>\w+)\s+(?P<names>[^;]+);")
_FUNC_HEAD = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(?:entry|func)\b")
# Full-warp convergence points after which the warp executes its queued MMAs (tc5ptx_drain).
_CONVERGED = re.compile(r"^\s*(?:bar\.warp\.sync\s+(?:-1|0xffffffff|0xFFFFFFFF|4294967295)|bar\.sync\s+[^;]+"
                        r"|barrier\.sync\.aligned\s+[^;]+|barrier\.cta\.sync\.aligned(?:\.all)?\s+[^;]+)\s*;")
DRAIN = "tc5ptx_drain"
_TARGET = re.compile(r"^(\s*\.target\s+)(\S+?)(\s*(?:,.*)?)$")
_VERSION = re.compile(r"^(\s*\.version\s+)(\d+)\.(\d+)(.*)$")
NATIVE_TARGETS = ("sm_100a", "sm_100f", "sm_100", "sm_101a", "sm_103a", "sm_110a")


class PtxRejected(CheckFailed):
    """The PTX uses a form the emulator does not run: the build fails with the form's rule."""


@dataclass
class Rewritten:
    text: str
    entries: list[LdStEntry]
    functions: list[str]                 # emulator entry points the module calls
    line_map: dict[int, int] = field(default_factory=dict)  # rewritten line -> original line
    replaced: int = 0


def ldst_entry(instruction: Instruction) -> LdStEntry:
    form = instruction.form
    assert form is not None
    op, shape, num = form.name.split(".")[0], form.name.split(".")[1], int(form.name.split(".")[2][1:])
    imm = 0
    if shape == "16x32bx2":
        imm_text = instruction.operands[2] if op == "ld" else instruction.operands[1]
        imm = int(imm_text, 0)
    return LdStEntry(op, shape, num, form.name.endswith("16b"), imm)


def entry_name(instruction: Instruction) -> str:
    form = instruction.form
    assert form is not None
    if form.family in ("ld", "st"):
        return ldst_entry(instruction).name
    return form.entry


def check_target(module: PtxModule, origin: str) -> None:
    """BadInput unless the module targets the tcgen05 family (what the PTX path is for)."""
    target = module.targets[0] if module.targets else ""
    if target not in NATIVE_TARGETS:
        from fmhactl.errors import BadInput

        raise BadInput(f"{origin}: .target {target}: the PTX path runs tcgen05 (sm_100a/sm_100f family) PTX, "
                       f"one of {', '.join(NATIVE_TARGETS)}; PTX for {target} runs natively where it was built for")


def check_supported(module: PtxModule, origin: str) -> None:
    """PtxRejected naming every refused instruction (first five), before anything is compiled."""
    bad = [(i, rule) for i in module.instructions if (rule := rule_of(i)) is not None]
    if not bad:
        return
    shown = "; ".join(f"{rule}: `{_short(i.text)}` ({i.where}{_detail(i)})" for i, rule in bad[:5])
    more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
    raise PtxRejected(f"{origin}: {len(bad)} tcgen05 instruction(s) the PTX path does not emulate: {shown}{more}")


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _detail(instruction: Instruction) -> str:
    from fmhactl.ptx.parser import operand_problem

    problem = operand_problem(instruction)
    return f": {problem}" if problem else ""


def _register_widths(lines: list[str]) -> dict[str, int]:
    """Bit width of each declared register name or `%r<N>` prefix (pred: 1)."""
    widths: dict[str, int] = {}
    for line in lines:
        m = _REG_DECL.match(line)
        if not m:
            continue
        kind = m.group("type")
        bits = 1 if kind == "pred" else int(re.sub(r"\D", "", kind) or 32)
        for name in m.group("names").split(","):
            widths[name.strip().split("<")[0]] = bits
    return widths


class _Emitter:
    """Builds the replacement block of one instruction."""

    def __init__(self, widths: dict[str, int], proto: Prototype) -> None:
        self.widths = widths
        self.proto = proto
        self.body: list[str] = []
        self.temps32 = 0
        self.temps64 = 0

    def width(self, operand: str) -> int | None:
        name = operand.lstrip("!")
        if not name.startswith("%") and not re.match(r"^[A-Za-z_$]", name):
            return None  # an immediate
        if name in self.widths:
            return self.widths[name]
        prefix = re.match(r"^(%?[A-Za-z_$]+)", name)
        return self.widths.get(prefix.group(1)) if prefix else None

    def temp(self, bits: int) -> str:
        if bits == 64:
            self.temps64 += 1
            return f"%tc5d{self.temps64 - 1}"
        self.temps32 += 1
        return f"%tc5t{self.temps32 - 1}"

    def value(self, operand: str, bits: int) -> str:
        """The operand as a value of `bits` bits (address brackets and +offset resolved)."""
        text = operand.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1].strip()
        offset = None
        if "+" in text:
            text, offset = (part.strip() for part in text.split("+", 1))
        have = self.width(text)
        if have is not None and have not in (1, bits):
            converted = self.temp(bits)
            kind = "cvt.u32.u64" if bits == 32 and have == 64 else f"cvt.u{bits}.u{have}"
            self.body.append(f"{kind} {converted}, {text};")
            text = converted
        if offset is not None:
            summed = self.temp(bits)
            self.body.append(f"add.u{bits} {summed}, {text}, {offset};")
            text = summed
        return text

    def predicate_value(self, operand: str) -> str:
        as_int = self.temp(32)
        if operand.startswith("!"):
            self.body.append(f"selp.u32 {as_int}, 0, 1, {operand[1:]};")
        else:
            self.body.append(f"selp.u32 {as_int}, 1, 0, {operand};")
        return as_int

    def call(self, args: list[str | list[str]], results: list[str], uniform: bool) -> list[str]:
        """The block: param declarations, stores, the call, result loads."""
        params = self.proto.params
        if len(args) != len(params):
            raise ValueError(f"{self.proto.name}: {len(args)} arguments for {len(params)} parameters")
        decls, stores = [], []
        for index, (param, arg) in enumerate(zip(params, args)):
            local = f"tc5p{index}"
            decls.append(param.declaration(local) + ";")
            if isinstance(arg, list):  # aggregate of 32-bit registers
                stores += [f"st.param.b32 [{local}+{4 * i}], {self.value(a, 32)};" for i, a in enumerate(arg)]
            else:
                bits = 64 if param.ptx_type in ("b64", "u64", "s64") else 32
                stores.append(f"st.param.b{bits} [{local}], {self.value(arg, bits)};")
        ret = ""
        loads = []
        if self.proto.ret is not None:
            decls.append(self.proto.ret.declaration("tc5r") + ";")
            ret = "(tc5r), "
            loads = [f"ld.param.b32 {r}, [tc5r+{4 * i}];" for i, r in enumerate(results)]
        arglist = ", ".join(f"tc5p{i}" for i in range(len(params)))
        call = f"call{'.uni' if uniform else ''} {ret}{self.proto.name}, ({arglist});"
        temps = []
        if self.temps32:
            temps.append(f".reg .b32 %tc5t<{self.temps32}>;")
        if self.temps64:
            temps.append(f".reg .b64 %tc5d<{self.temps64}>;")
        return ["{", *temps, *decls, *self.body, *stores, call, *loads, "}"]


def _sm90_target(line: str) -> str:
    m = _TARGET.match(line)
    if m and m.group(2) in NATIVE_TARGETS:
        return f"{m.group(1)}sm_90a{m.group(3)}"
    return line


def _regs_of(vector: str) -> list[str]:
    return [r.strip() for r in vector.strip().strip("{}").split(",") if r.strip()]


def replacement(instruction: Instruction, proto: Prototype, widths: dict[str, int]) -> list[str]:
    """The lines that replace one emulated tcgen05 instruction."""
    form = instruction.form
    assert form is not None
    ops = instruction.operands
    site = str(instruction.ptx_line)
    e = _Emitter(widths, proto)
    family = form.family
    if family == "ld":
        return e.call([ops[1], site], _regs_of(ops[0]), uniform=True)
    if family == "st":
        return e.call([ops[0], _regs_of(ops[-1]), site], [], uniform=True)
    if family == "mma":
        kind = "1" if ".kind::tf32" in instruction.opcode else "0"
        enable = e.predicate_value(ops[5] if "disable-output-lane" in form.name else ops[4])
        mask = _regs_of(ops[4]) if "disable-output-lane" in form.name else []
        args: list[str | list[str]] = [ops[0], ops[1], ops[2], ops[3], *mask, enable, kind, site]
        return [*e.call(args, [], uniform=False), f"add.u32 {ISSUED_REG}, {ISSUED_REG}, 1;"]
    if family == "commit":
        extra = [ops[1]] if form.name == "commit.multicast" else []
        return e.call([ops[0], *extra, ISSUED_REG, site], [], uniform=False)
    if family in ("alloc", "dealloc"):
        return e.call([ops[0], ops[1], site], [], uniform=True)
    # relinquish, wait::ld/st (warp-collective), fences (per thread)
    return e.call([site], [], uniform=family in ("relinquish_alloc_permit", "wait"))


def _hook_argument(e: _Emitter, arg: str, generic: bool) -> str:
    """A hook argument as a 32-bit value: `?p` a predicate, `[addr]` a shared-window address."""
    if arg.startswith("?"):
        return e.predicate_value(arg[1:])
    if not arg.startswith("["):
        return arg
    base, _, offset = arg[1:-1].strip().partition("+")
    base = base.strip()
    if not base.startswith("%") and re.match(r"^[A-Za-z_$]", base):  # a .shared variable: its address
        address = e.temp(32)
        e.body.append(f"mov.u32 {address}, {base};")
        base = address
    elif generic:
        wide = base if e.width(base) == 64 else None
        if wide is None:
            wide = e.temp(64)
            e.body.append(f"cvt.u64.u32 {wide}, {base};")
        window, address = e.temp(64), e.temp(32)
        e.body += [f"cvta.to.shared.u64 {window}, {wide};", f"cvt.u32.u64 {address}, {window};"]
        base = address
    return f"[{base}+{offset.strip()}]" if offset.strip() else f"[{base}]"


def _hook_block(calls: tuple[strict_hooks.HookCall, ...], generic: bool, widths: dict[str, int],
                protos: dict[str, Prototype]) -> list[str]:
    lines: list[str] = []
    for call in calls:
        e = _Emitter(widths, protos[call.entry])
        lines += e.call([_hook_argument(e, a, generic) for a in call.args], [], uniform=False)
    return lines


def rewrite(module: PtxModule, protos: dict[str, Prototype], linker_version: tuple[int, int], origin: str,
            *, strict: bool = False) -> Rewritten:
    """The sm_90a PTX text; PtxRejected if any instruction's form is refused.

    strict: the emulator is the strict one; the mbarrier/TMA/proxy-fence lines get its hooks
    (strict_hooks), and queued MMAs wait for their mbarrier instead of the warp's next convergence.
    """
    check_supported(module, origin)
    widths = _register_widths(module.lines)
    by_line = {i.ptx_line: i for i in module.instructions}
    used = sorted({entry_name(i) for i in module.instructions})
    hooked = {n: h for n, line in enumerate(module.lines, start=1) if strict and (h := strict_hooks.hooks_of(line, n))}
    used += sorted({c.entry for h in hooked.values() for c in (*h.before, *h.after, *_guards(h))})
    queued = not strict and any(name.startswith("tc5ptx_mma_") for name in used)
    if queued:
        used.append(DRAIN)
    missing = [name for name in used if name not in protos]
    if missing:
        raise ValueError(f"emulator has no entry point {', '.join(missing)}")
    out: list[str] = []
    line_map: dict[int, int] = {}
    pending_body = False
    skip_labels = 0
    externs_done = False
    anchor = ".address_size" if any(line.strip().startswith(".address_size") for line in module.lines) else ".target"

    def emit(text: str, original: int) -> None:
        out.append(text)
        line_map[len(out)] = original

    for number, line in enumerate(module.lines, start=1):
        if m := _VERSION.match(line):
            major, minor = int(m.group(2)), int(m.group(3))
            if (major, minor) > linker_version:
                major, minor = linker_version
            emit(f"{m.group(1)}{major}.{minor}{m.group(4)}", number)
            continue
        if _TARGET.match(line) and anchor != ".target":
            emit(_sm90_target(line), number)
            continue
        if not externs_done and line.strip().startswith(anchor):
            emit(_sm90_target(line), number)
            for name in used:
                emit(protos[name].extern(), number)
            externs_done = True
            continue
        if _FUNC_HEAD.match(line) and not line.rstrip().endswith(";"):
            pending_body = True
        if pending_body and line.strip() == "{":
            emit(line, number)
            emit(f".reg .b32 {ISSUED_REG};", number)
            emit(f"mov.u32 {ISSUED_REG}, 0;", number)
            pending_body = False
            continue
        if (hook := hooked.get(number)) is not None:
            for text in _hooked_lines(line, hook, widths, protos, f"$tc5ptx_hook{number}"):
                emit(text, number)
            continue
        instruction = by_line.get(number)
        if instruction is None:
            emit(line, number)
            if queued and _CONVERGED.match(line):
                for text in _Emitter(widths, protos[DRAIN]).call([str(number)], [], uniform=True):
                    emit(text, number)
            continue
        block = replacement(instruction, protos[entry_name(instruction)], widths)
        if instruction.label:
            emit(f"{instruction.label}:", number)
        emit(f"// tc5ptx: {instruction.text}", number)
        if instruction.predicate:
            label = f"$tc5ptx_skip{skip_labels}"
            skip_labels += 1
            emit(f"@{_inverse(instruction.predicate)} bra {label};", number)
            for text in block:
                emit(text, number)
            emit(f"{label}:", number)
        else:
            for text in block:
                emit(text, number)
    if not externs_done:
        raise ValueError(f"{origin}: no .target directive to place the emulator declarations after")
    entries = [ldst_entry(i) for i in module.instructions if i.form and i.form.family in ("ld", "st")]
    return Rewritten("\n".join(out) + "\n", entries, used, line_map, len(module.instructions))


def _inverse(predicate: str) -> str:
    """`@p` -> `!p`, `@!p` -> `p`: the guard that branches around a predicated instruction."""
    return predicate[1:] if predicate.startswith("!") else f"!{predicate}"


def _guards(hook: strict_hooks.Hooked) -> tuple[strict_hooks.HookCall, ...]:
    return (hook.guard,) if hook.guard is not None else ()


def _hooked_lines(line: str, hook: strict_hooks.Hooked, widths: dict[str, int], protos: dict[str, Prototype],
                  label: str) -> list[str]:
    """The line as written, its strict hooks before and after (skipped like it when predicated).

    A guarded line (a TMA store) runs only when its guard call returns non-zero; the guard is
    itself skipped when the line's predicate is false, so it judges only instructions that run.
    """
    out = [f"{hook.label}:"] if hook.label else []
    body = re.sub(r"^(\s*)[$\w]+:\s*", r"\1", line) if hook.label else line
    if hook.guard is not None:
        out += _guard_lines(hook.guard, hook.predicate, widths, protos[hook.guard.entry], f"{label}g")
    for part, calls in (("b", hook.before), (None, None), ("a", hook.after)):
        if calls is None:
            out.append(body)
            continue
        if not calls:
            continue
        block = _hook_block(calls, hook.generic, widths, protos)
        if hook.predicate:
            out += [f"@{_inverse(hook.predicate)} bra {label}{part};", *block, f"{label}{part}:"]
        else:
            out += block
    if hook.guard is not None:
        out.append(f"{label}g:")
    return out


def _guard_lines(guard: strict_hooks.HookCall, predicate: str | None, widths: dict[str, int], proto: Prototype,
                 skip: str) -> list[str]:
    """Call `guard` (u32 result) and branch to `skip` when it returns 0 or the predicate is false."""
    if proto.ret is None:
        raise ValueError(f"{proto.name}: a guard must return its verdict")
    e = _Emitter(widths, proto)
    call = e.call(list(guard.args), ["%tc5ok"], uniform=False)
    out = [f"@{_inverse(predicate)} bra {skip};"] if predicate else []
    return [*out, "{", ".reg .b32 %tc5ok;", ".reg .pred %tc5skip;", *call, "setp.eq.u32 %tc5skip, %tc5ok, 0;",
            f"@%tc5skip bra {skip};", "}"]


def needed_entries(module: PtxModule) -> list[LdStEntry]:
    """The ld/st entry points the emulator must provide for this module (after check_supported)."""
    return sorted({ldst_entry(i) for i in module.instructions if i.form and i.form.family in ("ld", "st")},
                  key=lambda e: e.name)
