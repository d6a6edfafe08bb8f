"""Launch geometry and the params block of a project variant (docs/kernel-abi.md).

Geometry comes from the variant's formulas (grid, block, smem over the config and the switches)
or from its hook: a Python file in the project defining `launch(config, switches, sm_count)` that
returns {"grid": [x, y, z], "block": [x, y, z], "smem": bytes}. The params block is fmhactl's own
FmhaParams, or a ctypes struct built from the variant's declared field mapping, so a kernel with
its own params struct runs unedited.
"""

from __future__ import annotations

import ctypes
import importlib.util

from fmhactl.config import AttnConfig, head_dim_pow2
from fmhactl.errors import BadInput
from fmhactl.plans.launch import MAX_DYNAMIC_SMEM, LaunchShape
from fmhactl.project import formula
from fmhactl.plans.tcgen05_abi import TMA_MAP_WORDS
from fmhactl.project.files import NUMBER_VALUES

DEFAULT_SM_COUNT = 132  # for formulas that use sm_count where no GPU was asked (limit checks)
_CTYPES = {"ptr": ctypes.c_void_p, "i32": ctypes.c_int32, "u32": ctypes.c_uint32, "i64": ctypes.c_int64,
           "u64": ctypes.c_uint64, "f32": ctypes.c_float}
_MAX_DIM = (2**31 - 1, 65535, 65535)


def config_values(cfg: AttnConfig, switches: dict, sm_count: int | None) -> dict[str, int]:
    values = {k: v for k, v in switches.items() if isinstance(v, int)}
    values.update(batch=cfg.batch, heads=cfg.heads, heads_kv=cfg.heads_kv, seq_q=cfg.seq_q, seq_k=cfg.seq_k,
                  head_dim=cfg.head_dim, head_dim_pow2=head_dim_pow2(cfg.head_dim),
                  causal=int(cfg.causal), sm_count=sm_count or DEFAULT_SM_COUNT)
    return values


def _hook(path: str):
    spec = importlib.util.spec_from_file_location(f"fmhactl_project_hook_{abs(hash(path))}", path)
    if spec is None or spec.loader is None:
        raise BadInput(f"launch hook {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the user's file: one line naming it
        raise BadInput(f"launch hook {path}: {type(exc).__name__}: {exc}") from None
    launch = getattr(module, "launch", None)
    if not callable(launch):
        raise BadInput(f"launch hook {path}: defines no function launch(config, switches, sm_count)")
    return launch


def _dims(value, label: str, where: str) -> tuple[int, int, int]:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not 1 <= len(items) <= 3 or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise BadInput(f"{where}: {label} must be 1 to 3 integers, got {items!r}"[:200])
    items += [1] * (3 - len(items))
    for axis, (v, top) in enumerate(zip(items, _MAX_DIM)):
        if not 1 <= v <= top:
            raise BadInput(f"{where}: {label}[{axis}] = {v} is outside 1..{top}")
    return items[0], items[1], items[2]


def project_launch_shape(launch: dict, cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """grid, block and dynamic SMEM of one config from the variant's formulas or hook."""
    if launch.get("hook"):
        where = f"launch hook {launch['hook']}"
        try:
            got = _hook(launch["hook"])(cfg.to_dict(), dict(switches), sm_count or DEFAULT_SM_COUNT)
        except BadInput:
            raise
        except Exception as exc:  # noqa: BLE001 - the user's code: one line naming it
            raise BadInput(f"{where}: launch() raised {type(exc).__name__}: {exc}") from None
        if not isinstance(got, dict) or not {"grid", "block"} <= set(got):
            raise BadInput(f"{where}: launch() must return a dict with grid, block and smem")
        grid, block, smem = got["grid"], got["block"], got.get("smem", 0)
    else:
        where = "launch formulas"
        values = config_values(cfg, switches, sm_count)
        names = frozenset(values)
        try:
            grid = [int(formula.evaluate(formula.parse(t, names), values)) for t in launch["grid"]]
            block = [int(formula.evaluate(formula.parse(t, names), values)) for t in launch["block"]]
            smem = int(formula.evaluate(formula.parse(launch.get("smem", 0), names), values))
        except ZeroDivisionError:
            raise BadInput(f"{where}: division by zero for {cfg.key}") from None
        except formula.FormulaError as exc:
            raise BadInput(f"{where}: {exc} ({cfg.key})") from None
    if isinstance(smem, bool) or not isinstance(smem, int) or smem < 0:
        raise BadInput(f"{where}: smem must be a byte count >= 0, got {smem!r}"[:200])
    return LaunchShape(_dims(grid, "grid", where), _dims(block, "block", where), smem,
                       int(launch.get("ctas_per_sm", 0) or 0))


def project_limit_reason(launch: dict, cfg: AttnConfig, switches: dict) -> str | None:
    shape = project_launch_shape(launch, cfg, switches)
    if shape.dynamic_smem > MAX_DYNAMIC_SMEM:
        return f"SMEM needs {shape.dynamic_smem} B > {MAX_DYNAMIC_SMEM} B"
    threads = shape.block[0] * shape.block[1] * shape.block[2]
    if threads > 1024:
        return f"block of {threads} threads > 1024"
    return None


# A CUtensorMap (cuda.h: alignas(64) cuuint64_t opaque[16]) by value: 128 bytes on a 64-byte boundary.
TMAP_ALIGN = 64


# The map's 128 opaque bytes (tcgen05_abi.TMA_MAP_WORDS words): what the driver encoded, copied as is.
MapBytes = ctypes.c_uint64 * TMA_MAP_WORDS


def _c_type(type_name: str):
    if type_name == "tmap":
        return MapBytes
    if type_name == "tmap_ptr":
        return ctypes.c_void_p
    return _CTYPES[type_name]


def params_struct(fields: tuple[dict, ...] | list[dict]) -> type[ctypes.Structure]:
    """The ctypes twin of a kernel's own params struct, from its declared fields.

    C alignment as ctypes applies it, except a tmap: ctypes knows no alignas(64), so explicit
    padding puts each map on a 64-byte boundary and rounds the struct's size to 64."""
    members: list[tuple[str, type]] = []
    offset = widest = 0
    for f in fields:
        c_type = _c_type(f["type"])
        align = TMAP_ALIGN if f["type"] == "tmap" else ctypes.alignment(c_type)
        gap = -offset % align
        if f["type"] == "tmap" and gap:
            members.append((f"_pad_{len(members)}", ctypes.c_uint8 * gap))
        offset += gap
        members.append((f["name"], c_type))
        offset += ctypes.sizeof(c_type)
        widest = max(widest, align)
    if widest == TMAP_ALIGN and offset % TMAP_ALIGN:
        members.append(("_pad_tail", ctypes.c_uint8 * (-offset % TMAP_ALIGN)))
    return type("ProjectParams", (ctypes.Structure,), {"_fields_": members})


def adapt_params(fields: tuple[dict, ...] | list[dict], base, maps=None) -> ctypes.Structure:
    """The kernel's own params block filled from fmhactl's FmhaParams `base` field by field; the
    tensor-map fields from `maps` (fmhactl.runtime.project_maps.FieldMaps of the same launch: each
    map's bytes by field name, and the device address of each tmap_ptr's copy)."""
    out = params_struct(fields)()
    values = {name: getattr(base, name) for name in NUMBER_VALUES}
    names = frozenset(values)
    for f in fields:
        value = f["value"]
        if f["type"] in ("tmap", "tmap_ptr"):
            if maps is None:
                raise BadInput(f"params field {f['name']}: a {f['type']} needs the launch's tensor maps")
            if f["type"] == "tmap":
                setattr(out, f["name"], MapBytes.from_buffer_copy(maps.maps[f["name"]]))
            else:
                setattr(out, f["name"], maps.address(f["name"]))
            continue
        if f["type"] == "ptr":
            setattr(out, f["name"], getattr(base, value) if isinstance(value, str) else None)
            continue
        try:
            number = formula.evaluate(formula.parse(value, names), values)
        except ZeroDivisionError:
            raise BadInput(f"params field {f['name']}: division by zero") from None
        except formula.FormulaError as exc:
            raise BadInput(f"params field {f['name']}: {exc}") from None
        setattr(out, f["name"], float(number) if f["type"] == "f32" else int(number))
    out.field_maps = maps  # the tmap_ptr fields' device copies live as long as the block
    return out


def adapt_arguments(fields: tuple[dict, ...] | list[dict], block: ctypes.Structure) -> list:
    """pass_as = "arguments": each field of the filled block as a kernel parameter of its own
    (a tmap as the 128-byte map itself: a `const __grid_constant__ CUtensorMap` parameter)."""
    args: list = []
    for f in fields:
        value = getattr(block, f["name"])
        if f["type"] == "tmap":
            args.append(MapBytes.from_buffer_copy(value))
        else:
            args.append(_c_type(f["type"])(value))
        if f["type"] in ("tmap", "tmap_ptr"):
            args[-1].field_maps = block.field_maps  # a tmap_ptr's device copy lives as long as the argument
    return args
