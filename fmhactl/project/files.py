"""The project file (fmhactl.toml) and the TOML files it includes, checked against a pydantic
schema: one BadInput line naming the file, the field and the rule; nothing is built or recorded
from a project that does not load.

Every path in a file is relative to the folder of the file that names it (a variant's source,
an included file, a launcher hook), so a shared file of variants can be included from anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from fmhactl import paths
from fmhactl.errors import BadInput
from fmhactl.project import formula
from fmhactl.schemas import NAME_PATTERN, VariantEntry, _Strict, read_toml, shown, validate

CONFIG_NAMES = frozenset({"batch", "heads", "heads_kv", "seq_q", "seq_k", "head_dim", "head_dim_pow2",
                          "causal", "sm_count"})
# What a params field may take: the fields of fmhactl's own FmhaParams (kernels/common/fmha_params.h).
POINTER_VALUES = frozenset({"q", "k", "v", "o", "lse", "checkpoints", "tile_counter"})
NUMBER_VALUES = frozenset({
    "q_batch_stride", "q_seq_stride", "q_head_stride", "k_batch_stride", "k_seq_stride", "k_head_stride",
    "v_batch_stride", "v_seq_stride", "v_head_stride", "o_batch_stride", "o_seq_stride", "o_head_stride",
    "batch", "heads", "heads_kv", "seq_q", "seq_k", "head_dim", "softmax_scale", "scale_log2", "causal", "flags",
})
FIELD_TYPES = ("ptr", "i32", "u32", "i64", "u64", "f32", "tmap", "tmap_ptr")
# The tensors a tensor-map field may describe (fmhactl/project/tensor_maps.py: each as the 4-D
# view {head_dim, seq, heads, batch} its FmhaParams strides give).
MAP_TENSORS = ("q", "k", "v", "o")
MAP_TYPES = ("tmap", "tmap_ptr")
BUILTIN_PARAMS = "fmhactl"  # the params block of kernels/common/fmha_params.h
Formula = Annotated[str, Field(min_length=1, max_length=formula.MAX_LENGTH)] | Annotated[int, Field(ge=0, le=1 << 31)]
RelPath = Annotated[str, Field(min_length=1, max_length=400)]


class LaunchSpec(_Strict):
    """grid, block and dynamic SMEM as formulas, or a Python hook file for what a formula can't say."""

    grid: Annotated[list[Formula], Field(min_length=1, max_length=3)] | None = None
    block: Annotated[list[Formula], Field(min_length=1, max_length=3)] | None = None
    smem: Formula = 0
    ctas_per_sm: Annotated[int, Field(ge=0, le=64)] = 0
    hook: RelPath | None = None

    @model_validator(mode="after")
    def _one_way(self) -> "LaunchSpec":
        if self.hook is not None and (self.grid is not None or self.block is not None):
            raise ValueError("give grid/block formulas or a hook, not both")
        if self.hook is None and (self.grid is None or self.block is None):
            raise ValueError("needs 'grid' and 'block' (formulas) or 'hook' (a Python file)")
        if self.hook is not None and not self.hook.endswith(".py"):
            raise ValueError(f"hook must name a .py file, got {shown(self.hook)}")
        return self


# C spellings a user may write for a field's type, and the one each means.
TYPE_ALIASES = {"int": "i32", "int32": "i32", "int32_t": "i32", "unsigned": "u32", "uint32": "u32",
                "uint32_t": "u32", "long long": "i64", "int64": "i64", "int64_t": "i64", "uint64": "u64",
                "uint64_t": "u64", "unsigned long long": "u64", "float": "f32", "pointer": "ptr", "void*": "ptr"}


class ParamsField(_Strict):
    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")]
    type: Literal["ptr", "i32", "u32", "i64", "u64", "f32", "tmap", "tmap_ptr"]
    value: Formula
    # tmap (a CUtensorMap by value) and tmap_ptr (a pointer to one in device memory): the map's
    # box over {head_dim, seq, heads, batch} (formulas over the FmhaParams numbers and the variant's
    # switches) and its shared-memory swizzle.
    box: Annotated[list[Formula], Field(min_length=4, max_length=4)] | None = None
    swizzle: Literal["none", "32B", "64B", "128B"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _c_spellings(cls, data):
        if isinstance(data, dict) and isinstance(data.get("type"), str) and data["type"] in TYPE_ALIASES:
            data = {**data, "type": TYPE_ALIASES[data["type"]]}
        return data


class ParamsLayout(_Strict):
    """A kernel's own params struct, field by field in declaration order (C alignment rules apply,
    as ctypes applies them), each filled from fmhactl's FmhaParams by a name or a formula."""

    struct: Annotated[str, Field(max_length=200)] = ""
    # "struct": one by-value struct of these fields (the seeds' kernels); "arguments": each field
    # is a kernel parameter of its own, in this order (kernel(q, k, v, o, lse, seq_q, ...)).
    pass_as: Literal["struct", "arguments"] = "struct"
    fields: Annotated[list[ParamsField], Field(min_length=1, max_length=128)]

    @model_validator(mode="after")
    def _values(self) -> "ParamsLayout":
        names = [f.name for f in self.fields]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"field {twice[0]!r} named twice")
        for index, f in enumerate(self.fields):
            where = f"fields[{index}] ({f.name})"
            if f.type in MAP_TYPES:
                if f.value not in MAP_TENSORS:
                    raise ValueError(f"{where}: a {f.type} describes one of {', '.join(MAP_TENSORS)}, got "
                                     f"{shown(f.value)}")
                if f.box is None:
                    raise ValueError(f"{where}: a {f.type} needs box = [head_dim, seq, heads, batch] "
                                     "(formulas: the TMA box, innermost first)")
                continue
            if f.box is not None or f.swizzle is not None:
                raise ValueError(f"{where}: box and swizzle belong to tensor-map fields (type tmap or tmap_ptr)")
            if f.type == "ptr":
                if f.value not in POINTER_VALUES and f.value != 0:
                    raise ValueError(f"{where}: a ptr takes one of {', '.join(sorted(POINTER_VALUES))} or 0, "
                                     f"got {shown(f.value)}")
                continue
            try:
                formula.parse(f.value, NUMBER_VALUES)
            except formula.FormulaError as exc:
                raise ValueError(f"{where}: {exc}") from None
        return self


class ProjectVariant(VariantEntry):
    """A family variant plus what an out-of-tree kernel needs: launch geometry of its own, its
    params layout, and how its sm_100a code runs on Hopper (emulate = "native": the PTX path)."""

    launcher: Annotated[str, Field(pattern=NAME_PATTERN.pattern)] | None = None  # type: ignore[assignment]
    launch: LaunchSpec | None = None
    params: Annotated[str, Field(pattern=NAME_PATTERN.pattern)] = BUILTIN_PARAMS
    emulate: Literal["tc5", "native"] = "tc5"

    @model_validator(mode="after")
    def _launch_given(self) -> "ProjectVariant":
        if (self.launcher is None) == (self.launch is None):
            raise ValueError("give 'launcher' (a built-in geometry: ref, sm90, sm100) or a [variant.launch] "
                             "table, exactly one")
        if self.launch is not None and self.launch.hook is None:
            names = CONFIG_NAMES | set(self.switches)
            for label, items in (("grid", self.launch.grid), ("block", self.launch.block),
                                 ("smem", [self.launch.smem])):
                for index, text in enumerate(items or []):
                    try:
                        formula.parse(text, names)
                    except formula.FormulaError as exc:
                        raise ValueError(f"launch.{label}[{index}]: {exc}") from None
        return self


class ProjectTable(_Strict):
    name: Annotated[str, Field(pattern=NAME_PATTERN.pattern)]
    description: Annotated[str, Field(max_length=2000)] = ""
    include: Annotated[list[RelPath], Field(max_length=64)] = []  # more TOML files of [[variant]]/[params.*]
    include_dirs: Annotated[list[RelPath], Field(max_length=32)] = []  # header search path of every build
    milestones: RelPath | None = None
    evidence: RelPath = "evidence"


class IncludedFile(_Strict):
    """A file named in `include`: more variants and params layouts, and includes of its own."""

    include: Annotated[list[RelPath], Field(max_length=64)] = []
    variant: Annotated[list[ProjectVariant], Field(max_length=1000)] = []
    params: dict[Annotated[str, Field(pattern=NAME_PATTERN.pattern)], ParamsLayout] = {}


class ProjectFile(IncludedFile):
    project: ProjectTable


@dataclass(frozen=True)
class DeclaredVariant:
    entry: ProjectVariant
    base_dir: Path  # the folder of the file that declared it: its paths are relative to it
    origin: Path


@dataclass
class LoadedProject:
    root: Path
    file: Path
    name: str
    variants: list[DeclaredVariant] = field(default_factory=list)
    params: dict[str, ParamsLayout] = field(default_factory=dict)
    include_dirs: list[Path] = field(default_factory=list)
    milestones: Path | None = None
    evidence: Path | None = None


def _where(origin: Path, label: str) -> str:
    """How a path a project file gives is named in an error line: the file and the field."""
    return f"{origin}: {label}:"


def _existing(base: Path, rel: str, origin: Path, label: str, *, folder: bool = False) -> Path:
    where = _where(origin, label)
    path = paths.resolved(base / rel, where)
    if not (paths.is_dir(path, where) if folder else paths.is_file(path, where)):
        kind = "folder" if folder else "file"
        raise BadInput(f"{origin}: {label}: {kind} {rel!r} not found (paths are relative to {base})")
    return path


def load_project_file(file: Path) -> LoadedProject:
    """The project file and everything it includes, validated; BadInput (exit 2) at the first problem."""
    file = paths.resolved(file, "project file")
    model = validate(ProjectFile, read_toml(file, "project file"), file)
    root = file.parent
    project = LoadedProject(root=root, file=file, name=model.project.name)
    project.include_dirs = [_existing(root, d, file, f"project.include_dirs[{i}]", folder=True)
                            for i, d in enumerate(model.project.include_dirs)]
    if model.project.milestones:
        project.milestones = _existing(root, model.project.milestones, file, "project.milestones")
    project.evidence = paths.resolved(root / model.project.evidence, _where(file, "project.evidence"))
    _collect(model, model.project.include, file, project, chain=(file,), label="project.include")
    if model.include:
        raise BadInput(f"{file}: include: a project file lists its includes under [project] (project.include)")
    names = [v.entry.name for v in project.variants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        where = next(v.origin for v in reversed(project.variants) if v.entry.name == twice[0])
        raise BadInput(f"{where}: variant {twice[0]!r} defined twice in project {project.name}")
    for v in project.variants:
        _check_variant(v, project)
    return project


def _collect(model: IncludedFile, includes: list[str], file: Path, project: LoadedProject, chain: tuple[Path, ...],
             label: str) -> None:
    base = file.parent
    for name, layout in model.params.items():
        if name == BUILTIN_PARAMS or name in project.params:
            raise BadInput(f"{file}: params.{name}: defined twice (or shadows the built-in {BUILTIN_PARAMS!r})")
        project.params[name] = layout
    project.variants += [DeclaredVariant(entry, base, file) for entry in model.variant]
    for index, rel in enumerate(includes):
        child = _existing(base, rel, file, f"{label}[{index}]")
        if child in chain:
            cycle = " -> ".join(p.name for p in (*chain, child))
            raise BadInput(f"{file}: {label}[{index}]: include cycle ({cycle})")
        child_model = validate(IncludedFile, read_toml(child, "included project file"), child)
        _collect(child_model, child_model.include, child, project, (*chain, child), "include")


def _check_variant(declared: DeclaredVariant, project: LoadedProject) -> None:
    entry, origin = declared.entry, declared.origin
    where = f"{origin}: variant {entry.name!r}"
    source = _where(origin, f"variant {entry.name!r}: source")
    if not paths.is_file(paths.resolved(declared.base_dir / entry.source, source), source):
        raise BadInput(f"{where}: source: file {entry.source!r} not found (relative to {declared.base_dir})")
    if entry.params != BUILTIN_PARAMS and entry.params not in project.params:
        known = ", ".join([BUILTIN_PARAMS, *sorted(project.params)])
        raise BadInput(f"{where}: params: unknown params layout {entry.params!r} (known: {known})")
    if entry.launch is not None and entry.launch.hook is not None:
        _existing(declared.base_dir, entry.launch.hook, origin, f"variant {entry.name!r}: launch.hook")
    if entry.launcher is not None:
        from fmhactl.plans.launch import LAUNCHERS

        if entry.launcher not in LAUNCHERS:
            raise BadInput(f"{where}: launcher: unknown launcher {entry.launcher!r} "
                           f"(known: {', '.join(LAUNCHERS)}; or give a [variant.launch] table)")
    if entry.params != BUILTIN_PARAMS:
        _check_map_boxes(project.params[entry.params], entry, where)
    if entry.emulate == "native" and "sm_100a" not in entry.archs:
        raise BadInput(f"{where}: emulate: 'native' runs the sm_100a PTX through the PTX path; archs lacks sm_100a")


def box_names(switches: dict) -> frozenset[str]:
    """What a tensor-map field's box formulas may name: the FmhaParams numbers and the variant's
    integer switches."""
    return NUMBER_VALUES | {k for k, v in switches.items() if isinstance(v, int) and not isinstance(v, bool)}


def _check_map_boxes(layout: ParamsLayout, entry: ProjectVariant, where: str) -> None:
    names = box_names(entry.switches)
    for index, f in enumerate(layout.fields):
        for axis, text in enumerate(f.box or []):
            try:
                formula.parse(text, names)
            except formula.FormulaError as exc:
                raise BadInput(f"{where}: params {entry.params!r} fields[{index}] ({f.name}): box[{axis}]: {exc}") \
                    from None


_loaded: dict[tuple[str, int], LoadedProject] = {}


def active_project() -> LoadedProject | None:
    """The project in use (paths.active_project_dir), loaded once per file version; None where
    there is no project file (an installed copy without its checkout: the family file alone)."""
    file = paths.active_project_dir() / paths.PROJECT_FILE
    try:
        key = (str(file), file.stat().st_mtime_ns)
    except OSError:
        return None
    if key not in _loaded:
        _loaded[key] = load_project_file(file)
    return _loaded[key]
