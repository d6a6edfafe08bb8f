"""scripts/device/sparse27.sh on the CPU: the shell parses, DRY=1 lists every step with the
commands fmhactl accepts (bad input would be exit 2; no GPU here is exit 3), and the summary
reads verify and bench rows (counts, max errors, ratios, gathered bytes per second)."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "device" / "sparse27.sh"
STEPS_LIB = ROOT / "scripts" / "device" / "steps.sh"
sys.path.insert(0, str(ROOT / "scripts" / "device"))

import sparse27_summary  # noqa: E402

STEPS = ["build", "gpu-test", "verify-dsv4", "verify-dsv4-long", "bench-decode", "bench-prefill", "bench-sweep"]


def _dry(tmp_path):
    env = {**os.environ, "DRY": "1", "OUT": str(tmp_path / "out")}
    done = subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_script_parses_and_dry_run_lists_every_step(tmp_path):
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    out = _dry(tmp_path)
    for step in STEPS:
        assert f"] {step} (cap " in out, step
    assert not any((tmp_path / "out").iterdir()), "a dry run writes nothing to $OUT"
    text = SCRIPT.read_text()
    assert "source scripts/device/steps.sh" in text and "--seed 27" in text
    assert "timeout --kill-after" in STEPS_LIB.read_text()
    caps = [int(li.split(" (cap ", 1)[1].split("s)", 1)[0]) for li in out.splitlines() if " (cap " in li]
    assert len(caps) == len(STEPS) and sum(caps) <= 240  # what the steps may take, at most
    import re

    # 4 files in $OUT: summary.txt, raw.tgz, and bench.json + verify.json written by collect_rows
    assert set(re.findall(r'\$OUT/([\w.]+)', text)) == {"summary.txt", "raw.tgz"}
    assert "\ncollect_rows\n" in text


def test_collect_rows_gathers_each_steps_json_and_skips_what_is_not(tmp_path):
    """steps.sh's collect_rows: every bench-*/verify-* array into OUT/bench.json and OUT/verify.json,
    each row tagged with its step; a step cut before its JSON (empty or partial output) adds nothing."""
    raw, out = tmp_path / "raw", tmp_path / "out"
    raw.mkdir(), out.mkdir()
    (raw / "bench-decode.out").write_text(json.dumps([{"config_key": "a"}, {"config_key": "b"}]))
    (raw / "bench-cut.out").write_text('[{"config_key": "c"')
    (raw / "verify-dsv4.out").write_text(json.dumps([{"config_key": "v", "status": "PASS"}]))
    (raw / "gpu-test.out").write_text("1 passed")
    script = f'start=$(date +%s) BUDGET=10 RAW={raw} OUT={out}; source scripts/device/steps.sh; collect_rows'
    subprocess.run(["bash", "-c", script], cwd=ROOT, check=True, timeout=60)
    bench = json.loads((out / "bench.json").read_text())
    assert [(r["config_key"], r["step"]) for r in bench] == [("a", "bench-decode"), ("b", "bench-decode")]
    assert [r["step"] for r in json.loads((out / "verify.json").read_text())] == ["verify-dsv4"]


def test_run_bounds_each_step_by_the_budget_and_says_what_it_skipped(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    # a budget of seconds: the slow step waits out its bound (this test's wall time)
    script = (f'start=$(date +%s) BUDGET=9 RAW={raw} STEP_RESERVE=5 STEP_MIN=3 SKIP="skipme"; '
              'source scripts/device/steps.sh; run quick 30 echo hi; run skipme 30 echo no; '
              'run slow 30 sleep 60; run late 30 echo late')
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    log = (raw / "device.log").read_text()
    assert "quick rc=0" in log and (raw / "quick.out").read_text() == "hi\n"
    assert "skipme: skipped (SKIP)" in log and not (raw / "skipme.out").exists()
    # 9 s budget - 5 s reserve, under its 30 s cap; 3 s when a second boundary passed since `start`
    assert re.search(r"slow rc=124 \(timed out at [34]s\)", log), log
    assert "late: skipped (no time left)" in log, done.stdout


@pytest.mark.parametrize("step", ["verify-dsv4", "verify-dsv4-long", "bench-decode", "bench-prefill", "bench-sweep"])
def test_each_fmhactl_step_is_accepted(tmp_path, step):
    """Every fmhactl command of the script gets past argument checking: exit 3 (no GPU), not 2."""
    line = next(li for li in _dry(tmp_path).splitlines() if f"] {step} (cap " in li)
    argv = shlex.split(line.split("): ", 1)[1])
    assert argv[:3] == ["python3", "-m", "fmhactl"]
    env = {**os.environ, "FMHACTL_ASSUME_NO_GPU": "1", "FMHACTL_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 3 and "no GPU" in done.stderr, (done.returncode, done.stderr[-400:])


def test_summary_reads_rows(tmp_path, capsys):
    pytest.importorskip("torch")
    verify = [
        {"status": "PASS", "config_key": "a", "metrics": {"max_abs_err": 0.004, "tolerance": 0.02, "lse_max_err": 1e-6,
                                                          "lse_tolerance": 1e-4}},
        {"status": "FAIL", "config_key": "b", "metrics": {"max_abs_err": 0.5, "tolerance": 0.02, "reasons": ["O"]}},
    ]
    decode = {"batch": 16, "heads": 64, "heads_kv": 1, "seq_q": 2, "seq_k": 32768, "head_dim": 512,
              "kv_shared": True, "sink": True, "topk": 512}  # t=2: row 0 empty
    bench = [{"status": "OK", "config_key": "dec", "config": decode, "seed": 27,
              "metrics": {"kernel": {"median_ms": 0.02, "p10_ms": 0.019, "p90_ms": 0.021, "tflops": 1.0},
                          "baselines": {"flex": {"available": True, "median_ms": 0.1},
                                        "sdpa-mask": {"available": False, "reason": "CUDA out of memory"}}}}]
    (tmp_path / "v.json").write_text(json.dumps(verify))
    (tmp_path / "b.json").write_text(json.dumps(bench))
    assert sparse27_summary.main(["--verify", str(tmp_path / "v.json"), str(tmp_path / "missing.json"),
                                  "--bench", str(tmp_path / "b.json")]) == 0
    out = capsys.readouterr().out
    assert "rows 2 {'PASS': 1, 'FAIL': 1}" in out and "FAIL b" in out and "x25.000 of tolerance" in out
    assert "missing.json: unreadable" in out
    assert "flex 0.1000 ms (kernel x5.00 faster)" in out and "sdpa-mask n/a (CUDA out of memory)" in out
    # row 0 of each batch is the planted empty list; row 1 keeps ~430 of its 512 entries
    gathered, total = sparse27_summary.moved_bytes(decode, 27)
    assert 16 * 350 * 1024 < gathered < 16 * 512 * 1024 and total > gathered
    assert "GB/s" in out


def test_gathered_entries_follow_the_window():
    window = {"batch": 1, "heads": 8, "heads_kv": 1, "seq_q": 4, "seq_k": 300, "head_dim": 64, "causal": True,
              "window_left": 127}
    assert sparse27_summary.visible_entries(window, 0) == 4 * 128
