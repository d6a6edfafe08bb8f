"""`fmhactl bench --overhead` refuses bad input with one line and exit 2 before any GPU work, and
its ratios are op time over baseline time for every measure both sides have."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fmhactl.bench.overhead import _ratios, parse_shapes
from fmhactl.errors import BadInput


def test_default_shape_is_tiny_and_causal():
    (cfg,) = parse_shapes([])
    assert cfg.causal and cfg.batch * cfg.heads * cfg.seq_q * cfg.head_dim <= 1 << 16


@pytest.mark.parametrize("shapes, rule", [
    (["b=1,h=x"], "h must be an integer"),
    (["b=24,h=64,t=8192,s=8192,d=128"], "elements per tensor"),  # 1.5 x 2^30: over the cap
    (["b=1"] * 33, "at most 32 shapes"),
])
def test_bad_shapes_are_refused(shapes, rule):
    with pytest.raises(BadInput, match=rule):
        parse_shapes(shapes)


def test_every_sm90_suite_shape_is_taken():
    """Issue 24 times the op on every shape of the sm90 suite, its b64 T=1 decode row (2^29 elements) too."""
    import tomllib
    from pathlib import Path

    suite = tomllib.loads((Path(__file__).parents[2] / "scenarios/bench/sm90.toml").read_text())["shapes"]
    assert len(parse_shapes(suite)) == len(suite)


@pytest.mark.parametrize("args, rule", [
    (["--overhead", "--iters", "0"], "--iters must be in 1..10000"),
    (["--overhead", "--shape", "b=1,h=x"], "h must be an integer"),
    (["sm90_pingpong", "--overhead"], "give no VARIANT"),
    (["--padded"], "--padded and --greedy need --model"),
])
def test_cli_exit_2_with_one_line(args, rule):
    env = {**os.environ, "FMHACTL_ASSUME_NO_GPU": "1"}
    done = subprocess.run([sys.executable, "-m", "fmhactl", "bench", *args], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 2 and rule in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_ratios_divide_op_by_baseline_where_both_measured():
    impls = {"fmhactl": {"host_us": 30.0, "per_call_us": 40.0}, "sdpa": {"host_us": 20.0, "per_call_us": 40.0},
             "sdpa-cudnn": {"skipped": "no kernel"}}
    assert _ratios(impls) == {"fmhactl/sdpa host_us": 1.5, "fmhactl/sdpa per_call_us": 1.0}


class _Context:
    """A context factory that logs its entries and exits into the shared log."""

    def __init__(self, name: str, log: list) -> None:
        self.name, self.log = name, log

    def __call__(self):
        import contextlib

        @contextlib.contextmanager
        def entered():
            self.log.append(("enter", self.name))
            yield
            self.log.append(("exit", self.name))

        return entered()


def test_overhead_rounds_interleave_the_implementations_each_in_its_own_context():
    """Each round times every implementation once (iters calls, one round each), inside its own
    context only, the order reversed every other round; medians over the rounds; do_bench after."""
    from fmhactl.bench.overhead import measure_interleaved

    log: list = []
    ticks = iter(range(1, 1000))

    def timer(call, iters, rounds):
        assert (iters, rounds) == (20, 1)
        name = call()
        log.append(("timed", name))
        tick = next(ticks)
        return {"host_us": float(tick), "per_call_us": 2.0 * tick}

    def do_bench(call):
        log.append(("do_bench", call()))
        return 9.0

    calls = {name: ((lambda name=name: name), _Context(name, log)) for name in ("fmhactl", "sdpa", "sdpa-cudnn")}
    got = measure_interleaved(calls, iters=20, rounds=4, do_bench=do_bench, timer=timer)
    timed = [entry for entry in log if entry[0] == "timed"]
    assert [name for _, name in timed] == ["fmhactl", "sdpa", "sdpa-cudnn", "sdpa-cudnn", "sdpa", "fmhactl"] * 2
    measured = log[log.index(("enter", "fmhactl"), 2):]  # after the three warm-ups
    for i, entry in enumerate(measured):
        if entry[0] in ("timed", "do_bench"):
            assert measured[i - 1] == ("enter", entry[1]) and measured[i + 1] == ("exit", entry[1])
    assert [entry for entry in log if entry[0] == "do_bench"] == [("do_bench", n) for n in calls]
    assert log.index(("do_bench", "fmhactl")) > log.index(timed[-1])
    # ticks: fmhactl 1, 6, 7, 12 -> median 6.5; sdpa 2, 5, 8, 11 -> 6.5; cudnn 3, 4, 9, 10 -> 6.5
    assert got == {name: {"host_us": 6.5, "per_call_us": 13.0, "do_bench_us": 9.0} for name in calls}


def test_overhead_warms_each_implementation_in_its_context_and_skips_do_bench_without_triton():
    from fmhactl.bench.overhead import measure_interleaved

    log: list = []
    counts = {"a": 0, "b": 0}

    def bump(name):
        counts[name] += 1

    calls = {name: ((lambda name=name: bump(name)), _Context(name, log)) for name in counts}
    got = measure_interleaved(calls, iters=50, rounds=1, timer=lambda call, iters, rounds: {"host_us": 1.0,
                                                                                            "per_call_us": 1.0})
    assert counts == {"a": 5, "b": 5}  # max(3, iters // 10) warm-up calls each; the fake timer calls none
    assert log[:4] == [("enter", "a"), ("exit", "a"), ("enter", "b"), ("exit", "b")]
    assert all("do_bench_us" not in result for result in got.values())


def test_the_general_path_is_measured_with_the_cached_path_off_and_left_on():
    from fmhactl.bench.overhead import _with_fastpath

    states: list = []

    class Fast:
        @staticmethod
        def set_enabled(on):
            states.append(on)

    log: list = []
    with _with_fastpath("fmhactl-general", _Context("g", log), Fast)():
        states.append("inside")
    with _with_fastpath("fmhactl", _Context("f", log), Fast)():
        pass
    assert states == [False, "inside", True, True, True]
    assert log == [("enter", "g"), ("exit", "g"), ("enter", "f"), ("exit", "f")]


def test_sdpa_gets_the_causal_flag_that_means_the_ops_math():
    """Bottom-right causal (the op) is SDPA's top-left is_causal at t == s and no mask at t == 1
    (a decode step); other t < s shapes have no SDPA column, with the reason."""
    from fmhactl.bench.overhead import sdpa_is_causal
    from fmhactl.config import parse_shape

    assert sdpa_is_causal(parse_shape("b=1,h=16,hkv=4,t=1,s=2048,d=64,causal")) is False
    assert sdpa_is_causal(parse_shape("b=1,h=8,t=32,s=32,d=64,causal")) is True
    assert sdpa_is_causal(parse_shape("b=1,h=8,t=32,s=64,d=64")) is False
    assert "top-left" in sdpa_is_causal(parse_shape("b=1,h=8,t=4,s=64,d=64,causal"))


def test_the_decode_bench_takes_causal_shapes_by_the_same_rule():
    """bench --decode reads sdpa_is_causal too: a causal T = 1 step is taken (SDPA with no mask is
    the same math), a causal T > 1 against a longer cache is refused with the alignment reason."""
    from fmhactl.bench.decode import parse_decode_shapes

    (step,) = parse_decode_shapes(["b=1,h=16,hkv=4,t=1,s=2048,d=64,causal"])
    assert step.causal and step.seq_q == 1
    (square,) = parse_decode_shapes(["b=1,h=8,t=16,s=16,d=64,causal"])
    assert square.causal
    with pytest.raises(BadInput, match="top-left"):
        parse_decode_shapes(["b=1,h=16,hkv=4,t=4,s=2048,d=64,causal"])


def test_new_length_calls_alternate_the_kv_length(monkeypatch):
    """fmhactl-new-length: every call sees another KV length (views of one cache, s then s-1), so its
    host time includes what a growing cache pays for a new length."""
    import torch

    import fmhactl.torch as ft
    from fmhactl.bench.overhead import new_length_calls

    seen = []
    monkeypatch.setattr(ft, "attention", lambda q, k, v, causal: seen.append((k.shape[2], v.shape[2], causal,
                                                                               k.data_ptr() == base.data_ptr())))
    base = torch.zeros(2, 4, 9, 8)
    call = new_length_calls(torch.zeros(2, 4, 1, 8), base, base.clone(), True)
    for _ in range(4):
        call()
    assert [s[:3] for s in seen] == [(8, 8, True), (9, 9, True)] * 2
    assert all(s[3] for s in seen)  # views of the same storage, not copies

