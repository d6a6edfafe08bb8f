"""Shared pieces of the layout model: the error type, named problems and element types."""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.errors import BadInput
from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM


class LayoutError(BadInput):
    """Input the model refuses: impossible, out of range, or undocumented behaviour (spec [UNDOC])."""


@dataclass(frozen=True)
class Problem:
    """One named finding of a validator. `severity` is "error" (hardware would misbehave or the
    spec forbids it) or "warning" (legal but suspicious)."""

    code: str
    message: str
    severity: str = "error"

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, "severity": self.severity}


def errors_of(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


SMEM_LIMIT = MAX_DYNAMIC_SMEM  # 227 KiB of shared memory per block on SM100


# Element types the layout tools understand: name -> size in bits.
ELEMENT_BITS: dict[str, int] = {
    "f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "e4m3": 8, "e5m2": 8, "u8": 8, "s8": 8,
    "u16": 16, "s32": 32, "u32": 32,
}
_ALIASES = {"fp16": "f16", "half": "f16", "float16": "f16", "bfloat16": "bf16", "fp32": "f32",
            "float": "f32", "float32": "f32", "tfloat32": "tf32", "fp8": "e4m3", "int8": "s8",
            "uint8": "u8", "int32": "s32", "uint32": "u32", "uint16": "u16"}


def canonical_dtype(name: str) -> str:
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in ELEMENT_BITS:
        raise LayoutError(f"unknown element type {name!r} (known: {', '.join(sorted(ELEMENT_BITS))})")
    return key


def dtype_bytes(name: str) -> int:
    return ELEMENT_BITS[canonical_dtype(name)] // 8


def parse_int(text: str | int, what: str = "value") -> int:
    """Accept 123, 0x7b, 0b1111011, 1_000 and plain ints; refuse anything else."""
    if isinstance(text, int):
        return text
    try:
        return int(str(text).strip().replace("_", ""), 0)
    except ValueError:
        shown = str(text) if len(str(text)) <= 40 else str(text)[:40] + "..."
        raise LayoutError(f"{what}: {shown!r} is not an integer (write 123, 0x7b or 0b1111011)") from None


def parse_int_list(text: str, what: str, *, count: int | None = None, most: int = 16) -> list[int]:
    """The one "A,B" parser of the shells: integers (as parse_int reads them) separated by commas or
    spaces, optionally inside {}, [] or (). `count`: exactly that many (a pair is count=2); else at most
    `most`. Every refusal is a LayoutError (exit 2) naming `what`."""
    if len(text) > 200:
        raise LayoutError(f"{what}: {text[:20]!r}... is too long (at most {count or most} numbers)")
    body = text.strip().strip("{}[]()")
    parts = [x for x in body.replace(" ", ",").split(",") if x.strip()]
    if count is not None and len(parts) != count:
        example = ",".join(str(n) for n in (40, 3, 1, 1, 1)[:count])
        raise LayoutError(f"{what}: write {count} integers separated by a comma, e.g. {example}; got {text!r}")
    if len(parts) > most:
        raise LayoutError(f"{what}: {len(parts)} entries; at most {most}")
    return [parse_int(x, what) for x in parts]

