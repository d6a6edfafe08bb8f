"""C structs declared once in Python: the C text of a generated header and the ctypes twin.

A struct crossing the Python/CUDA line (the launch parameter block, the emulator's records) is a
`CStruct`; `python -m fmhactl.plans --write` renders its C declaration and the runtime builds its
ctypes class with `ctypes_struct`, so both sides follow one field list and cannot drift apart.
Adding a field is one edit: a `CField` in the declaration.
"""

from __future__ import annotations

import ctypes
import itertools
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CType:
    """A scalar C type and its ctypes twin."""

    c: str
    ctypes_type: Any


U32 = CType("unsigned int", ctypes.c_uint32)
U64 = CType("unsigned long long", ctypes.c_uint64)
I32 = CType("int", ctypes.c_int)
I64 = CType("fmha_i64", ctypes.c_int64)  # fmha_params.h typedefs it for NVRTC and host compilers
F32 = CType("float", ctypes.c_float)


def pointer(c: str) -> CType:
    """A device pointer spelled `c` in C (e.g. "const void*"); an address (c_void_p) in ctypes."""
    return CType(c, ctypes.c_void_p)


@dataclass(frozen=True)
class CField:
    """One member. `ctype` is a CType or another CStruct; `count` is an array length (an int, or
    the name of a constant the header defines: `count_value` gives its number to ctypes)."""

    name: str
    ctype: "CType | CStruct"
    comment: str = ""
    count: int | str | None = None
    count_value: int | None = None
    group: int = 0  # consecutive fields of one group share a declaration line (`T a, b, c;`)
    note: str = ""  # comment lines above the member (for what does not fit after it)


@dataclass(frozen=True)
class CStruct:
    name: str
    fields: tuple[CField, ...]
    comment: str = ""  # lines above the struct
    trailing: str = ""  # comment after the opening brace

    @property
    def c(self) -> str:
        return f"struct {self.name}"


def _declarator(field: CField) -> str:
    return f"{field.name}[{field.count}]" if field.count is not None else field.name


def render_c(struct: CStruct) -> list[str]:
    """The struct's C declaration, one member per line (fields of one `group` > 0 share a line)."""
    lines = [f"// {line}" if line else "//" for line in struct.comment.splitlines()]
    head = f"struct {struct.name} {{"
    lines.append(f"{head:<40} // {struct.trailing}" if struct.trailing else head)
    for _, run in itertools.groupby(struct.fields, key=lambda f: f.group or id(f)):
        members = list(run)
        lines += [f"    // {line}" for line in members[0].note.splitlines()]
        decl = f"    {members[0].ctype.c} {', '.join(_declarator(m) for m in members)};"
        comment = next((m.comment for m in reversed(members) if m.comment), "")
        lines.append(f"{decl:<40} // {comment}" if comment else decl)
    lines.append("};")
    return lines


_CTYPES_CACHE: dict[str, type] = {}


def ctypes_struct(struct: CStruct) -> type:
    """The ctypes.Structure class of `struct` (built once per name)."""
    if struct.name in _CTYPES_CACHE:
        return _CTYPES_CACHE[struct.name]
    fields: list[tuple[str, Any]] = []
    for field in struct.fields:
        base = ctypes_struct(field.ctype) if isinstance(field.ctype, CStruct) else field.ctype.ctypes_type
        if field.count is not None:
            length = field.count if isinstance(field.count, int) else field.count_value
            if length is None:
                raise ValueError(f"{struct.name}.{field.name}: array length {field.count!r} needs count_value")
            base = base * length
        fields.append((field.name, base))
    cls = type(struct.name, (ctypes.Structure,), {"_fields_": fields, "__doc__": struct.comment or struct.name})
    _CTYPES_CACHE[struct.name] = cls
    return cls
