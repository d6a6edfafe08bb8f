"""The order in which benches time several implementations of one measurement."""

from __future__ import annotations

from collections.abc import Iterator


def interleaved_order(names: list[str], rounds: int) -> Iterator[str]:
    """The implementations in timing order: each once a round, the order reversed every other
    round, so a drift over the measurement (clocks, allocator, host state) falls on both sides
    alike (bench.model.time_interleaved, the greedy runs of bench.greedy)."""
    for r in range(rounds):
        yield from (names if r % 2 == 0 else names[::-1])
