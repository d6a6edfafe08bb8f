"""The order in which benches time several implementations of one measurement, and how their
rounds compare."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterator


def interleaved_order(names: list[str], rounds: int) -> Iterator[str]:
    """The implementations in timing order: each once a round, the order reversed every other
    round, so a drift over the measurement (clocks, allocator, host state) falls on both sides
    alike (fmhactl.bench.overhead; bench.model and bench.greedy alternate call by call instead:
    time_side_by_side)."""
    for r in range(rounds):
        yield from (names if r % 2 == 0 else names[::-1])


def time_side_by_side(calls: dict[str, Callable[[], object]], count: int, round_index: int = 0) -> dict[str, list[float]]:
    """CUDA-event ms of `count` calls of every implementation, one call of each in turn, the order
    reversed every call and the first call's order set by round_index (even: as given). Host-bound
    calls (a small model's forward or decode step) see the host's speed drift by tens of percent
    within seconds; calls side by side see the same host (bench.model.time_rounds, the greedy
    rounds of bench.greedy). Call it under torch.inference_mode() where the calls need it."""
    import torch

    names = list(calls)
    events: dict[str, list] = {name: [] for name in names}
    for i in range(count):
        for name in (names if (i + round_index) % 2 == 0 else names[::-1]):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            calls[name]()
            end.record()
            events[name].append((start, end))
    torch.cuda.synchronize()
    return {name: [start.elapsed_time(end) for start, end in pairs] for name, pairs in events.items()}


def round_ratios(per_round: dict[str, list[list[float]]], faster: str = "fmhactl", base: str = "sdpa") -> list[float]:
    """base's median time over faster's, round by round (> 1: `faster` was faster in that round):
    the spread of these says how much of a pooled ratio is the host's drift between rounds."""
    return [statistics.median(b) / statistics.median(f) for f, b in zip(per_round[faster], per_round[base])
            if f and b and statistics.median(f) > 0]
