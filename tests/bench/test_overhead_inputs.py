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
