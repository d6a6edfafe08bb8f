"""The 32-bit tcgen05.mma instruction descriptor for kind::f16 and kind::tf32 (spec §6).

Bits: 0-1 sparse selector, 2 sparse, 3 saturate, 4-5 D format, 6 reserved, 7-9 A format,
10-12 B format, 13/14 negate A/B, 15/16 A/B MN-major, 17-22 N>>3, 23 reserved, 24-28 M>>4,
29 reserved, 30-31 max shift. M sits at bit 24, not 23.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.layout.common import LayoutError, Problem, canonical_dtype, errors_of
from fmhactl.layout.smem import SW128_BASE32B, SwizzleMode, parse_major, parse_swizzle

AB_FORMATS = {"f16": 0, "bf16": 1, "tf32": 2}
D_FORMATS = {"f16": 0, "f32": 1, "s32": 2}
_AB_NAMES = {v: k for k, v in AB_FORMATS.items()}
_D_NAMES = {v: k for k, v in D_FORMATS.items()}


def _major_bit(text: str) -> int:
    return 0 if parse_major(text) == "K" else 1


def encode(a: str = "bf16", b: str | None = None, d: str = "f32", m: int = 128, n: int = 256,
           a_major: str = "K", b_major: str = "K", neg_a: bool = False, neg_b: bool = False) -> int:
    """Instruction descriptor of a dense kind::f16 / kind::tf32 MMA; refuses impossible combinations."""
    a_name, b_name, d_name = canonical_dtype(a), canonical_dtype(b or a), canonical_dtype(d)
    if a_name not in AB_FORMATS or b_name not in AB_FORMATS:
        raise LayoutError(f"A/B must be f16, bf16 or tf32 for kind::f16/tf32; got {a_name}/{b_name}")
    if d_name not in ("f16", "f32"):
        raise LayoutError(f"D must be f16 or f32 for kind::f16/tf32; got {d_name}")
    value = (D_FORMATS[d_name] << 4 | AB_FORMATS[a_name] << 7 | AB_FORMATS[b_name] << 10 | int(neg_a) << 13
             | int(neg_b) << 14 | _major_bit(a_major) << 15 | _major_bit(b_major) << 16)
    if m not in (64, 128):
        raise LayoutError(f"M must be 64 or 128 for cta_group::1; got {m}")
    if not (8 <= n <= 256 and n % 8 == 0):
        raise LayoutError(f"N must be 8..256 in steps of 8; got {n}")
    value |= (n >> 3) << 17 | (m >> 4) << 24
    errs = errors_of(decode(value).problems_list)
    if errs:
        raise LayoutError("; ".join(p.message for p in errs))
    return value


@dataclass(frozen=True)
class InstrDescriptor:
    value: int
    sparse_selector: int
    sparse: int
    saturate: int
    d_format: int
    a_format: int
    b_format: int
    negate_a: int
    negate_b: int
    a_major: int
    b_major: int
    n: int
    m: int
    max_shift: int
    reserved_6: int
    reserved_23: int
    reserved_29: int
    problems: tuple[Problem, ...]

    @property
    def problems_list(self) -> list[Problem]:
        return list(self.problems)

    @property
    def kind(self) -> str:
        if self.a_format == 2 or self.b_format == 2:
            return "tf32"
        if self.a_format <= 1 and self.b_format <= 1:
            return "f16"
        return "other"

    @property
    def ok(self) -> bool:
        return not errors_of(list(self.problems))

    @property
    def k(self) -> int:
        return 8 if self.kind == "tf32" else 16

    def as_dict(self) -> dict[str, object]:
        return {"value": f"0x{self.value:08x}", "kind": self.kind, "sparse_selector": self.sparse_selector,
                "sparse": self.sparse, "saturate": self.saturate,
                "d_format": _D_NAMES.get(self.d_format, self.d_format),
                "a_format": _AB_NAMES.get(self.a_format, self.a_format),
                "b_format": _AB_NAMES.get(self.b_format, self.b_format),
                "negate_a": self.negate_a, "negate_b": self.negate_b,
                "a_major": "MN" if self.a_major else "K", "b_major": "MN" if self.b_major else "K",
                "m": self.m, "n": self.n, "k": self.k, "max_shift": self.max_shift,
                "reserved_6": self.reserved_6, "reserved_23": self.reserved_23, "reserved_29": self.reserved_29,
                "problems": [p.as_dict() for p in self.problems]}


def decode(value: int) -> InstrDescriptor:
    if not 0 <= value <= 0xFFFFFFFF:
        raise LayoutError(f"an instruction descriptor is 32 bits; 0x{value:x} is out of range")

    def g(lo: int, n: int) -> int:
        return (value >> lo) & ((1 << n) - 1)

    f = InstrDescriptor(value, g(0, 2), g(2, 1), g(3, 1), g(4, 2), g(7, 3), g(10, 3), g(13, 1), g(14, 1), g(15, 1),
                        g(16, 1), g(17, 6) << 3, g(24, 5) << 4, g(30, 2), g(6, 1), g(23, 1), g(29, 1), ())
    return InstrDescriptor(**{**f.__dict__, "problems": tuple(_problems(f))})


def _problems(f: InstrDescriptor) -> list[Problem]:
    out: list[Problem] = []
    for bit, v in ((6, f.reserved_6), (23, f.reserved_23), (29, f.reserved_29)):
        if v:
            hint = " (M written at bit 23? M>>4 belongs at bits 24-28)" if bit == 23 else ""
            out.append(Problem(f"reserved-{bit}", f"bit {bit} is reserved and must be 0{hint}"))
    if f.sparse or f.sparse_selector:
        out.append(Problem("sparse", "sparse MMA (bits 0-2) is outside the model's scope (dense kind::f16/tf32)"))
    if f.saturate:
        out.append(Problem("saturate", "saturate (bit 3) applies to integer kinds only"))
    if f.max_shift:
        out.append(Problem("max-shift", "max shift (bits 30-31) is for .ws B-reuse only; must be 0 here"))
    if f.m not in (64, 128):
        extra = " (M=256 needs cta_group::2)" if f.m == 256 else ""
        out.append(Problem("m", f"M field encodes {f.m}; must be 64 or 128 for cta_group::1{extra}"))
    if not 8 <= f.n <= 256:
        out.append(Problem("n", f"N field encodes {f.n}; must be 8..256 in steps of 8"))
    if f.kind == "tf32":
        if (f.a_format, f.b_format) != (2, 2):
            out.append(Problem("ab-format", "kind::tf32 needs A and B both tf32 (format 2)"))
        if f.d_format != 1:
            out.append(Problem("d-format", "kind::tf32 accumulates in f32 only (D format 1)"))
    elif f.kind == "f16":
        if f.a_format != f.b_format:
            out.append(Problem("mixed-ab", "A and B formats differ (f16 x bf16): undocumented, refused"))
        if f.d_format == 0 and (f.a_format, f.b_format) != (0, 0):
            out.append(Problem("d-format", "an f16 accumulator needs f16 inputs (bf16 accumulates in f32)"))
        elif f.d_format not in (0, 1):
            out.append(Problem("d-format", f"D format {f.d_format} is not f16 (0) or f32 (1)"))
    else:
        out.append(Problem("ab-format", f"A/B formats {f.a_format}/{f.b_format} are not f16 (0), bf16 (1) or tf32 "
                           "(2): another MMA kind, outside the model's scope"))
    return out


def operand_problems(idesc: int, a_swizzle: str | SwizzleMode | None = None,
                     b_swizzle: str | SwizzleMode | None = None, a_from_tmem: bool = False) -> list[Problem]:
    """Rules that tie the instruction descriptor to the operand layouts (spec §3.2, §3.5, §5.1)."""
    d = decode(idesc)
    out = list(d.problems)
    if a_from_tmem and d.a_major:
        out.append(Problem("ts-a-major", "A read from TMEM (TS form) must be K-major (CUTLASS static_assert)"))
    if a_from_tmem and d.m == 128 and d.n % 16:
        out.append(Problem("ts-n16", "CUTLASS requires N % 16 == 0 for TS with M=128 (PTX allows steps of 8)",
                           "warning"))
    operands = (("A", d.a_major, None if a_from_tmem else a_swizzle), ("B", d.b_major, b_swizzle))
    for name, major_bit, swz_text in operands:
        if swz_text is None:
            continue
        swz = parse_swizzle(swz_text)
        if not major_bit and swz is SW128_BASE32B:
            out.append(Problem(f"{name.lower()}-base32b-k", f"{name}: 128B_base32B is MN-major only"))
        if major_bit and d.kind == "tf32" and swz is not SW128_BASE32B:
            out.append(Problem(f"{name.lower()}-tf32-mn", f"{name}: tf32 MN-major needs the 128B_base32B layout"))
        if major_bit and d.kind == "f16" and swz is SW128_BASE32B:
            out.append(Problem(f"{name.lower()}-f16-base32b", f"{name}: 16-bit MN-major cannot use 128B_base32B"))
    return out
