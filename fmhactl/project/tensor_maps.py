"""Tensor maps a project kernel takes in its own params (field types `tmap` and `tmap_ptr`).

A kernel that loads or stores by TMA needs CUtensorMaps made on the host for every launch. A
project declares them as params fields (docs/kernel-abi.md, "Tensor maps"):

    { name = "tma_o", type = "tmap", value = "o", box = ["head_dim", "BM", 1, 1], swizzle = "128B" }

`tmap` is the 128-byte CUtensorMap itself (a `const __grid_constant__ CUtensorMap` argument, or a
64-byte aligned member of a by-value struct); `tmap_ptr` is a pointer to a copy fmhactl keeps in
device memory (the seeds' `CUtensorMap* tma_q`). Each map describes one of q, k, v, o as the 4-D
view {head_dim, seq, heads, batch} (innermost first) with the strides FmhaParams carries, which is
the one view valid for every memory layout verify draws (bshd and bhsd); box formulas are
evaluated per config. This module states the parameters (pure); fmhactl.runtime.project_maps
encodes them for a launch after the layout model's rules (a map the rules refuse is bad input
naming the field and the rule) and, under strict emulation, declares them to the emulator with
their box size, so a TMA store through one of them is watched on its whole box.
"""

from __future__ import annotations

from collections.abc import Sequence

from fmhactl.errors import BadInput
from fmhactl.project import formula
from fmhactl.project.files import MAP_TYPES, NUMBER_VALUES, box_names

ELEMENT_BYTES = 2  # q, k, v and o are 16-bit (bf16 or f16)
L2_PROMOTION = "128B"


def map_fields(fields: Sequence[dict]) -> list[dict]:
    return [f for f in fields if f["type"] in MAP_TYPES]


def tensor_view(name: str, base) -> tuple[int, list[int], list[int]]:
    """(address, dims {head_dim, seq, heads, batch}, byte strides {seq, heads, batch}) of q/k/v/o."""
    seq, heads = (base.seq_q, base.heads) if name in ("q", "o") else (base.seq_k, base.heads_kv)
    strides = [getattr(base, f"{name}_{axis}_stride") * ELEMENT_BYTES for axis in ("seq", "head", "batch")]
    return int(getattr(base, name) or 0), [base.head_dim, seq, heads, base.batch], strides


def map_params(f: dict, base, dtype: str, switches: dict):
    """The cuTensorMapEncodeTiled parameters of one tensor-map field for the launch `base`
    (fmhactl's FmhaParams of the config): the tensor's 4-D view, the box's formulas evaluated."""
    from fmhactl.layout.tensormap import make_params

    values: dict[str, float | int] = {name: getattr(base, name) for name in NUMBER_VALUES}
    values.update({k: v for k, v in switches.items() if isinstance(v, int) and not isinstance(v, bool)})
    names = box_names(switches)
    box = []
    for axis, text in enumerate(f["box"]):
        where = f"params field {f['name']}: box[{axis}]"
        try:
            number = formula.evaluate(formula.parse(text, names), values)
        except ZeroDivisionError:
            raise BadInput(f"{where}: division by zero") from None
        except formula.FormulaError as exc:
            raise BadInput(f"{where}: {exc}") from None
        box.append(int(number))
    address, dims, strides = tensor_view(f["value"], base)
    return make_params(dtype, dims, strides, box, [1, 1, 1, 1], global_address=address,
                       swizzle=f.get("swizzle") or "none", l2_promotion=L2_PROMOTION)
