"""Shared-memory bank conflicts of one warp-wide access.

Model: 32 banks of 4 bytes. A warp request is served in phases of 128 bytes: all 32 threads for
accesses up to 4 bytes, half-warps for 8 bytes, quarter-warps for 16 bytes. Within a phase, the
wavefronts are the largest number of *distinct* 4-byte words any one bank must deliver (threads
reading the same word share it). Conflicts = wavefronts - phases with an active thread.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from fmhactl.layout.common import LayoutError

BANKS = 32
WIDTHS = (1, 2, 4, 8, 16)


@dataclass(frozen=True)
class WavefrontReport:
    wavefronts: int
    ideal: int
    worst_bank: int | None
    worst_degree: int

    @property
    def conflicts(self) -> int:
        return self.wavefronts - self.ideal

    def as_dict(self) -> dict[str, int | None]:
        return {"wavefronts": self.wavefronts, "ideal": self.ideal, "conflicts": self.conflicts,
                "worst_bank": self.worst_bank, "worst_degree": self.worst_degree}


def threads_per_phase(width: int) -> int:
    if width not in WIDTHS:
        raise LayoutError(f"access width must be one of {WIDTHS} bytes; got {width}")
    return 32 if width <= 4 else 128 // width


@dataclass(frozen=True)
class PhaseReport:
    """One phase of a warp request: the lanes served together and what their banks cost."""

    first_lane: int
    last_lane: int
    wavefronts: int  # largest number of distinct words one bank delivers (0: no active lane)
    worst_bank: int | None
    banks: tuple[tuple[int, int], ...]  # (bank, distinct words) for every bank touched

    @property
    def conflicts(self) -> int:
        return max(self.wavefronts - 1, 0)

    def as_dict(self) -> dict[str, object]:
        return {"lanes": [self.first_lane, self.last_lane], "wavefronts": self.wavefronts,
                "conflicts": self.conflicts, "worst_bank": self.worst_bank}


def phase_reports(addresses: list[int | None], width: int) -> list[PhaseReport]:
    """Per phase of the warp request (lane t accesses `width` bytes at addresses[t]; None = inactive)."""
    if len(addresses) > 32:
        raise LayoutError("a warp has 32 lanes")
    per = threads_per_phase(width)
    out: list[PhaseReport] = []
    for start in range(0, 32, per):
        words_by_bank: dict[int, set[int]] = {}
        for addr in addresses[start:start + per]:
            if addr is None:
                continue
            if addr % width:
                raise LayoutError(f"address 0x{addr:x} is not aligned to the {width}-byte access width")
            for word in range(addr // 4, (addr + width - 1) // 4 + 1):
                words_by_bank.setdefault(word % BANKS, set()).add(word)
        if not words_by_bank:
            out.append(PhaseReport(start, start + per - 1, 0, None, ()))
            continue
        degree = max(len(w) for w in words_by_bank.values())
        worst = max(words_by_bank, key=lambda b: len(words_by_bank[b]))
        out.append(PhaseReport(start, start + per - 1, degree, worst,
                               tuple(sorted((b, len(w)) for b, w in words_by_bank.items()))))
    return out


def wavefronts(addresses: list[int | None], width: int) -> WavefrontReport:
    """Wavefronts for a warp whose lane t accesses `width` bytes at addresses[t] (None = inactive)."""
    total = ideal = 0
    worst_bank, worst = None, 0
    for ph in phase_reports(addresses, width):
        if not ph.wavefronts:
            continue
        ideal += 1
        total += ph.wavefronts
        if ph.wavefronts > worst:
            worst, worst_bank = ph.wavefronts, ph.worst_bank
    return WavefrontReport(total, ideal, worst_bank, worst)


_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Add, ast.Sub, ast.Mult,
            ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor, ast.USub, ast.UAdd,
            ast.Load)


def compile_index_expr(text: str, names: tuple[str, ...] = ("t", "i")) -> ast.Expression:
    """Parse an integer expression over lane `t` and instruction `i` (+ - * // % << >> & | ^)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise LayoutError(f"cannot parse expression {text!r}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Div):
            raise LayoutError(f"{text!r}: use // for integer division")
        if not isinstance(node, _ALLOWED):
            raise LayoutError(f"{text!r}: only integers, {', '.join(names)} and + - * // % << >> & | ^ are allowed")
        if isinstance(node, ast.Name) and node.id not in names:
            raise LayoutError(f"{text!r}: unknown name {node.id!r} (use {', '.join(names)})")
        if isinstance(node, ast.Constant) and not isinstance(node.value, int):
            raise LayoutError(f"{text!r}: only integer constants are allowed")
    return tree


def eval_index_expr(tree: ast.Expression, **values: int) -> int:
    return int(eval(compile(tree, "<index>", "eval"), {"__builtins__": {}}, values))  # noqa: S307 - AST checked
