"""The 32-bit tcgen05.mma instruction descriptor for kind::f16 and kind::tf32 (spec §6).

The bits are declared once, in `fields.INSTR_DESC` (M sits at bit 24, not 23); this module adds
the rules that tie fields together (kinds, formats, shapes).
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.layout import fields
from fmhactl.layout.common import LayoutError, Problem, canonical_dtype, errors_of
from fmhactl.layout.swizzle import SW128_BASE32B, SwizzleMode, parse_major, parse_swizzle

TABLE = fields.INSTR_DESC
_AB_NAMES = fields.AB_FORMATS
_D_NAMES = fields.D_FORMATS
AB_FORMATS = {v: k for k, v in _AB_NAMES.items()}
D_FORMATS = {v: k for k, v in _D_NAMES.items()}


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
    if m not in (64, 128):
        raise LayoutError(f"M must be 64 or 128 for cta_group::1; got {m}")
    if not (8 <= n <= 256 and n % 8 == 0):
        raise LayoutError(f"N must be 8..256 in steps of 8; got {n}")
    value = TABLE.encode({"d_format": D_FORMATS[d_name], "a_format": AB_FORMATS[a_name],
                          "b_format": AB_FORMATS[b_name], "negate_a": int(neg_a), "negate_b": int(neg_b),
                          "a_major": _major_bit(a_major), "b_major": _major_bit(b_major), "n": n, "m": m})
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
    TABLE.check_word(value, "an instruction descriptor")
    f = InstrDescriptor(value=value, problems=(), **TABLE.values(value))
    return InstrDescriptor(**{**f.__dict__, "problems": tuple(_problems(f))})


def _problems(f: InstrDescriptor) -> list[Problem]:
    out: list[Problem] = []
    seen: set[str] = set()
    for p in TABLE.structural_problems(f.value):
        if p.code in ("d-format", "ab-format"):
            continue  # judged below, together with the kind
        if p.code not in seen:
            seen.add(p.code)
            out.append(p)
    if f.m not in (64, 128):
        extra = " (M=256 needs cta_group::2)" if f.m == 256 else ""
        out.append(Problem("m", f"M field (bits {TABLE.field('m').bits}) encodes {f.m}; must be 64 or 128 for "
                           f"cta_group::1{extra}"))
    if not 8 <= f.n <= 256:
        out.append(Problem("n", f"N field (bits {TABLE.field('n').bits}) encodes {f.n}; must be 8..256 in steps of 8"))
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
