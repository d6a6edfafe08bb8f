"""The Hopper wgmma shared-memory descriptor, next to the SM100 one (spec §4.2).

Same start/LBO/SBO/base-offset fields; bits 46-48 unused (0); the layout is 2 bits at 62-63
(0 none, 1 128B, 2 64B, 3 32B), so bits 62-63 equal the SM100 code's upper two bits. The bits
are declared once, in `fields.WGMMA_DESC`.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.layout.common import LayoutError, Problem, errors_of
from fmhactl.layout.descriptors import decode_smem_desc
from fmhactl.layout.fields import SMEM_DESC, WGMMA_DESC
from fmhactl.layout.swizzle import SwizzleMode, parse_swizzle, swizzle_from_wgmma_code

TABLE = WGMMA_DESC


def encode_wgmma_desc(start: int, lbo: int, sbo: int, swizzle: str | SwizzleMode = "none",
                      base_offset: int = 0) -> int:
    swz = parse_swizzle(swizzle)
    if swz.wgmma_code is None:
        raise LayoutError(f"Hopper wgmma has no {swz.name} layout")
    return TABLE.encode({"start": start, "lbo": lbo, "sbo": sbo, "base_offset": base_offset,
                         "layout": swz.wgmma_code})


@dataclass(frozen=True)
class WgmmaDescriptor:
    value: int
    start: int
    lbo: int
    sbo: int
    base_offset: int
    layout_code: int
    unused_bits: int  # every bit outside the Hopper fields, as a mask of the value
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


UNUSED_MASK = sum(f.mask for f in TABLE.fields if f.name.startswith("unused"))


def decode_wgmma_desc(value: int) -> WgmmaDescriptor:
    TABLE.check_word(value, "a wgmma descriptor")
    v = TABLE.values(value)
    problems: list[Problem] = []
    seen: set[str] = set()
    for p in TABLE.structural_problems(value):
        if p.code not in seen:  # the unused fields share one code: report it once
            seen.add(p.code)
            problems.append(p)
    return WgmmaDescriptor(value, v["start"], v["lbo"], v["sbo"], v["base_offset"], v["layout"],
                           value & UNUSED_MASK, tuple(problems))


def sm100_from_wgmma(value: int) -> int:
    """What ThunderKittens does: the Hopper value with bit 46 set (layout codes double)."""
    d = decode_wgmma_desc(value)
    if not d.ok:
        raise LayoutError("not a clean wgmma descriptor: " + "; ".join(p.message for p in d.problems))
    return value | (SMEM_DESC.field("fixed_46_48").fixed or 0) << SMEM_DESC.field("fixed_46_48").lo


def wgmma_from_sm100(value: int) -> int:
    d = decode_smem_desc(value)
    swz = d.swizzle
    if swz is None or swz.wgmma_code is None:
        raise LayoutError("this SM100 layout type has no Hopper equivalent")
    return encode_wgmma_desc(d.start, d.lbo, d.sbo, swz, d.base_offset)
