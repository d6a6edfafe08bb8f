"""fmhactl.bench.model.time_interleaved: every implementation gets the same number of timed calls,
in rounds that alternate which one goes first (so drift over the measurement falls on all alike).
CUDA events are replaced by a counter: this checks the schedule, it times nothing."""

from __future__ import annotations

import torch

from fmhactl.bench import model


class _FakeEvent:
    clock = 0

    def __init__(self, enable_timing: bool = False):
        self.at = None

    def record(self):
        _FakeEvent.clock += 1
        self.at = _FakeEvent.clock

    def elapsed_time(self, end) -> float:
        return float(end.at - self.at)


def test_calls_are_interleaved_in_alternating_rounds(monkeypatch):
    monkeypatch.setattr(torch.cuda, "Event", _FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    order: list[str] = []
    calls = {name: (lambda name=name: order.append(name)) for name in ("sdpa", "fmhactl")}
    times = model.time_interleaved(calls, warmup=2, iters=10, rounds=5)
    assert order[:4] == ["sdpa", "sdpa", "fmhactl", "fmhactl"]  # warm-up, each alone
    timed = order[4:]
    assert timed == (["sdpa"] * 2 + ["fmhactl"] * 2 + ["fmhactl"] * 2 + ["sdpa"] * 2) * 2 + ["sdpa"] * 2 + ["fmhactl"] * 2
    assert {name: len(t) for name, t in times.items()} == {"sdpa": 10, "fmhactl": 10}
    assert all(t == sorted(t) and all(x == 1.0 for x in t) for t in times.values())  # one tick between events


def test_interleaved_order_reverses_every_other_round():
    from fmhactl.bench.interleave import interleaved_order

    assert list(interleaved_order(["sdpa", "fmhactl"], 3)) == ["sdpa", "fmhactl", "fmhactl", "sdpa", "sdpa", "fmhactl"]
