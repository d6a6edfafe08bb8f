"""The 64-bit tcgen05 (UMMA) shared-memory matrix descriptor: encode, decode, validate, advance.

Spec §4.1. The bits are declared once, in `fields.SMEM_DESC`; this module adds the rules that
tie fields together (LBO/SBO sense, swizzle phase, major-ness).
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.layout.canonical import desc_offset
from fmhactl.layout.common import SMEM_LIMIT, LayoutError, Problem, errors_of
from fmhactl.layout.fields import SMEM_DESC
from fmhactl.layout.swizzle import SW128_BASE32B, SwizzleMode, parse_major, parse_swizzle, swizzle_from_umma_code

U64 = (1 << 64) - 1
TABLE = SMEM_DESC


def encode_smem_desc(start: int, lbo: int, sbo: int, swizzle: str | SwizzleMode = "none", base_offset: int = 0,
                     lbo_mode: int = 0, version: int = 1) -> int:
    """Descriptor value from byte quantities. `version` is the fixed bits 46-48 (1 on SM100)."""
    swz = parse_swizzle(swizzle)
    return TABLE.encode({"start": start, "lbo": lbo, "sbo": sbo, "fixed_46_48": version, "base_offset": base_offset,
                         "lbo_mode": lbo_mode, "layout": swz.umma_code})


@dataclass(frozen=True)
class SmemDescriptor:
    value: int
    start: int
    lbo: int
    sbo: int
    fixed_46_48: int
    base_offset: int
    lbo_mode: int
    layout_code: int
    reserved_14_15: int
    reserved_30_31: int
    reserved_53_60: int
    problems: tuple[Problem, ...]

    @property
    def swizzle(self) -> SwizzleMode | None:
        return swizzle_from_umma_code(self.layout_code)

    @property
    def ok(self) -> bool:
        return not errors_of(list(self.problems))

    def as_dict(self) -> dict[str, object]:
        swz = self.swizzle
        return {"value": f"0x{self.value:016x}", "start": self.start, "lbo": self.lbo, "sbo": self.sbo,
                "fixed_46_48": self.fixed_46_48, "base_offset": self.base_offset, "lbo_mode": self.lbo_mode,
                "layout_code": self.layout_code, "swizzle": swz.name if swz else None,
                "reserved_14_15": self.reserved_14_15, "reserved_30_31": self.reserved_30_31,
                "reserved_53_60": self.reserved_53_60, "problems": [p.as_dict() for p in self.problems]}


def decode_smem_desc(value: int, major: str | None = None) -> SmemDescriptor:
    """Fields and named problems of a descriptor value; `major` ("K"/"MN") enables the checks that
    depend on how the operand is laid out."""
    TABLE.check_word(value, "a shared-memory descriptor")
    v = TABLE.values(value)
    layout = v.pop("layout")
    f = SmemDescriptor(value=value, layout_code=layout, problems=(), **v)
    return SmemDescriptor(**{**f.__dict__, "problems": tuple(_problems(f, major))})


def _problems(f: SmemDescriptor, major: str | None) -> list[Problem]:
    out = TABLE.structural_problems(f.value)
    swz = f.swizzle
    if f.sbo == 0:
        out.append(Problem("sbo-zero", "SBO is 0: every 8-row group aliases the first", "warning"))
    if swz is not None and not swz.swizzled and f.lbo == 0:
        out.append(Problem("lbo-zero", "LBO is 0 in a non-swizzled layout: K (or MN) core matrices alias", "warning"))
    if f.start >= SMEM_LIMIT:
        out.append(Problem("start-beyond-smem", f"start address {f.start} is past the 227 KiB of shared memory",
                           "warning"))
    if swz is not None and swz.swizzled:
        phase = (f.start >> 7) & ((swz.repeat >> 7) - 1)
        if phase and f.base_offset == 0:
            out.append(Problem("mid-pattern-start", f"start is {f.start % swz.repeat} B into a {swz.repeat}-B "
                               "swizzle repeat; fine for K-advances inside a 1024-B-aligned atom (the XOR uses "
                               "absolute address bits), wrong if the atom itself is misaligned", "note"))
    if major is not None:
        m = parse_major(major)
        if m == "K" and swz is SW128_BASE32B:
            out.append(Problem("base32b-k-major", "128B_base32B is MN-major only (CUTLASS static_assert)"))
        if m == "K" and swz is not None and swz.swizzled and f.lbo not in (0, 16):
            out.append(Problem("lbo-ignored", f"LBO {f.lbo} B is ignored for swizzled K-major layouts", "note"))
    return out


def advance_smem_desc(value: int, byte_offset: int) -> tuple[int, list[Problem]]:
    """Add a byte offset the way CUTLASS/DeepGEMM do: (offset >> 4) added to the low word, no masking."""
    start = TABLE.field("start")
    unit = 1 << start.unit_shift
    if byte_offset % unit:
        raise LayoutError(f"descriptor advances are in {unit}-byte units; {byte_offset} is not a multiple of {unit}")
    lo = (value & 0xFFFFFFFF) + (byte_offset >> start.unit_shift)
    problems: list[Problem] = []
    if not 0 <= lo <= 0xFFFFFFFF:
        raise LayoutError("the advance over- or underflows the descriptor's low word")
    new = (value & ~0xFFFFFFFF & U64) | lo
    if (lo >> start.width) != ((value & 0xFFFFFFFF) >> start.width):
        problems.append(Problem("start-carry", f"the start field overflowed into bits {start.width}+ "
                                "(LBO corrupted)"))
    return new, problems


def element_address(desc: int, major: str, elem_bytes: int, mn: int, k: int) -> int:
    """Byte address an MMA reads for operand element (mn, k) through descriptor `desc` (spec §10
    smem_elem_addr); refuses descriptors with errors."""
    d = decode_smem_desc(desc, major)
    errs = errors_of(list(d.problems))
    if errs:
        raise LayoutError("descriptor is invalid: " + "; ".join(p.message for p in errs))
    assert d.swizzle is not None
    return desc_offset(major, d.swizzle, mn, k, elem_bytes, d.lbo, d.sbo, d.start)
