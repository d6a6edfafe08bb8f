"""Ranges and size caps every layout service checks before doing any work."""

from __future__ import annotations

from fmhactl.layout.common import LayoutError, Problem

# Caps checked before any work: a typo must never make a command run for minutes.
MAX_WARP = 31  # 1024 threads per CTA
MAX_TILE_ROWS = 4096
MAX_TILE_COLS = 4096
MAX_TILE_ELEMENTS = 1 << 18  # 256 Ki elements: more than 227 KiB of the smallest element type
MAX_REPEAT = 1024
MAX_U32 = 0xFFFFFFFF
MAX_SMEM_ADDR = 1 << 18  # the descriptor's start field reaches 256 KiB


def _range(what: str, value: int, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LayoutError(f"{what} must be an integer; got {value!r}")
    if not lo <= value <= hi:
        raise LayoutError(f"{what} must be in {lo}..{hi}; got {value}")
    return value


def _problems(items: list[Problem]) -> tuple[Problem, ...]:
    return tuple(items)
