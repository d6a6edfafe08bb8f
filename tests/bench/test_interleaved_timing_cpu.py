"""fmhactl.bench.model.time_interleaved: every implementation gets the same number of timed calls,
one call of each in turn, the order reversed every call (so drift over the measurement falls on
all alike).
CUDA events are replaced by a counter: this checks the schedule, it times nothing."""

from __future__ import annotations

import pytest
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


def test_calls_alternate_one_by_one(monkeypatch):
    monkeypatch.setattr(torch.cuda, "Event", _FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    order: list[str] = []
    calls = {name: (lambda name=name: order.append(name)) for name in ("sdpa", "fmhactl")}
    times = model.time_interleaved(calls, warmup=2, iters=10, rounds=5)
    assert order[:4] == ["sdpa", "sdpa", "fmhactl", "fmhactl"]  # warm-up, each alone
    timed = order[4:]
    # 5 rounds of 2 calls each: round r starts with sdpa when r is even, and every call flips the order
    one_round = {0: ["sdpa", "fmhactl", "fmhactl", "sdpa"], 1: ["fmhactl", "sdpa", "sdpa", "fmhactl"]}
    assert timed == one_round[0] + one_round[1] + one_round[0] + one_round[1] + one_round[0]
    assert {name: len(t) for name, t in times.items()} == {"sdpa": 10, "fmhactl": 10}
    assert all(t == sorted(t) and all(x == 1.0 for x in t) for t in times.values())  # one tick between events


def test_interleaved_order_reverses_every_other_round():
    from fmhactl.bench.interleave import interleaved_order

    assert list(interleaved_order(["sdpa", "fmhactl"], 3)) == ["sdpa", "fmhactl", "fmhactl", "sdpa", "sdpa", "fmhactl"]


def test_round_ratios_compare_the_implementations_round_by_round(monkeypatch):
    """time_rounds keeps each round's times apart; round_ratios is sdpa's median over fmhactl's per
    round, so a drift between rounds (here every call of round r takes r + 1 ticks longer) leaves
    each round's ratio to the implementations alone."""
    monkeypatch.setattr(torch.cuda, "Event", _FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    cost = {"sdpa": 3, "fmhactl": 2}
    state = {"calls": 0}

    def call(name: str) -> None:
        state["calls"] += 1
        drift = (state["calls"] - 1) // 4  # 2 implementations x 2 calls a round: the round index
        _FakeEvent.clock += cost[name] + 10 * drift - 1  # record() adds the last tick

    calls = {name: (lambda name=name: call(name)) for name in ("sdpa", "fmhactl")}
    per_round = model.time_rounds(calls, warmup=0, iters=6, rounds=3)
    assert [len(r) for r in per_round["sdpa"]] == [2, 2, 2]
    ratios = model.round_ratios(per_round)
    assert ratios == [3 / 2, 13 / 12, 23 / 22]
    pooled = model.time_interleaved(calls, warmup=0, iters=6, rounds=3)
    assert {name: len(t) for name, t in pooled.items()} == {"sdpa": 6, "fmhactl": 6}


class _FakeModel:
    """A causal LM stand-in: logits favour token `bias`, each step costs `cost` clock ticks."""

    def __init__(self, name: str, cost: int, order: list[str]):
        self.name, self.cost, self.order = name, cost, order

    def __call__(self, ids, past_key_values=None, use_cache=True):
        from types import SimpleNamespace

        if past_key_values is not None:  # a decode step (the prefill is not timed)
            self.order.append(self.name)
            _FakeEvent.clock += self.cost - 1  # record() adds the last tick
        logits = torch.zeros(ids.shape[0], ids.shape[1], 8)
        logits[..., 3] = 1.0
        return SimpleNamespace(logits=logits, past_key_values=(past_key_values or 0) + 1)


def test_greedy_rounds_alternate_the_implementations_step_by_step(monkeypatch):
    """bench.greedy._interleaved_round: one step of each implementation in turn, the order
    reversed every step (and the first step's order by round), each one's ticks summed."""
    from fmhactl.bench import greedy

    monkeypatch.setattr(torch.cuda, "Event", _FakeEvent)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    order: list[str] = []
    models = {"sdpa": _FakeModel("sdpa", 3, order), "fmhactl": _FakeModel("fmhactl", 2, order)}
    ids = torch.zeros(1, 5, dtype=torch.long)
    seconds = greedy._interleaved_round(models, ids, tokens=3, round_index=0)
    assert order == ["sdpa", "fmhactl", "fmhactl", "sdpa", "sdpa", "fmhactl"]
    assert seconds == pytest.approx({"sdpa": 3 * 3e-3, "fmhactl": 3 * 2e-3})  # ticks read as ms
    order.clear()
    greedy._interleaved_round(models, ids, tokens=2, round_index=1)
    assert order == ["fmhactl", "sdpa", "sdpa", "fmhactl"]
