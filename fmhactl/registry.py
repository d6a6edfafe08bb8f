"""The kernel family as data: the variants of the active kernel project (fmhactl.toml found from
the working directory upward, or --project); the built-in project includes kernels/family.toml."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from fmhactl import paths
from fmhactl.config import DTYPES, INDEX32_MAX_ELEMENTS, AttnConfig, head_dim_pow2
from fmhactl.errors import BadInput

KNOWN_ARCHS = ("sm_80", "sm_90a", "sm_100a")


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    source: str  # relative to kernels/
    archs: tuple[str, ...]
    launcher: str  # which host-side launch policy computes grid/block/smem
    kernel: str  # entry name pattern, "{dtype}" is filled in
    switches: dict[str, int | str] = field(default_factory=dict)
    dtypes: tuple[str, ...] = DTYPES
    head_dims: tuple[int, ...] = ()  # empty: any multiple of head_dim_multiple up to max_head_dim
    head_dim_multiple: int = 8
    max_head_dim: int = 256
    max_seq_q: int = 0  # 0: unlimited
    max_seq_k: int = 0
    features: tuple[str, ...] = ()
    emulated_on: tuple[str, ...] = ()  # archs on which an sm_100a variant runs through emulation
    selftest: bool = False  # deliberately broken kernels that prove the sweep's isolation
    # Runs a narrower head dim (a multiple of 8) on its next wider entry through TMA zero fill:
    # the loads fill the columns past the caller's head dim with zeros and the O store clips them
    # (kernels/family.toml; fmhactl/torch/backends.py decides which calls may use it).
    tma_head_dim_fill: bool = False
    # Global-memory offsets in 64 bits (audited: docs/features.md "Tensors past 2^31 elements"); False:
    # no Q/O or K/V tensor may pass INDEX32_MAX_ELEMENTS.
    index64: bool = False
    # Out-of-tree projects (fmhactl/project): where `source` is relative to (None: kernels/),
    # extra header folders, launch formulas or hook ({} for a built-in launcher), the params
    # layout's fields ((): fmhactl's FmhaParams), and the emulated build's source ("native": PTX path).
    base_dir: Path | None = None
    include_dirs: tuple[Path, ...] = ()
    launch: dict = field(default_factory=dict)
    params: tuple[dict, ...] = ()
    params_as: str = "struct"  # the fields as one by-value struct, or as separate "arguments"
    emulate: str = "tc5"

    @property
    def source_path(self) -> Path:
        return (self.base_dir or paths.kernels_dir()) / self.source

    @property
    def name_expressions(self) -> bool:
        """The entry pattern is a C++ name (a template instance, a namespace): NVRTC lowers it."""
        return any(c in self.kernel for c in "<:")

    def entries(self) -> list[str]:
        """Every entry name the declared dtypes and head dims ask for (name expressions only)."""
        dims = self.head_dims or tuple(range(self.head_dim_multiple, self.max_head_dim + 1, self.head_dim_multiple))
        return sorted({self.entry(dtype, d) for dtype in self.dtypes for d in dims})

    def entry(self, dtype: str, head_dim: int) -> str:
        return self.kernel.format(dtype=dtype, head_dim=head_dim, head_dim_pow2=head_dim_pow2(head_dim))

    def unsupported_reason(self, cfg: AttnConfig) -> str | None:
        """Why this variant cannot run cfg, or None if it can."""
        if cfg.dtype not in self.dtypes:
            return f"dtype {cfg.dtype} not supported (supports {', '.join(self.dtypes)})"
        if self.head_dims:
            if cfg.head_dim not in self.head_dims:
                dims = ", ".join(map(str, self.head_dims))
                return f"head_dim {cfg.head_dim} not supported (supports {dims})"
        elif cfg.head_dim % self.head_dim_multiple or cfg.head_dim > self.max_head_dim:
            return (f"head_dim {cfg.head_dim} not supported (multiples of "
                    f"{self.head_dim_multiple} up to {self.max_head_dim})")
        if self.max_seq_q and cfg.seq_q > self.max_seq_q:
            return f"seq_q {cfg.seq_q} exceeds this variant's limit {self.max_seq_q}"
        if self.max_seq_k and cfg.seq_k > self.max_seq_k:
            return f"seq_k {cfg.seq_k} exceeds this variant's limit {self.max_seq_k}"
        if cfg.causal and "causal" not in self.features:
            return "causal masking not supported"
        if cfg.heads_kv != cfg.heads and "gqa" not in self.features:
            return "GQA/MQA not supported"
        missing = [name for name in cfg.features if name not in self.features]
        if missing:  # window, sink, topk, kv_shared: docs/features.md
            return f"feature {', '.join(missing)} not supported (this variant has: {', '.join(self.features)})"
        too_big = self.index_reason(cfg)
        if too_big:
            return too_big
        from fmhactl.plans.launch import limit_reason

        if self.launch:
            from fmhactl.project.abi import project_limit_reason

            return project_limit_reason(self.launch, cfg, self.switches)
        return limit_reason(self.launcher, cfg, self.switches)

    def index_reason(self, cfg: AttnConfig) -> str | None:
        """Why cfg's tensors are too large for this variant's offsets, or None."""
        elements = cfg.max_tensor_elements
        if self.index64 or elements <= INDEX32_MAX_ELEMENTS:
            return None
        return (f"a tensor of {elements} elements exceeds {INDEX32_MAX_ELEMENTS} (32-bit indexing: this "
                "variant does not declare index64)")

    def to_dict(self) -> dict:
        return {
            "name": self.name, "description": self.description, "source": self.source,
            "archs": list(self.archs), "launcher": self.launcher, "kernel": self.kernel,
            "switches": dict(self.switches), "dtypes": list(self.dtypes),
            "head_dims": list(self.head_dims), "head_dim_multiple": self.head_dim_multiple,
            "max_head_dim": self.max_head_dim, "max_seq_q": self.max_seq_q,
            "max_seq_k": self.max_seq_k, "features": list(self.features),
            "emulated_on": list(self.emulated_on), "selftest": self.selftest,
            "tma_head_dim_fill": self.tma_head_dim_fill,
            "index64": self.index64,
            **({"launch": dict(self.launch), "params": [dict(f) for f in self.params], "params_as": self.params_as,
                "emulate": self.emulate}
               if self.launch or self.params or self.emulate != "tc5" else {}),
        }


def _variant_from_entry(entry) -> Variant:
    return Variant(name=entry.name, description=entry.description, source=entry.source, archs=tuple(entry.archs),
                   launcher=entry.launcher, kernel=entry.kernel, switches=dict(entry.switches),
                   dtypes=tuple(entry.dtypes), head_dims=tuple(entry.head_dims),
                   head_dim_multiple=entry.head_dim_multiple, max_head_dim=entry.max_head_dim,
                   max_seq_q=entry.max_seq_q, max_seq_k=entry.max_seq_k, features=tuple(entry.features),
                   emulated_on=tuple(entry.emulated_on), selftest=entry.selftest,
                   tma_head_dim_fill=entry.tma_head_dim_fill, index64=entry.index64)


def load_registry(path: Path | None = None) -> dict[str, Variant]:
    """The active project's variants (path=None), or a family file checked against
    fmhactl.schemas.FamilyFile: an unreadable, binary or malformed file, an unknown field or a
    zero tile size is one BadInput line naming the file."""
    from fmhactl.schemas import FamilyFile, read_toml, validate

    if path is None:
        project_file = paths.active_project_dir() / paths.PROJECT_FILE
        if project_file.is_file():
            return project_registry(project_file)
        path = paths.kernels_dir() / "family.toml"
    try:
        if not path.is_file() and not path.exists():
            raise BadInput(f"kernel registry not found: {path}")
    except OSError as exc:
        raise BadInput(f"kernel registry {path} cannot be read ({exc.strerror or exc})") from None
    family = validate(FamilyFile, read_toml(path, "kernel registry"), path)
    from fmhactl.plans.launch import LAUNCHERS

    for index, entry in enumerate(family.variant):
        if entry.launcher not in LAUNCHERS:  # as a project file's variants are checked (project/files.py)
            raise BadInput(f"{path}: variant[{index}].launcher: unknown launcher {entry.launcher!r} "
                           f"(known: {', '.join(LAUNCHERS)})")
    return {entry.name: _variant_from_entry(entry) for entry in family.variant}


def project_registry(project_file: Path) -> dict[str, Variant]:
    """The variants of one project file and its includes (fmhactl/project/files.py checks them)."""
    from fmhactl.project.files import BUILTIN_PARAMS, load_project_file

    project = load_project_file(project_file)
    out: dict[str, Variant] = {}
    for declared in project.variants:
        entry = declared.entry
        launch = {}
        if entry.launch is not None:
            launch = entry.launch.model_dump()
            if entry.launch.hook:
                launch["hook"] = str(paths.resolved(declared.base_dir / entry.launch.hook,
                                                    f"{declared.origin}: variant {entry.name!r}: launch.hook:"))
        layout = None if entry.params == BUILTIN_PARAMS else project.params[entry.params]
        params = () if layout is None else tuple(f.model_dump(exclude_none=True) for f in layout.fields)
        base = replace(_variant_from_entry(entry), launcher=entry.launcher or "formula",
                       base_dir=declared.base_dir, include_dirs=tuple(project.include_dirs),
                       launch=launch, params=params, params_as=layout.pass_as if layout else "struct",
                       emulate=entry.emulate)
        out[entry.name] = base
    return out


def get_variant(name: str, registry: dict[str, Variant] | None = None) -> Variant:
    registry = registry if registry is not None else load_registry()
    try:
        return registry[name]
    except KeyError:
        known = ", ".join(sorted(registry))
        shown = repr(name) if len(repr(name)) <= 60 else repr(name)[:59] + "…'"
        raise BadInput(f"unknown variant {shown} (known: {known})") from None
