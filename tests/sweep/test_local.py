"""The local multi-device scheduler with simulated GPUs and the CPU self-test (no GPU needed).

The simulated GPUs are stand-in kernel workers that speak the real worker protocol; the
sweep code under test (tasks, scheduler, local backend, builds, store) is the real one.
"""

from __future__ import annotations

import os
import sys
import textwrap
import threading

import pytest

from fmhactl.config import AttnConfig
from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.sweep.devices import Device, cpu_slots
from fmhactl.sweep.local import LocalBackend
from fmhactl.sweep.scheduler import run_sweep
from fmhactl.sweep.service import Placement, kernel_tasks, sweep_selftest
from fmhactl.verify.grids import load_grid

FAKE_GPU_WORKER = textwrap.dedent("""
    import json, os, sys, time
    pin = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    print(json.dumps({"hello": True, "gpu": "Fake GPU " + pin, "cc": [9, 0], "driver": "fake"}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        seq_q = job["config"]["seq_q"]
        if job["variant"] == "selftest_fault" and seq_q == 3:
            print("illegal address (simulated)", file=sys.stderr, flush=True)
            os._exit(139)
        if job["variant"] == "selftest_hang" and seq_q == 3:
            time.sleep(600)
        time.sleep(0.02 * (job["seed"] % 3))  # uneven durations, so completion order differs from index order
        print(json.dumps({"id": job["id"], "status": "PASS",
                          "metrics": {"pid": os.getpid(), "pinned": pin, "seed": job["seed"],
                                      "layout": job.get("layout")}}), flush=True)
""")


def _fake_gpus(n: int) -> list[Device]:
    return [Device("gpu", i, f"Fake GPU GPU-fake-{i}", f"GPU-fake-{i}") for i in range(n)]


@pytest.fixture
def fake_worker(tmp_path):
    script = tmp_path / "fake_gpu_worker.py"
    script.write_text(FAKE_GPU_WORKER)
    return lambda device: [sys.executable, str(script)]


class WriterSpy(ResultStore):
    """Records which process and thread wrote each row: the parent's main thread must be the only one."""

    writers: set

    def add(self, row):  # type: ignore[override]
        self.writers.add((os.getpid(), threading.current_thread().name))
        return super().add(row)


def test_simulated_gpus_keep_order_isolate_crash_and_hang_and_write_once(tmp_path, fake_worker):
    variants = [get_variant(n) for n in ("ref", "selftest_fault", "selftest_hang")]
    configs = list(load_grid("smoke").configs)
    tasks = kernel_tasks("verify", variants, configs, seed=1000, session="s-test")
    backend = LocalBackend(_fake_gpus(3), timeout_s=2.0, command=fake_worker)
    with WriterSpy(tmp_path / "r.sqlite") as store:
        store.writers = set()
        printed = []
        run = run_sweep(tasks, backend, store=store, on_result=printed.append)
        stored = store.query(session="s-test", newest_first=False)
    assert store.writers == {(os.getpid(), "MainThread")}
    assert len(stored) == len(tasks) == 3 * len(configs)
    # Output in the one-GPU order, whatever order the slots finished in.
    assert [(r.variant, r.config_key) for r in printed] == [(v.name, c.key) for v in variants for c in configs]
    assert printed == run.rows
    by = {(r.variant, r.config["seq_q"], r.config_key): r for r in run.rows}
    statuses = {k: r.status for k, r in by.items()}
    for (variant, seq_q, _), status in statuses.items():
        planted = {"selftest_fault": "CRASH", "selftest_hang": "HANG"}.get(variant)
        expected = planted if planted and seq_q == 3 else "PASS"
        assert status == expected, (variant, seq_q, status)
    crash = next(r for r in run.rows if r.status == "CRASH")
    assert "simulated" in crash.metrics["error"]
    # Seeds and layouts as the one-GPU path gives them: seed + config index, layouts alternating.
    for r in run.rows:
        if r.status == "PASS":
            i = [c.key for c in configs].index(r.config_key)
            assert r.metrics["seed"] == 1000 + i and r.seed == 1000 + i
            assert r.metrics["layout"] == ("bhtd" if i % 2 else "bthd")
            # Each worker was pinned to the GPU its row names.
            assert r.metrics["pinned"] == r.metrics["placement"]["uuid"]
            assert r.gpu == "Fake GPU " + r.metrics["placement"]["uuid"]
    used = {r.metrics["placement"]["index"] for r in run.rows if "placement" in r.metrics}
    assert len(used) >= 2  # the work really was spread
    assert sum(s.configs for s in run.slots) == len(tasks)


def test_a_slot_that_cannot_restart_loses_its_config_to_another_slot(tmp_path):
    """A device whose worker dies and will not come back: its config runs elsewhere, nothing dropped."""
    script = tmp_path / "flaky.py"
    marker = tmp_path / "gpu1-died"
    script.write_text(textwrap.dedent(f"""
        import json, os, sys, time
        pin = os.environ["CUDA_VISIBLE_DEVICES"]
        if pin == "GPU-fake-1" and os.path.exists({str(marker)!r}):
            print(json.dumps({{"hello": True, "gpu": None, "reason": "fell off the bus"}}), flush=True)
            sys.exit(0)
        print(json.dumps({{"hello": True, "gpu": "Fake", "cc": [9, 0]}}), flush=True)
        for line in sys.stdin:
            job = json.loads(line)
            if pin == "GPU-fake-1":
                open({str(marker)!r}, "w").close()
                os._exit(1)
            for _ in range(600):  # GPU 0 answers only once GPU 1 has died: GPU 1 surely takes a config
                if os.path.exists({str(marker)!r}):
                    break
                time.sleep(0.05)
            print(json.dumps({{"id": job["id"], "status": "PASS"}}), flush=True)
    """))
    # The first job on GPU 1 is a CRASH (the worker died); the next restart fails: the slot is lost.
    tasks = kernel_tasks("verify", [get_variant("ref")], list(load_grid("smoke").configs), seed=1, session="s2")
    backend = LocalBackend(_fake_gpus(2), timeout_s=60.0, command=lambda d: [sys.executable, str(script)])
    with ResultStore(tmp_path / "r.sqlite") as store:
        run = run_sweep(tasks, backend, store=store)
        assert len(store.query(session="s2")) == len(tasks)
    statuses = [r.status for r in run.rows]
    assert statuses.count("CRASH") == 1 and statuses.count("PASS") == len(tasks) - 1
    assert run.retried <= 1 and run.lost == 0


def test_cpu_selftest_isolates_planted_faults_and_matches_one_slot(tmp_path):
    configs = list(load_grid("smoke").configs)
    names = ["cpu_selftest", "cpu_selftest_fault", "cpu_selftest_hang"]
    results = {}
    for jobs in (1, 2):
        with ResultStore(tmp_path / f"r{jobs}.sqlite") as store:
            summary, run = sweep_selftest(names, configs, store=store, placement=Placement(jobs=jobs),
                                          timeout_s=5.0, seed=7)
            assert len(store.query(session=summary.session)) == len(names) * len(configs)
        results[jobs] = [(r.variant, r.config_key, r.status, r.metrics.get("checksum")) for r in summary.rows]
        assert summary.closing_line() == "10 passed, 0 failed, 1 crashed, 1 hung"
    assert results[1] == results[2]
    assert all(c for v, _, s, c in results[2] if s == "PASS")


def test_cpu_slots_are_hidden_from_gpus():
    assert cpu_slots(2)[1].pin_env() == {"CUDA_VISIBLE_DEVICES": ""}
    assert _fake_gpus(1)[0].pin_env() == {"CUDA_VISIBLE_DEVICES": "GPU-fake-0"}


class _Gone(Exception):
    pass


def test_a_config_whose_slots_keep_dying_is_reported_not_dropped():
    """Pure scheduler: every slot that runs config 1 is lost; after the retries it is recorded as lost."""
    from fmhactl.results.store import ResultRow
    from fmhactl.sweep.scheduler import Backend, Slot, SlotLost, SweepTask

    class Task(SweepTask):
        def __init__(self, index):
            self.index = index

        def prepare(self, hello):
            return {"i": self.index}

        def finish(self, reply, hello):
            return ResultRow(kind="selftest", variant="t", arch="", mode="", status=reply["status"],
                             config_key=str(self.index))

        def lost(self, reason):
            return ResultRow(kind="selftest", variant="t", arch="", mode="", status="ERROR",
                             config_key=str(self.index), metrics={"error": reason, "lost": True})

    class FlakySlot(Slot):
        def __init__(self, n):
            self.label, self.hello = f"s{n}", {}

        def start(self):
            self.hello = {"placement": {"index": 0}}
            return self.hello

        def run(self, job):
            if job["i"] == 1:
                raise SlotLost("node went away")
            return {"status": "PASS"}

        def close(self):
            pass

    class Flaky(Backend):
        name = "fake"
        made = 0

        def open_slots(self):
            self.made += 2
            return [FlakySlot(0), FlakySlot(1)]

        def replace(self, lost):
            self.made += 1
            slot = FlakySlot(self.made)
            slot.start()
            return slot

    backend = Flaky()
    run = run_sweep([Task(i) for i in range(5)], backend, store=None, max_attempts=3)
    assert [r.config_key for r in run.rows] == ["0", "1", "2", "3", "4"]
    assert [r.status for r in run.rows] == ["PASS", "ERROR", "PASS", "PASS", "PASS"]
    assert "lost 3 times" in run.rows[1].metrics["error"] and run.rows[1].metrics["lost"]
    assert run.retried == 2 and run.lost == 1 and backend.made == 5


def test_cli_rejects_bad_placements_with_one_line():
    from typer.testing import CliRunner

    from fmhactl.cli.app import app

    runner = CliRunner()
    for args, code, text in ((["--gpus", "0,0"], 2, "appears twice"), (["--gpus", "two"], 2, "expected all"),
                             (["--gpus", "0,1", "--ray", "local"], 2, "takes all or a count")):
        result = runner.invoke(app, ["verify", "ref", "--grid", "smoke", *args])
        assert result.exit_code == code, result.output
        assert text in result.output and "Traceback" not in result.output


def test_bare_ray_means_a_local_cluster():
    from fmhactl.cli.argv import optional_option_values

    assert optional_option_values(["verify", "--ray", "ref"]) == ["verify", "--ray", "local", "ref"]
    assert optional_option_values(["build", "--all", "--ray"]) == ["build", "--all", "--ray", "local"]
    assert optional_option_values(["bench", "--ray", "--gpus", "2"])[2] == "local"
    assert optional_option_values(["verify", "--ray", "10.0.0.1:6379", "ref"])[2] == "10.0.0.1:6379"
    assert optional_option_values(["verify", "--ray", "auto"]) == ["verify", "--ray", "auto"]


def test_cli_verify_gpus_all_prints_json_lines_in_order(monkeypatch, fake_worker):
    """`verify --gpus all --json` on two simulated GPUs: one line per result in grid order, then the summary."""
    import json

    from typer.testing import CliRunner

    from fmhactl.cli.app import app
    from fmhactl.sweep import devices, local

    monkeypatch.setattr(devices, "local_gpus", lambda: _fake_gpus(2))
    monkeypatch.setattr(local, "default_command", fake_worker)
    result = CliRunner().invoke(app, ["verify", "ref", "selftest_fault", "--grid", "smoke", "--gpus", "all",
                                      "--seed", "5", "--json", "--timeout", "5"])
    assert result.exit_code == 1, result.output  # the planted crash fails the run, as on one GPU
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    rows, summary = lines[:-1], lines[-1]["summary"]
    configs = list(load_grid("smoke").configs)
    assert [(r["variant"], r["config_key"]) for r in rows] == [(v, c.key) for v in ("ref", "selftest_fault")
                                                                for c in configs]
    assert summary["closing"] == "7 passed, 0 failed, 1 crashed"
    assert {s["placement"]["uuid"] for s in summary["slots"]} == {"GPU-fake-0", "GPU-fake-1"}
    assert sum(s["configs"] for s in summary["slots"]) == len(rows)


def test_scenario_run_with_gpus_spreads_its_verify_step(tmp_path, monkeypatch, fake_worker):
    from fmhactl.scenario.model import load_scenario
    from fmhactl.services.scenario import run_scenario
    from fmhactl.sweep import devices, local
    from fmhactl.sweep.service import current_placement

    monkeypatch.setattr(devices, "local_gpus", lambda: _fake_gpus(2))
    monkeypatch.setattr(local, "default_command", fake_worker)
    path = tmp_path / "two.toml"
    path.write_text('name = "two"\ndescription = "d"\n\n[[step]]\nname = "verify ref"\ntype = "verify"\n'
                    'variants = ["ref"]\ngrid = "smoke"\n')
    token = current_placement.set(Placement(gpus="all"))
    try:
        with ResultStore(tmp_path / "r.sqlite") as store:
            result = run_scenario(load_scenario(str(path)), store=store, gpu=("sm_90a", ""))
            rows = store.query(kind="verify")
    finally:
        current_placement.reset(token)
    assert [s.status for s in result.steps] == ["PASS"], result.steps[0].message
    assert result.steps[0].message == "4 passed, 0 failed"
    assert {r.metrics["placement"]["uuid"] for r in rows} <= {"GPU-fake-0", "GPU-fake-1"} and len(rows) == 4


def test_ray_is_imported_only_on_the_ray_path():
    import subprocess

    code = ("import sys, fmhactl.cli.app, fmhactl.sweep.service, fmhactl.sweep.local, fmhactl.sweep.builds;"
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_cancelled_sweep_stops_handing_out_work_and_keeps_what_finished(tmp_path):
    from fmhactl.errors import Cancelled
    from fmhactl.progress import CancelToken

    token = CancelToken()
    # Many configs, so that "stopped handing out work" cannot be mistaken for "ran out of work".
    # The cancel is set from the first progress event, which the main thread sees a little after the
    # slot that produced it has taken its next config: how many finish in that gap depends on the
    # machine's load, so the bound is "far fewer than all", not an exact count.
    configs = list(load_grid("awkward").configs)
    total = 2 * len(configs)
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(Cancelled, match="all of them stored"):
            sweep_selftest(["cpu_selftest", "cpu_selftest_fault"], configs, store=store, placement=Placement(jobs=2),
                           timeout_s=10.0, seed=3, delay_s=0.3, on_progress=lambda *a: token.cancel(), cancel=token)
        stored = store.query(kind="selftest")
    assert 1 <= len(stored) <= total // 4
    assert all(r.status in ("PASS", "CRASH") for r in stored)
