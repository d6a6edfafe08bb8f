"""TMA tensor-map questions as typed services (what `fmhactl tma check` and the TUI's TMA form call).

`check_tensor_map` applies every documented cuTensorMapEncodeTiled rule (spec §8.1) and names the
ones a call breaks; `driver_verdict` asks the real driver (needs a GPU: MissingEnvironment, exit 3,
without one). Inputs are range-checked before any work; nothing here prints or imports typer/rich.
"""

from __future__ import annotations

from fmhactl.records import envelope

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from fmhactl.layout import tensormap as tm
from fmhactl.layout.common import LayoutError, Problem, errors_of, parse_int

if TYPE_CHECKING:
    from fmhactl.layout.tensormap_driver import BuildReport

MAX_RANK_ENTRIES = 5  # arrays longer than the largest legal rank are refused before work
MAX_ENTRY = 1 << 63  # every driver array is of 32- or 64-bit integers
DEFAULT_ADDRESS = 0x7F0000000000  # an aligned, plausible device address


@dataclass(frozen=True)
class TensorMapCheck:
    params: tm.TensorMapParams
    c_call: str
    rules: tuple[tm.RuleResult, ...]
    problems: tuple[Problem, ...]
    box: tm.BoxSummary | None

    @property
    def valid(self) -> bool:
        return not errors_of(list(self.problems))

    @property
    def violated(self) -> tuple[tm.RuleResult, ...]:
        return tuple(r for r in self.rules if r.status == "violated")

    def as_dict(self) -> dict[str, object]:
        return {**envelope("fmhactl.tma.check", 1), "params": self.params.as_dict(), "c_call": self.c_call,
                "valid": self.valid, "rules": [r.as_dict() for r in self.rules],
                "fields": [f.as_dict() for f in tensor_map_fields(self)],
                "box": self.box.as_dict() if self.box else None}


def _entries(what: str, values: Sequence[int] | None) -> tuple[int, ...] | None:
    if values is None:
        return None
    if len(values) > MAX_RANK_ENTRIES:
        raise LayoutError(f"{what} has {len(values)} entries; a tensor map has at most {MAX_RANK_ENTRIES} "
                          "dimensions")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < MAX_ENTRY:
            raise LayoutError(f"{what}: {v!r} is not an integer in 0..2^63-1")
    return tuple(values)


def tensor_map_params(dtype: str | int, dims: Sequence[int], strides: Sequence[int] | None, box: Sequence[int],
                      elem_strides: Sequence[int] | None = None, rank: int | None = None,
                      address: int | None = None, interleave: str | int = "none", swizzle: str | int = "none",
                      l2: str | int = "none", oob: str | int = "none",
                      map_address: int | None = None) -> tm.TensorMapParams:
    """Parameters as the driver takes them (innermost dimension first, rank-1 byte strides)."""
    gdim = _entries("globalDim (--dims)", dims) or ()
    if not gdim:
        raise LayoutError("globalDim (--dims) needs at least one entry")
    r = len(gdim) if rank is None else rank
    if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r <= 64:
        raise LayoutError(f"tensorRank (--rank) must be a small integer (1..5 are legal); got {r!r}")
    gstr = _entries("globalStrides (--strides)", strides)
    if gstr is None:
        if r > 1:
            raise LayoutError(f"globalStrides (--strides) missing: a rank-{r} map needs {r - 1} byte strides")
        gstr = ()
    bdim = _entries("boxDim (--box)", box) or ()
    es = _entries("elementStrides (--elem-strides)", elem_strides)
    for what, v in (("globalAddress (--address)", address), ("tensorMap address (--map-address)", map_address)):
        if v is not None and not 0 <= v < 1 << 64:
            raise LayoutError(f"{what}: {v:#x} is not a 64-bit address")
    return tm.make_params(dtype, list(gdim), list(gstr), list(bdim), None if es is None else list(es), r,
                          DEFAULT_ADDRESS if address is None else address, interleave, swizzle, l2, oob,
                          map_address)


def preset_params(name: str, **overrides: object) -> tm.TensorMapParams:
    """A named starting point (seed002: create_tma_desc_2d_bf16 for Q, T=128, HD=128, tile 128x16);
    overrides use the TensorMapParams field names."""
    if name.strip().lower() != "seed002":
        raise LayoutError(f"unknown preset {name!r} (known: seed002)")
    p = tm.seed002_params()
    known = set(p.__dataclass_fields__)
    unknown = set(overrides) - known
    if unknown:
        raise LayoutError(f"preset override(s) {', '.join(sorted(unknown))} are not tensor-map parameters")
    clean = {k: v for k, v in overrides.items() if v is not None}
    for key in ("global_dim", "global_strides", "box_dim", "element_strides"):
        if key in clean:
            clean[key] = _entries(key, clean[key])  # type: ignore[arg-type]
    return replace(p, **clean)  # type: ignore[arg-type]


def enum_values(**names: str | int | None) -> dict[str, int]:
    """Enum parameters (dtype, interleave, swizzle, l2_promotion, oob_fill) from names or numbers."""
    kinds = {"dtype": tm.DataType, "interleave": tm.Interleave, "swizzle": tm.Swizzle,
             "l2_promotion": tm.L2Promotion, "oob_fill": tm.OobFill}
    out = {}
    for key, text in names.items():
        if key not in kinds:
            raise LayoutError(f"{key} is not an enum parameter of a tensor map")
        if text is not None:
            try:
                out[key] = parse_int(text)  # unknown numbers are kept: the rules name them
            except LayoutError:
                out[key] = int(tm.parse_enum(kinds[key], text))
    return out


@dataclass(frozen=True)
class TensorMapField:
    """One parameter of the call as the TMA form shows it (from tensormap.TENSOR_MAP_FIELDS)."""

    name: str
    option: str
    meaning: str
    allowed: str
    value: str
    rules: tuple[str, ...]  # ids of the rules this parameter violates

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "option": self.option, "meaning": self.meaning, "allowed": self.allowed,
                "value": self.value, "violates": list(self.rules)}


def tensor_map_fields(result: TensorMapCheck) -> tuple[TensorMapField, ...]:
    """The field view: every parameter with its value and the rules it breaks."""
    p = result.params
    out = []
    for f in tm.TENSOR_MAP_FIELDS:
        v = getattr(p, f.attr)
        if f.enum is not None:
            try:
                shown = f"{v} ({f.enum(v).name})"
            except ValueError:
                shown = f"{v} (unknown)"
        elif isinstance(v, tuple):
            shown = ",".join(str(x) for x in v)
        else:
            shown = "-" if v is None else (hex(v) if f.attr.endswith("address") else str(v))
        bad = tuple(r.rule for r in result.violated if f.name in r.param.split("/"))
        out.append(TensorMapField(f.name, f.option, f.meaning, f.allowed, shown, bad))
    return tuple(out)


def check_tensor_map(p: tm.TensorMapParams) -> TensorMapCheck:
    """Every documented requirement with its status, and what one load moves when the map is valid."""
    rules = tm.check_rules(p)
    problems = tm.validate(p)
    ok = not errors_of(problems)
    return TensorMapCheck(p, p.c_call(), tuple(rules), tuple(problems), tm.box_summary(p) if ok else None)


def driver_verdict(p: tm.TensorMapParams) -> BuildReport:
    """The real cuTensorMapEncodeTiled's answer next to the model's (tensormap_driver.BuildReport).

    Raises MissingEnvironment (exit 3) when no CUDA driver or GPU is usable.
    """
    from fmhactl.layout.tensormap_driver import DriverSession, build

    session = DriverSession(buffer_bytes=1 << 20)
    try:
        return build(p, session)
    finally:
        session.close()


MAP_LAYOUTS = ("bshd", "bhsd")  # the memory layouts verify draws (docs/kernel-abi.md)


@dataclass(frozen=True)
class VariantMapCheck:
    """One tensor map a variant's launch passes, as fmhactl would encode it for a config."""

    field: str  # the params field (a project kernel's), or maps.<tensor> (a built-in launcher's maps struct)
    kind: str  # tmap (by value) or tmap_ptr (a pointer to a device copy)
    tensor: str  # q, k, v or o
    check: TensorMapCheck

    def as_dict(self) -> dict[str, object]:
        return {"field": self.field, "type": self.kind, "tensor": self.tensor, **self.check.as_dict()}


@dataclass(frozen=True)
class VariantMaps:
    """Every map one launch of a variant passes, for one config and memory layout."""

    variant: str
    config: str
    layout: str
    maps: tuple[VariantMapCheck, ...]

    @property
    def valid(self) -> bool:
        return all(m.check.valid for m in self.maps)

    def as_dict(self) -> dict[str, object]:
        return {**envelope("fmhactl.tma.maps", 1), "variant": self.variant, "config": self.config,
                "layout": self.layout, "valid": self.valid, "maps": [m.as_dict() for m in self.maps]}


def variant_maps(variant_name: str, shape: str, layout: str = "bshd") -> VariantMaps:
    """The tensor maps a variant's launch of `shape` passes, built with the strides verify would
    give in `layout` and nominal aligned addresses, each checked rule by rule, without a GPU: a
    project kernel's tmap / tmap_ptr params fields, or the maps struct of the built-in sm90 launcher
    (Q/K/V loads, O store) and of the sm100 launcher's TMA variants (Q/K/V loads)."""
    from fmhactl.config import parse_shape
    from fmhactl.errors import BadInput
    from fmhactl.project.tensor_maps import map_fields, map_params
    from fmhactl.registry import get_variant

    if layout not in MAP_LAYOUTS:
        raise BadInput(f"--layout must be one of {', '.join(MAP_LAYOUTS)}, got {layout!r}")
    cfg = parse_shape(shape)
    variant = get_variant(variant_name)
    fields = map_fields(variant.params)
    rows = () if fields else _launcher_rows(variant, cfg)
    if not fields and not rows:
        raise BadInput(f"variant {variant_name} passes no tensor maps (a project kernel declares them as params "
                       "fields of type tmap or tmap_ptr: docs/kernel-abi.md, \"Tensor maps\")")
    reason = variant.unsupported_reason(cfg)
    if reason:
        raise BadInput(f"variant {variant_name} does not take {cfg.key}: {reason}")
    base = nominal_params(cfg, layout)
    if fields:
        checks = [VariantMapCheck(f["name"], f["type"], f["value"],
                                  check_tensor_map(map_params(f, base, cfg.dtype, variant.switches))) for f in fields]
        return VariantMaps(variant_name, cfg.key, layout, tuple(checks))
    from fmhactl.project.tensor_maps import tensor_view
    from fmhactl.runtime.tma_maps import family_params

    out = []
    for tensor, box_rows in rows:
        params = family_params(cfg.dtype, *tensor_view(tensor, base), box_rows)
        out.append(VariantMapCheck(f"maps.{tensor}", "tmap", tensor, check_tensor_map(params)))
    return VariantMaps(variant_name, cfg.key, layout, tuple(out))


def _launcher_rows(variant, cfg) -> tuple[tuple[str, int], ...]:
    """(tensor, box rows) of the built-in launcher's maps for cfg; () when it passes none."""
    from fmhactl.plans.launch import sm90_plan, sm100_plan
    from fmhactl.runtime.tma_maps import launcher_map_rows

    if variant.launcher == "sm90":
        plan = sm90_plan(cfg, variant.switches)
    elif variant.launcher == "sm100" and int(variant.switches.get("FMHA_LOAD_TMA", 0)):
        plan = sm100_plan(cfg, variant.switches)
    else:
        return ()
    return launcher_map_rows(variant.launcher, plan.block_m, plan.block_n)


def nominal_params(cfg, layout: str):
    """fmhactl's FmhaParams for cfg with q/k/v/o in `layout` (bshd or bhsd) at aligned nominal
    addresses: the numbers a launch of cfg would pass, without tensors."""
    from fmhactl.runtime.params import FmhaParams

    p = FmhaParams(batch=cfg.batch, heads=cfg.heads, heads_kv=cfg.heads_kv, seq_q=cfg.seq_q, seq_k=cfg.seq_k,
                   head_dim=cfg.head_dim, causal=int(cfg.causal))
    d = cfg.head_dim
    for index, (name, seq, heads) in enumerate((("q", cfg.seq_q, cfg.heads), ("k", cfg.seq_k, cfg.heads_kv),
                                                ("v", cfg.seq_k, cfg.heads_kv), ("o", cfg.seq_q, cfg.heads))):
        setattr(p, name, DEFAULT_ADDRESS + (index << 36))
        strides = (seq * heads * d, heads * d, d) if layout == "bshd" else (heads * seq * d, d, seq * d)
        for axis, stride in zip(("batch", "seq", "head"), strides):
            setattr(p, f"{name}_{axis}_stride", stride)
    return p
