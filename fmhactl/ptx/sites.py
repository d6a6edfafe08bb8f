"""Naming the PTX path's report sites: a PTX line, its `.loc` source line and the inline chain.

The PTX path reports every emulator event and rule at the line of the original PTX (the rewriter
passes it as `site`). NVRTC's `-lineinfo` PTX writes, before each instruction, the `.loc` of the
innermost source line and `inlined_at` the call site one level out; the call site's own `.loc`
(with its own `inlined_at`) comes just before it:

    .loc 2 519 9, function_name $L__info_string0, inlined_at 1 6 1     fmha_sm100.cuh:519, in the kernel
    .loc 5 18 5, function_name $L__info_string6, inlined_at 2 519 9    mbarrier.cuh:18, inlined there
    mbarrier.init.shared::cta.b64 [%r78], %r79;

so the chain of one PTX line is read backwards from it: mbarrier.cuh:18 <- fmha_sm100.cuh:519 <-
fmha_sm100.cu:6. `fmhactl trace --emulate native` names barriers and MMAs by the chain's line in
the kernel source, as the tc5:: build's `__builtin_LINE()` sites do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fmhactl.ptx.parser import PtxModule, SourceLine

_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
_FUNCTION_START = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(?:entry|func)\b")
MAX_CHAIN = 32  # inline depth read at most (a cycle in malformed PTX ends there)


@dataclass(frozen=True)
class Site:
    """One PTX line and the source lines it comes from, innermost first."""

    ptx_line: int
    chain: tuple[SourceLine, ...]

    @property
    def source(self) -> SourceLine | None:
        return self.chain[0] if self.chain else None

    def line_in(self, file_suffix: str) -> int | None:
        """The innermost line of the chain in a file whose path ends with file_suffix."""
        for loc in self.chain:
            if loc.file == file_suffix or loc.file.endswith("/" + file_suffix):
                return loc.line
        return None

    def __str__(self) -> str:
        where = " <- ".join(f"{loc.file.rsplit('/', 1)[-1]}:{loc.line}" for loc in self.chain)
        return f"PTX line {self.ptx_line}" + (f" ({where})" if where else "")

    def to_dict(self) -> dict:
        return {"ptx_line": self.ptx_line, "source": [str(loc) for loc in self.chain]}


def site(module: PtxModule, ptx_line: int) -> Site:
    """The site of a PTX line (1-based): the `.loc` in force there and its inline chain. A line
    outside the module, or one with no `.loc` before it in its function, has an empty chain."""
    if not 1 <= ptx_line <= len(module.lines):
        return Site(ptx_line, ())
    index = _loc_before(module, ptx_line - 1, None)
    chain: list[SourceLine] = []
    while index is not None and len(chain) < MAX_CHAIN:
        m = _LOC.match(module.lines[index])
        assert m is not None
        chain.append(SourceLine(_file(module, m.group(1)), int(m.group(2))))
        if not m.group(4):
            break
        index = _loc_before(module, index, (m.group(4), m.group(5), m.group(6)))
    return Site(ptx_line, tuple(chain))


def _file(module: PtxModule, number: str) -> str:
    return module.files.get(int(number), f"file{number}")


def _loc_before(module: PtxModule, index: int, wanted: tuple[str, str, str] | None) -> int | None:
    """Index of the nearest `.loc` above line index, in the same function: any `.loc`, or the one
    at file/line/column `wanted`."""
    for i in range(index - 1, -1, -1):
        text = module.lines[i]
        if _FUNCTION_START.match(text):
            return None
        m = _LOC.match(text)
        if m and (wanted is None or (m.group(1), m.group(2), m.group(3)) == wanted):
            return i
    return None
