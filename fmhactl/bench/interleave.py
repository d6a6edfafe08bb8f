"""The order in which benches time several implementations of one measurement, and how their
rounds compare."""

from __future__ import annotations

import statistics
from collections.abc import Iterator


def interleaved_order(names: list[str], rounds: int) -> Iterator[str]:
    """The implementations in timing order: each once a round, the order reversed every other
    round, so a drift over the measurement (clocks, allocator, host state) falls on both sides
    alike (fmhactl.bench.overhead; bench.model and bench.greedy alternate call by call instead)."""
    for r in range(rounds):
        yield from (names if r % 2 == 0 else names[::-1])


def round_ratios(per_round: dict[str, list[list[float]]], faster: str = "fmhactl", base: str = "sdpa") -> list[float]:
    """base's median time over faster's, round by round (> 1: `faster` was faster in that round):
    the spread of these says how much of a pooled ratio is the host's drift between rounds."""
    return [statistics.median(b) / statistics.median(f) for f, b in zip(per_round[faster], per_round[base])
            if f and b and statistics.median(f) > 0]
