"""The Hopper wgmma shared-memory descriptor, next to the SM100 one (spec §4.2).

Same start/LBO/SBO/base-offset fields; bits 46-48 unused (0); the layout is 2 bits at 62-63
(0 none, 1 128B, 2 64B, 3 32B), so bits 62-63 equal the SM100 code's upper two bits.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.layout.common import LayoutError, Problem, errors_of
from fmhactl.layout.descriptors import U64, _bits, _field_bytes
from fmhactl.layout.smem import SwizzleMode, parse_swizzle, swizzle_from_wgmma_code


def encode_wgmma_desc(start: int, lbo: int, sbo: int, swizzle: str | SwizzleMode = "none",
                      base_offset: int = 0) -> int:
    swz = parse_swizzle(swizzle)
    if swz.wgmma_code is None:
        raise LayoutError(f"Hopper wgmma has no {swz.name} layout")
    if not 0 <= base_offset < 8:
        raise LayoutError(f"base offset is a 3-bit field (0..7); got {base_offset}")
    return (_field_bytes("start address", start) | _field_bytes("LBO", lbo) << 16
            | _field_bytes("SBO", sbo) << 32 | base_offset << 49 | swz.wgmma_code << 62)


@dataclass(frozen=True)
class WgmmaDescriptor:
    value: int
    start: int
    lbo: int
    sbo: int
    base_offset: int
    layout_code: int
    unused_bits: int  # 14-15, 30-31, 46-48, 52-61 gathered as a mask of the value
    problems: tuple[Problem, ...]

    @property
    def swizzle(self) -> SwizzleMode | None:
        return swizzle_from_wgmma_code(self.layout_code)

    @property
    def ok(self) -> bool:
        return not errors_of(list(self.problems))

    def as_dict(self) -> dict[str, object]:
        swz = self.swizzle
        return {"value": f"0x{self.value:016x}", "start": self.start, "lbo": self.lbo, "sbo": self.sbo,
                "base_offset": self.base_offset, "layout_code": self.layout_code,
                "swizzle": swz.name if swz else None, "unused_bits": f"0x{self.unused_bits:016x}",
                "problems": [p.as_dict() for p in self.problems]}


_UNUSED_MASK = (0x3 << 14) | (0x3 << 30) | (0x7 << 46) | (((1 << 10) - 1) << 52)


def decode_wgmma_desc(value: int) -> WgmmaDescriptor:
    if not 0 <= value <= U64:
        raise LayoutError(f"a wgmma descriptor is 64 bits; 0x{value:x} is out of range")
    unused = value & _UNUSED_MASK
    problems: list[Problem] = []
    if unused:
        hint = " - bit 46 set: this looks like an SM100 tcgen05 descriptor" if (value >> 46) & 1 else ""
        problems.append(Problem("unused-bits", f"bits outside the Hopper fields are set (0x{unused:x}){hint}"))
    if _bits(value, 49, 3):
        problems.append(Problem("base-offset", f"base offset {_bits(value, 49, 3)} != 0: only meaningful for "
                                "atoms not aligned to their swizzle repeat", "warning"))
    return WgmmaDescriptor(value, _bits(value, 0, 14) << 4, _bits(value, 16, 14) << 4, _bits(value, 32, 14) << 4,
                           _bits(value, 49, 3), _bits(value, 62, 2), unused, tuple(problems))


def sm100_from_wgmma(value: int) -> int:
    """What ThunderKittens does: the Hopper value with bit 46 set (layout codes double)."""
    d = decode_wgmma_desc(value)
    if not d.ok:
        raise LayoutError("not a clean wgmma descriptor: " + "; ".join(p.message for p in d.problems))
    return value | (1 << 46)


def wgmma_from_sm100(value: int) -> int:
    from fmhactl.layout.descriptors import decode_smem_desc

    d = decode_smem_desc(value)
    swz = d.swizzle
    if swz is None or swz.wgmma_code is None:
        raise LayoutError("this SM100 layout type has no Hopper equivalent")
    return encode_wgmma_desc(d.start, d.lbo, d.sbo, swz, d.base_offset)
