"""The peer baselines (fmhactl/bench/peers.py) as the bench sees them without a GPU: a missing
package or an unsupported feature is `available: False` with one line why, never an exception;
the names are known to the service, the scenario schema and the CLI; tables name them plainly."""

from __future__ import annotations

import importlib
import typing

import pytest

from fmhactl.bench import peers
from fmhactl.config import parse_shape
from fmhactl.records import BaselineTiming

torch = pytest.importorskip("torch")


@pytest.fixture
def nothing_installed(monkeypatch):
    """importlib.import_module fails for either peer's package, as on a machine without them."""
    real = importlib.import_module

    def fake(name, *args, **kwargs):
        if name.split(".")[0] in ("flash_attn", "flashinfer"):
            raise ModuleNotFoundError(f"No module named {name.split('.')[0]!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", fake)


@pytest.mark.parametrize("name, package", [("fa4", "flash-attn-4"), ("flashinfer", "flashinfer-python")])
def test_a_missing_package_is_unavailable_with_the_reason(nothing_installed, name, package):
    with pytest.raises(peers.PeerUnavailable, match="not importable") as caught:
        peers.prepare(name, parse_shape("b=1,h=2,t=8,s=8,d=64"))
    reason = str(caught.value)
    assert package in reason and "\n" not in reason and len(reason) <= peers.REASON_CHARS


@pytest.mark.parametrize("name", peers.PEER_BASELINES)
def test_the_bench_reports_a_missing_peer_and_goes_on(nothing_installed, name):
    """bench.job's timing of a peer returns available False (the reference is not even computed)."""
    from fmhactl.bench.job import _time_peer

    cfg = parse_shape("b=1,h=2,t=8,s=8,d=64,causal")
    q, k = torch.zeros(1, 8, 2, 64, dtype=torch.bfloat16), torch.zeros(1, 8, 2, 64, dtype=torch.bfloat16)
    references: list = []
    result = _time_peer(name, cfg, [(q, k, k, None, None)], 1, 1, 0, cfg.flops, references)
    assert result["available"] is False and "not importable" in result["reason"]
    assert references == []


@pytest.mark.parametrize("shape, name, fragment", [
    ("b=1,h=2,t=8,s=64,d=64,topk=8", "fa4", "top-k"),
    ("b=1,h=2,t=8,s=64,d=64,topk=8", "flashinfer", "top-k"),
    ("b=2,h=2,t=8,s=64,d=64,kvr", "fa4", "key ranges"),
    ("b=2,h=2,t=8,s=64,d=64,kvr", "flashinfer", "key ranges"),
    ("b=1,h=2,t=8,s=64,d=64,wl=4,wr=3", "flashinfer", "left side only"),
])
def test_features_a_peer_lacks_are_refused_before_any_import(nothing_installed, shape, name, fragment):
    with pytest.raises(peers.PeerUnavailable, match=fragment):
        peers.prepare(name, parse_shape(shape))


@pytest.mark.parametrize("shape, name", [
    ("b=1,h=2,t=8,s=64,d=64,wl=4,wr=3", "fa4"),  # FA4's window has both sides
    ("b=1,h=4,hkv=2,t=8,s=64,d=64,causal,wl=16,sink,kvshared", "fa4"),
    ("b=1,h=4,hkv=2,t=8,s=64,d=64,causal,wl=16,sink,kvshared", "flashinfer"),
    ("b=1,h=2,t=8,s=64,d=64,wl=4", "flashinfer"),  # left window, unbounded right
])
def test_features_a_peer_has_are_not_refused(shape, name):
    assert peers.unsupported_reason(name, parse_shape(shape)) is None


def test_a_sink_config_without_its_sinks_is_refused():
    with pytest.raises(peers.PeerUnavailable, match="sinks"):
        peers.prepare("fa4", parse_shape("b=1,h=2,t=8,s=8,d=64,sink"))


def test_the_names_are_known_to_the_service_the_schema_and_the_tables():
    from fmhactl.bench.service import KNOWN_BASELINES
    from fmhactl.schemas import BenchStep

    assert set(peers.PEER_BASELINES) <= set(KNOWN_BASELINES)
    literal = typing.get_args(BenchStep.model_fields["baseline"].annotation)
    assert set(literal) == set(KNOWN_BASELINES)
    for name in peers.PEER_BASELINES:
        step = BenchStep.model_validate({"type": "bench", "variant": "ref", "shapes": ["d=64"], "baseline": name})
        assert step.baseline == name
        assert BaselineTiming(name=name, available=False).label == name
    assert BaselineTiming(name="cudnn", available=False).label == "sdpa/cudnn"


@pytest.mark.parametrize("name", peers.PEER_BASELINES)
def test_the_cli_takes_a_peer_baseline(monkeypatch, name):
    """--baseline fa4 / flashinfer pass the name checks and reach the GPU check (stopped there)."""
    from typer.testing import CliRunner

    import fmhactl.services.kernels as kernels
    from fmhactl.cli.app import app
    from fmhactl.errors import MissingEnvironment

    def stop():
        raise MissingEnvironment("stopped at the GPU check")

    monkeypatch.setattr(kernels, "require_gpu", stop)
    result = CliRunner().invoke(app, ["bench", "ref", "--shape", "d=64", "--baseline", "cudnn", "--baseline", name])
    assert "stopped at the GPU check" in result.stderr, result.output
    assert "unknown baseline" not in result.output


def test_a_peers_reason_is_one_short_line():
    reason = peers.one_line(RuntimeError("first\nsecond " + "x" * 500))
    assert reason.startswith("RuntimeError: first") and "\n" not in reason and len(reason) <= peers.REASON_CHARS


def test_the_decode_bench_lists_missing_peers_as_skipped(nothing_installed):
    """bench --decode's peer entries: the reason instead of a call when a package is missing."""
    from fmhactl.bench.decode import IMPLS, _peer_calls

    cfg = parse_shape("b=1,h=4,hkv=1,t=1,s=64,d=64")
    q, k = torch.zeros(1, 4, 1, 64, dtype=torch.bfloat16), torch.zeros(1, 1, 64, 64, dtype=torch.bfloat16)
    calls = _peer_calls(cfg, q, k, k)
    assert set(calls) == set(peers.PEER_BASELINES) <= set(IMPLS)
    assert all(isinstance(why, str) and "not importable" in why for why in calls.values())
