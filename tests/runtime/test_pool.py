"""The watchdog and crash handling of the worker pool, with stand-in workers (no GPU needed)."""

import os
import sys
import textwrap

import pytest

from fmhactl.errors import MissingEnvironment
from fmhactl.runtime.pool import KernelWorker

FAKE = textwrap.dedent("""
    import json, os, sys, time
    print(json.dumps({"hello": True, "gpu": "fake", "cc": [9, 0]}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        if job["op"] == "hang":
            time.sleep(600)
        if job["op"] in ("staged_hang", "staged_die", "staged_ok"):
            print(json.dumps({"id": job["id"], "stage": "the kernel"}), flush=True)
            print(json.dumps({"id": job["id"], "stage": "baseline peer",
                              "partial": {"kernel": {"median_ms": 1.5}}}), flush=True)
            if job["op"] == "staged_hang":
                time.sleep(600)
            if job["op"] == "staged_die":
                os._exit(139)
        if job["op"] == "die":
            print("boom: simulated segfault", file=sys.stderr, flush=True)
            os._exit(139)
        print(json.dumps({"id": job["id"], "status": "PASS", "pid": os.getpid()}), flush=True)
""")


@pytest.fixture
def fake_worker(tmp_path):
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE)
    return [sys.executable, str(script)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_hang_is_killed_and_the_next_job_gets_a_fresh_worker(fake_worker):
    with KernelWorker(timeout_s=1.0, command=fake_worker) as worker:
        first = worker.run({"op": "ok"})
        assert first["status"] == "PASS"
        hung = worker.run({"op": "hang"})
        assert hung["status"] == "HANG" and "1 s" in hung["error"]
        assert not _alive(first["pid"])  # no orphan left spinning
        after = worker.run({"op": "ok"})
        assert after["status"] == "PASS" and after["pid"] != first["pid"]


def test_a_hang_names_the_stage_and_keeps_what_the_job_finished(fake_worker):
    """Stage reports (fmhactl.runtime.stage) are not the reply: the parent reads past them, names
    the last one in a HANG or CRASH and keeps its partial metrics; a job that ends normally
    replies as before, the reports dropped."""
    with KernelWorker(timeout_s=1.0, command=fake_worker) as worker:
        done = worker.run({"op": "staged_ok"})
        assert done["status"] == "PASS" and "stage" not in done and "metrics" not in done
        hung = worker.run({"op": "staged_hang"})
        assert hung["status"] == "HANG"
        assert hung["error"] == "no answer within 1 s (the job was at: baseline peer); worker killed"
        assert hung["metrics"] == {"kernel": {"median_ms": 1.5}}
        crashed = worker.run({"op": "staged_die"})
        assert crashed["status"] == "CRASH" and "(the job was at: baseline peer)" in crashed["error"]
        assert crashed["metrics"] == {"kernel": {"median_ms": 1.5}}
        assert "(the job was at" not in worker.run({"op": "hang"})["error"]  # no report, no stage


def test_a_dying_worker_is_a_crash_with_its_last_words(fake_worker):
    with KernelWorker(timeout_s=5.0, command=fake_worker) as worker:
        crashed = worker.run({"op": "die"})
        assert crashed["status"] == "CRASH"
        assert "exit code 139" in crashed["error"] and "simulated segfault" in crashed["error"]
        assert worker.run({"op": "ok"})["status"] == "PASS"


def test_a_worker_without_gpu_is_a_missing_environment(tmp_path):
    script = tmp_path / "nogpu.py"
    script.write_text('import json; print(json.dumps({"hello": True, "gpu": None, "reason": "no CUDA GPU"}))\n')
    with pytest.raises(MissingEnvironment, match="no GPU usable here \\(no CUDA GPU"):
        KernelWorker(command=[sys.executable, str(script)]).start()
