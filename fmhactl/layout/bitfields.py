"""Declarative bit-packed words: a word is a table of fields, and everything else derives from it.

A `BitTable` lists every bit of a word exactly once (reserved bits included). Encoding, decoding,
the structural validation messages ("bits 46-48 must be 0b001"), the field view shown by the CLI
and the TUI, the SVG register diagram and the C header checked against kernels/common all read
the same `Field` entries (fmhactl/layout/fields.py declares the tables), so changing a width in
one place changes them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fmhactl.layout.common import LayoutError, Problem


@dataclass(frozen=True)
class Field:
    """One field: bits [lo, lo + width) of the word.

    `unit_shift`: the raw field holds value >> unit_shift (addresses in 16-byte units: 4).
    `fixed`: the only legal raw value (reserved bits, constants). `allowed`: legal raw values
    with their names (enums). `rule`: why a violation matters, appended to the message.
    `code`: the stable problem code a violation reports. `severity` of that problem.
    """

    name: str
    lo: int
    width: int
    meaning: str
    label: str = ""
    unit_shift: int = 0
    fixed: int | None = None
    allowed: Mapping[int, str] | None = None
    rule: str = ""
    code: str = ""
    severity: str = "error"
    unit: str = ""

    @property
    def hi(self) -> int:
        return self.lo + self.width - 1

    @property
    def bits(self) -> str:
        return str(self.lo) if self.width == 1 else f"{self.lo}-{self.hi}"

    @property
    def where(self) -> str:
        return f"bit {self.lo}" if self.width == 1 else f"bits {self.bits}"

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lo

    @property
    def max_raw(self) -> int:
        return (1 << self.width) - 1

    @property
    def short(self) -> str:
        return self.label or self.name

    @property
    def problem_code(self) -> str:
        return self.code or self.name.replace("_", "-")

    def get(self, word: int) -> int:
        return (word >> self.lo) & self.max_raw

    def value(self, word: int) -> int:
        """The field's value in its natural unit (bytes for addresses)."""
        return self.get(word) << self.unit_shift

    def raw_of(self, value: int) -> int:
        """Raw field contents for a value in natural units; refuses what does not fit."""
        if value < 0:
            raise LayoutError(f"{self.meaning} (bits {self.bits}) cannot be negative; got {value}")
        step = 1 << self.unit_shift
        if value % step:
            raise LayoutError(f"{self.meaning} (bits {self.bits}) must be a multiple of {step}; got {value}")
        raw = value >> self.unit_shift
        if raw > self.max_raw:
            top = self.max_raw << self.unit_shift
            raise LayoutError(f"{self.meaning} = {value} does not fit the {self.width}-bit field at bits {self.bits} "
                              f"(max {top})")
        return raw

    def allowed_text(self) -> str:
        if self.fixed is not None:
            return f"{self.fixed:#x}" if self.width > 3 else f"0b{self.fixed:0{self.width}b}"
        if self.allowed is not None:
            return ", ".join(f"{k} {v}" for k, v in sorted(self.allowed.items()))
        top = self.max_raw << self.unit_shift
        step = 1 << self.unit_shift
        return f"0..{top}" + (f" step {step}" if step > 1 else "")

    def display(self, word: int) -> str:
        raw = self.get(word)
        if self.allowed is not None:
            return f"{raw} ({self.allowed.get(raw, 'invalid')})"
        if self.unit_shift:
            return f"{raw << self.unit_shift}{(' ' + self.unit) if self.unit else ''} (raw {raw})"
        if self.fixed is not None and self.width > 1:
            return f"0b{raw:0{self.width}b}" if self.width <= 3 else f"{raw:#x}"
        return str(raw)

    def problem(self, word: int) -> Problem | None:
        """The structural rule of this field (fixed value or enum), checked on `word`."""
        raw = self.get(word)
        if self.fixed is not None and raw != self.fixed:
            return Problem(self.problem_code, f"{self.where} ({self.meaning}) must be {self.allowed_text()}; "
                           f"are {raw:#x}" + (f": {self.rule}" if self.rule else ""), self.severity)
        if self.allowed is not None and raw not in self.allowed:
            return Problem(self.problem_code, f"{self.where} ({self.meaning}) = {raw} is not one of "
                           f"{self.allowed_text()}" + (f": {self.rule}" if self.rule else ""), self.severity)
        return None


@dataclass(frozen=True)
class FieldRow:
    """One line of a field view (CLI table, TUI form, JSON)."""

    name: str
    bits: str
    lo: int
    width: int
    raw: int
    value: int
    display: str
    meaning: str
    allowed: str
    bad: bool

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "bits": self.bits, "lo": self.lo, "width": self.width, "raw": self.raw,
                "value": self.value, "display": self.display, "meaning": self.meaning, "allowed": self.allowed,
                "bad": self.bad}


@dataclass(frozen=True)
class BitTable:
    name: str
    bits: int
    fields: tuple[Field, ...]
    c_prefix: str = ""
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        covered = 0
        for f in self.fields:
            if f.lo < 0 or f.width < 1 or f.hi >= self.bits:
                raise ValueError(f"{self.name}: field {f.name} (bits {f.bits}) outside the {self.bits}-bit word")
            if covered & f.mask:
                raise ValueError(f"{self.name}: field {f.name} (bits {f.bits}) overlaps another field")
            covered |= f.mask
        if covered != (1 << self.bits) - 1:
            raise ValueError(f"{self.name}: bits {bin(((1 << self.bits) - 1) & ~covered)} are not declared")

    @property
    def limit(self) -> int:
        return (1 << self.bits) - 1

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise LayoutError(f"{self.name} has no field {name!r} (fields: {', '.join(x.name for x in self.fields)})")

    def check_word(self, word: int, what: str | None = None) -> int:
        if not 0 <= word <= self.limit:
            raise LayoutError(f"{what or self.name}: 0x{word:x} does not fit in {self.bits} bits")
        return word

    def decode(self, word: int) -> dict[str, int]:
        """Raw contents of every field."""
        self.check_word(word)
        return {f.name: f.get(word) for f in self.fields}

    def values(self, word: int) -> dict[str, int]:
        """Every field in natural units (bytes for addresses)."""
        self.check_word(word)
        return {f.name: f.value(word) for f in self.fields}

    def encode_raw(self, raw: Mapping[str, int]) -> int:
        """A word from raw field contents; fields not given take their fixed value or 0."""
        unknown = set(raw) - {f.name for f in self.fields}
        if unknown:
            raise LayoutError(f"{self.name} has no field(s) {', '.join(sorted(unknown))}")
        word = 0
        for f in self.fields:
            v = raw.get(f.name, f.fixed if f.fixed is not None else 0)
            if not 0 <= v <= f.max_raw:
                raise LayoutError(f"{f.meaning} (bits {f.bits}) holds 0..{f.max_raw}; got {v}")
            word |= v << f.lo
        return word

    def encode(self, values: Mapping[str, int]) -> int:
        """A word from natural-unit values (bytes are shifted into 16-byte units, ranges checked)."""
        return self.encode_raw({name: self.field(name).raw_of(v) for name, v in values.items()})

    def with_raw(self, word: int, name: str, raw: int) -> int:
        """`word` with one field replaced (what editing a field in the TUI does)."""
        f = self.field(name)
        if not 0 <= raw <= f.max_raw:
            raise LayoutError(f"{f.meaning} (bits {f.bits}) holds 0..{f.max_raw}; got {raw}")
        return (self.check_word(word) & ~f.mask) | raw << f.lo

    def structural_problems(self, word: int) -> list[Problem]:
        return [p for p in (f.problem(word) for f in self.fields) if p is not None]

    def rows(self, word: int, bad_codes: set[str] | frozenset[str] = frozenset()) -> list[FieldRow]:
        """The field view, least significant field first."""
        self.check_word(word)
        return [FieldRow(f.name, f.bits, f.lo, f.width, f.get(word), f.value(word), f.display(word), f.meaning,
                         f.allowed_text(), f.problem_code in bad_codes or f.problem(word) is not None)
                for f in sorted(self.fields, key=lambda x: x.lo)]

    def c_defines(self) -> list[str]:
        """`#define <PREFIX>_<FIELD>_LO/_WIDTH` (+ _FIXED, _UNIT_SHIFT) lines for the C++ side."""
        prefix = self.c_prefix or self.name.upper()
        out = []
        for f in sorted(self.fields, key=lambda x: x.lo):
            key = f"{prefix}_{f.name.upper()}"
            facts = (("LO", f.lo), ("WIDTH", f.width), ("FIXED", f.fixed), ("UNIT_SHIFT", f.unit_shift or None))
            out += [f"#define {key}_{suffix} {value}" for suffix, value in facts if value is not None]
        return out
