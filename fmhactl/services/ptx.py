"""The PTX path as a service: scan a PTX file or a variant's native PTX, rewrite it, link it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fmhactl.errors import BadInput
from fmhactl.records import RECORD_SCHEMA as SCHEMA_VERSION


@dataclass
class FormUse:
    form: str
    status: str            # emulated | rejected
    target: str            # entry point (emulated) or rule (rejected)
    count: int
    first_ptx_line: int
    first_instruction: str
    source: str            # the .loc source line of the first use ('' when the PTX has none)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class ScanReport:
    origin: str
    version: str
    targets: list[str]
    uses: list[FormUse] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(u.status == "emulated" for u in self.uses)

    @property
    def instructions(self) -> int:
        return sum(u.count for u in self.uses)

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "origin": self.origin, "ptx_version": self.version,
                "targets": self.targets, "ok": self.ok, "tcgen05_instructions": self.instructions,
                "forms": [u.to_dict() for u in self.uses]}


@dataclass
class LinkReport:
    origin: str
    out: Path
    kind: str              # "ptx" (rewritten module) or "cubin"
    instructions: int
    functions: list[str]
    size_bytes: int

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "origin": self.origin, "out": str(self.out), "kind": self.kind,
                "tcgen05_instructions": self.instructions, "entry_points": self.functions,
                "size_bytes": self.size_bytes}


def _exists(path: Path) -> bool:
    """path.exists(), but a name the file system refuses (too long) is no file: it may still be a variant."""
    try:
        return path.exists()
    except OSError:
        return False


def load_ptx(source: str) -> tuple[str, str]:
    """(PTX text, origin) of a .ptx file or of an sm100 variant's native build."""
    from fmhactl.ptx import parser

    if not source or source.strip() != source:
        raise BadInput(f"{source!r}: give a .ptx or .cu file or an sm100 variant name")
    path = Path(source)
    if path.suffix == ".cu":
        from fmhactl.ptx.build import cu_ptx

        parser.read_text(path)  # missing / binary: the same one-line errors as for a .ptx
        return cu_ptx(path), f"{path} (NVRTC, sm_100a)"
    if "/" in source or path.suffix or _exists(path):
        return parser.read_text(path), str(path)
    from fmhactl.registry import load_registry

    variants = load_registry()
    if source not in variants:
        raise BadInput(f"{source}: no such file, and not a variant name (fmhactl kernels lists them)")
    from fmhactl.ptx.build import native_ptx

    return native_ptx(variants[source]), f"{source} (native sm_100a PTX)"


def scan(source: str) -> ScanReport:
    """The tcgen05 forms the PTX uses: count, first line, .loc source line, status."""
    from fmhactl.ptx import parser

    from fmhactl.ptx.rewriter import check_target

    text, origin = load_ptx(source)
    module = parser.parse(text, origin)
    check_target(module, origin)
    uses: dict[str, FormUse] = {}
    for ins in module.instructions:
        name = ins.form.name if ins.form else f"unknown: {ins.opcode}"
        if name in uses:
            uses[name].count += 1
            continue
        rule = parser.rule_of(ins)
        uses[name] = FormUse(name, "rejected" if rule else "emulated", rule or (ins.form.entry if ins.form else ""),
                             1, ins.ptx_line, ins.text, str(ins.source) if ins.source else "")
    return ScanReport(origin, f"{module.version[0]}.{module.version[1]}", module.targets,
                      sorted(uses.values(), key=lambda u: u.first_ptx_line))


def rewrite(source: str, out: Path, *, strict: bool = False) -> LinkReport:
    """Write the rewritten sm_90a PTX (checked and linked first, so that what is written works).
    strict: for the strict emulator (the mbarrier/TMA hooks are added)."""
    return _build(source, out, "ptx", strict)


def link(source: str, out: Path, *, strict: bool = False) -> LinkReport:
    """Write the linked sm_90a cubin of the rewritten PTX and the (strict or fast) emulator."""
    return _build(source, out, "cubin", strict)


def _build(source: str, out: Path, kind: str, strict: bool) -> LinkReport:
    from fmhactl import paths
    from fmhactl.ptx import linker

    out = paths.check_output_path(out, "-o")
    text, origin = load_ptx(source)
    built = linker.build(text, origin, strict=strict)
    data = built.rewritten.text.encode() if kind == "ptx" else built.cubin
    paths.create_parent(out, "-o").write_bytes(data)
    return LinkReport(origin, out, kind, built.rewritten.replaced, built.rewritten.functions, len(data))
