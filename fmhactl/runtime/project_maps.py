"""A project kernel's tensor maps for one launch (params fields of type tmap / tmap_ptr: the
parameters are stated by fmhactl.project.tensor_maps), encoded through the layout model's rules, a
tmap_ptr's copy put in device memory, and what the strict emulator is told about them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fmhactl.errors import BadInput
from fmhactl.project.tensor_maps import map_fields, map_params


@dataclass
class FieldMaps:
    """The encoded maps of one launch by field name, the device copies the tmap_ptr fields point
    at (kept alive as long as this object), and what the emulator is told about them."""

    maps: dict[str, Any] = field(default_factory=dict)  # name -> tma_maps.TmaMap
    params: dict[str, Any] = field(default_factory=dict)  # name -> TensorMapParams
    device_copies: dict[str, Any] = field(default_factory=dict)  # name -> torch uint8 tensor (tmap_ptr)

    def address(self, name: str) -> int:
        return self.device_copies[name].data_ptr()

    def declared_boxes(self) -> list:
        """emulation.TensorMapBox of every map whose box size can be stated (see TensorMapBox.of:
        a swizzle wider than the inner box row leaves the pitch undocumented; such a map stays
        undeclared and a store through it is watched on its first 16 bytes)."""
        from fmhactl.runtime.emulation import TensorMapBox

        boxes = []
        for name, tmap in self.maps.items():
            try:
                boxes.append(TensorMapBox.of(tmap, self.params[name]))
            except BadInput:
                continue
        return boxes


def encode_fields(fields: Sequence[dict], base, dtype: str, switches: dict) -> FieldMaps:
    """Every tensor-map field of a params layout encoded for the launch `base`; a tmap_ptr's map
    is copied to device memory. BadInput names the field and the rule a map breaks."""
    from fmhactl.runtime.tma_maps import encode_params

    out = FieldMaps()
    for f in map_fields(fields):
        params = map_params(f, base, dtype, switches)
        try:
            tmap = encode_params(params)
        except BadInput as exc:
            raise BadInput(f"params field {f['name']} ({f['type']} of {f['value']}): {exc}") from None
        out.maps[f["name"]], out.params[f["name"]] = tmap, params
        if f["type"] == "tmap_ptr":
            import torch

            out.device_copies[f["name"]] = torch.frombuffer(bytearray(bytes(tmap)), dtype=torch.uint8).to("cuda")
    return out


def declared_boxes(args) -> list:
    """The tensor maps of a project kernel's own params (FieldMaps, carried by the argument that
    holds them: project.abi.adapt_params / adapt_arguments) as the emulator takes them; [] for
    other kernels."""
    for arg in args:
        maps = getattr(arg, "field_maps", None)
        if maps is not None:
            return maps.declared_boxes()
    return []
