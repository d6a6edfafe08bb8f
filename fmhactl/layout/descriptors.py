"""The 64-bit tcgen05 (UMMA) shared-memory matrix descriptor: encode, decode, validate, advance.

Spec §4.1. Bits: 0-13 start>>4, 16-29 LBO>>4, 32-45 SBO>>4, 46-48 fixed 0b001, 49-51 base
offset, 52 LBO mode, 61-63 layout (0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B); 14-15, 30-31
and 53-60 must be zero.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.layout.common import LayoutError, Problem, errors_of
from fmhactl.layout.smem import (
    SMEM_LIMIT,
    SW128_BASE32B,
    SwizzleMode,
    desc_offset,
    parse_major,
    parse_swizzle,
    swizzle_from_umma_code,
)

FIELD_LIMIT = 1 << 18  # 14-bit fields hold (bytes >> 4)
U64 = (1 << 64) - 1


def _bits(value: int, lo: int, n: int) -> int:
    return (value >> lo) & ((1 << n) - 1)


def _field_bytes(what: str, nbytes: int) -> int:
    if nbytes < 0 or nbytes % 16:
        raise LayoutError(f"{what} must be a non-negative multiple of 16 bytes; got {nbytes}")
    if nbytes >= FIELD_LIMIT:
        raise LayoutError(f"{what} = {nbytes} B does not fit the 14-bit field (max {FIELD_LIMIT - 16} B)")
    return nbytes >> 4


def encode_smem_desc(start: int, lbo: int, sbo: int, swizzle: str | SwizzleMode = "none", base_offset: int = 0,
                     lbo_mode: int = 0, version: int = 1) -> int:
    """Descriptor value from byte quantities. `version` is the fixed bits 46-48 (1 on SM100)."""
    swz = parse_swizzle(swizzle)
    if not 0 <= base_offset < 8:
        raise LayoutError(f"base offset is a 3-bit field (0..7); got {base_offset}")
    if lbo_mode not in (0, 1):
        raise LayoutError(f"LBO mode is one bit; got {lbo_mode}")
    if not 0 <= version < 8:
        raise LayoutError(f"bits 46-48 are a 3-bit field; got {version}")
    return (_field_bytes("start address", start) | _field_bytes("LBO", lbo) << 16
            | _field_bytes("SBO", sbo) << 32 | version << 46 | base_offset << 49 | lbo_mode << 52
            | swz.umma_code << 61)


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
    if not 0 <= value <= U64:
        raise LayoutError(f"a shared-memory descriptor is 64 bits; 0x{value:x} is out of range")
    f = SmemDescriptor(
        value=value, start=_bits(value, 0, 14) << 4, lbo=_bits(value, 16, 14) << 4, sbo=_bits(value, 32, 14) << 4,
        fixed_46_48=_bits(value, 46, 3), base_offset=_bits(value, 49, 3), lbo_mode=_bits(value, 52, 1),
        layout_code=_bits(value, 61, 3), reserved_14_15=_bits(value, 14, 2), reserved_30_31=_bits(value, 30, 2),
        reserved_53_60=_bits(value, 53, 8), problems=())
    return SmemDescriptor(**{**f.__dict__, "problems": tuple(_problems(f, major))})


def _problems(f: SmemDescriptor, major: str | None) -> list[Problem]:
    out: list[Problem] = []
    if f.reserved_14_15:
        out.append(Problem("reserved-14-15", f"bits 14-15 are reserved and must be 0 (are {f.reserved_14_15:#x}): "
                           "a start address >= 256 KiB or a carry out of the start field"))
    if f.reserved_30_31:
        out.append(Problem("reserved-30-31", f"bits 30-31 are reserved and must be 0 (are {f.reserved_30_31:#x})"))
    if f.fixed_46_48 != 1:
        hint = ""
        if f.fixed_46_48 == 0 and f.value >> 62:
            hint = " - this looks like a Hopper wgmma descriptor (bit 46 clear, layout in bits 62-63)"
        out.append(Problem("fixed-46-48", f"bits 46-48 must be 0b001 on SM100; are 0b{f.fixed_46_48:03b}{hint}"))
    if f.base_offset:
        out.append(Problem("base-offset", f"base offset {f.base_offset} != 0: its hardware meaning is undocumented; "
                           "align swizzle atoms to their repeat (1024/512/256 B) and use 0"))
    if f.lbo_mode:
        out.append(Problem("lbo-mode", "bit 52 (absolute LBO mode) exists only on sm_103a; must be 0 on sm_100"))
    if f.reserved_53_60:
        out.append(Problem("reserved-53-60", f"bits 53-60 must be 0 (are {f.reserved_53_60:#x})"))
    swz = f.swizzle
    if swz is None:
        out.append(Problem("layout-type", f"layout type {f.layout_code} is invalid (0 none, 1 128B_base32B, "
                           "2 128B, 4 64B, 6 32B)"))
    if f.sbo == 0:
        out.append(Problem("sbo-zero", "SBO is 0: every 8-row group aliases the first", "warning"))
    if swz is not None and not swz.swizzled and f.lbo == 0:
        out.append(Problem("lbo-zero", "LBO is 0 in a non-swizzled layout: K (or MN) core matrices alias", "warning"))
    if f.start >= SMEM_LIMIT:
        out.append(Problem("start-beyond-smem", f"start address {f.start} is past the 227 KiB of shared memory",
                           "warning"))
    if swz is not None and swz.swizzled and f.start % 16 == 0:
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
    if byte_offset % 16:
        raise LayoutError(f"descriptor advances are in 16-byte units; {byte_offset} is not a multiple of 16")
    lo = (value & 0xFFFFFFFF) + (byte_offset >> 4)
    problems: list[Problem] = []
    if not 0 <= lo <= 0xFFFFFFFF:
        raise LayoutError("the advance over- or underflows the descriptor's low word")
    new = (value & ~0xFFFFFFFF & U64) | lo
    if (lo >> 14) != ((value & 0xFFFFFFFF) >> 14):
        problems.append(Problem("start-carry", "the start field overflowed into bits 14+ (LBO corrupted)"))
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
