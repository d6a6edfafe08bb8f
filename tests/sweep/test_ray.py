"""The Ray path on a local cluster (CPU only): builds and the CPU self-test through the same
scheduler as the local path, identical results, and a Ray worker killed mid-sweep losing nothing.

One cluster for the module: Ray's start-up is the expensive part on a 2-core machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402
from fmhactl.results.store import ResultStore  # noqa: E402
from fmhactl.sweep.ray_backend import local_runtime_env  # noqa: E402
from fmhactl.sweep.service import Placement, sweep_selftest  # noqa: E402
from fmhactl.verify.grids import load_grid  # noqa: E402

pytestmark = pytest.mark.slow
NAMES = ["cpu_selftest", "cpu_selftest_fault"]


@pytest.fixture(scope="module")
def cluster(_session_home):
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env=local_runtime_env(Path(_session_home)))
    yield
    ray.shutdown()


def _verdicts(rows):
    return [(r.variant, r.config_key, r.status, r.seed, r.metrics.get("checksum")) for r in rows]


def test_cpu_sweep_through_ray_matches_the_local_path(cluster):
    configs = list(load_grid("smoke").configs)
    local, _ = sweep_selftest(NAMES, configs, store=None, placement=Placement(jobs=2), timeout_s=10.0, seed=11)
    with ResultStore() as store:
        remote, run = sweep_selftest(NAMES, configs, store=store, placement=Placement(ray="local"),
                                     timeout_s=10.0, seed=11)
        assert len(store.query(session=remote.session)) == len(NAMES) * len(configs)
    assert _verdicts(remote.rows) == _verdicts(local.rows)
    assert remote.closing_line() == "7 passed, 0 failed, 1 crashed"
    assert run.backend == "ray" and all(s["placement"].get("node") for s in run.throughput())


def _build_identity(records: list[dict]) -> list[tuple]:
    return sorted((r["variant"], r["arch"], r["emulated"], r["cache_key"], r["source_hash"],
                   json.dumps(r["kernels"], sort_keys=True), hashlib.sha256(Path(r["cubin"]).read_bytes()).hexdigest())
                  for r in records)


# Every kind of build target: a portable variant on three archs, a native SM90 one, and an SM100 one
# built natively and emulated on sm_90a. Not --all: building the whole family here took about 2 of
# CI's 20 minutes (session 29); tests/scenario's CPU scenario builds it all once.
RAY_VARIANTS = ["ref", "sm90_pipelined", "sm100_direct_tmem"]


def test_build_through_ray_matches_the_local_parallel_build(cluster):
    runner = CliRunner()
    local = runner.invoke(app, ["build", *RAY_VARIANTS, "--jobs", "2", "--json"])
    assert local.exit_code == 0, local.output
    remote = runner.invoke(app, ["build", *RAY_VARIANTS, "--ray", "local", "--json"])
    assert remote.exit_code == 0, remote.output
    local_records, remote_records = json.loads(local.stdout), json.loads(remote.stdout)
    assert {r["variant"] for r in local_records} == set(RAY_VARIANTS)
    assert {(r["variant"], r["arch"], r["emulated"]) for r in local_records} >= {
        ("ref", "sm_90a", False), ("ref", "sm_100a", False), ("sm90_pipelined", "sm_90a", False),
        ("sm100_direct_tmem", "sm_100a", False), ("sm100_direct_tmem", "sm_90a", True)}
    assert _build_identity(remote_records) == _build_identity(local_records)
    with ResultStore() as store:
        builds = store.query(kind="build", limit=2 * len(local_records))
    assert {r.status for r in builds} == {"OK"}


def test_ray_builds_are_shipped_back_to_the_driver_by_content(cluster, tmp_path, monkeypatch, _session_home):
    """The actors build in the cluster's cache; the driver (another home) receives the cubins, hash-checked."""
    from fmhactl.sweep.builds import build_parallel

    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "driver"))
    results, _ = build_parallel(["ref"], ray="local", force=True)
    assert results
    for r in results:
        assert r.cubin_path.is_relative_to(tmp_path / "driver")  # adopted into the driver's own cache
        built_there = Path(_session_home) / r.cubin_path.relative_to(tmp_path / "driver")
        assert built_there.read_bytes() == r.cubin_path.read_bytes()
        assert r.cubin_path.with_suffix(".json").is_file()


def test_a_ray_worker_killed_mid_sweep_loses_nothing(cluster):
    configs = list(load_grid("smoke").configs)
    killed: list[int] = []

    def kill_soon(done, total, row, label) -> None:
        if killed:
            return
        pid = row.metrics["placement"]["pid"]
        killed.append(pid)
        # The actor that just answered has already taken its next config (each takes ~1 s): kill it mid-run.
        threading.Timer(0.3, os.kill, args=(pid, signal.SIGKILL)).start()

    with ResultStore() as store:
        summary, run = sweep_selftest(NAMES, configs, store=store, placement=Placement(ray="local"), timeout_s=20.0,
                                      seed=11, delay_s=1.0, on_progress=kill_soon)
        stored = store.query(session=summary.session)
    assert killed
    assert run.retried >= 1 and run.lost == 0  # the killed actor's config ran again elsewhere
    assert len(stored) == len(NAMES) * len(configs)  # one row per config: nothing lost, nothing twice
    assert sorted((r.variant, r.config_key) for r in stored) == sorted((r.variant, r.config_key) for r in summary.rows)
    assert summary.closing_line() == "7 passed, 0 failed, 1 crashed"
    pids = {r.metrics["placement"]["pid"] for r in summary.rows}
    assert killed[0] in pids and len(pids) >= 2


def test_a_gpu_job_cubin_is_shipped_to_the_actor_by_content(cluster, tmp_path, _session_home):
    """What a GPU job's cubin goes through, on a CPU actor: put once, fetched by hash, checked, rewritten."""
    from fmhactl.sweep.ray_backend import RayBackend, RaySlot

    cubin = tmp_path / "driver-only" / "k.cubin"
    cubin.parent.mkdir()
    cubin.write_bytes(os.urandom(4096))
    sha = hashlib.sha256(cubin.read_bytes()).hexdigest()
    backend = RayBackend("local", kind="cpu", count=1, timeout_s=30.0)
    slot = RaySlot(backend, "t")
    try:
        slot.start()
        first = slot.run({"op": "cubin_sha256", "cubin": str(cubin)})
        second = slot.run({"op": "cubin_sha256", "cubin": str(cubin)})
    finally:
        slot.close()
        backend.close()
    assert first["status"] == "OK" and first["metrics"]["sha256"] == sha
    assert first["metrics"]["path"] == str(Path(_session_home) / "shipped" / f"{sha}.cubin")
    assert second["metrics"] == first["metrics"] and len(backend._shipped) == 1  # put in the store once
