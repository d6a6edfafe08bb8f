"""`fmhactl trace` on the CPU: modeling a raw event file (--raw), and bad input as one line."""

import json
import subprocess
import sys

import pytest

from fmhactl.trace.chrome import check_chrome
from fmhactl.trace.events import to_bytes
from tests.trace.synth import synth_events

SHAPE = "b=1,h=1,t=128,s=512,d=128"


def fmhactl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fmhactl", *args], capture_output=True, text=True, timeout=120)


def test_raw_file_to_perfetto_json_and_summary(tmp_path):
    raw = tmp_path / "events.bin"
    raw.write_bytes(to_bytes(synth_events(4, 2)))
    out = tmp_path / "trace.json"
    proc = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(raw), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "modeled, not measured" in proc.stderr and "per KV tile" in proc.stderr
    assert check_chrome(json.loads(out.read_text())) == []
    proc = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(raw), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["label"] == "modeled, not measured"
    summary = doc["results"][0]["summary"]
    assert summary["kv_tiles"] == 4 and summary["cycles_per_kv_tile"] > 0
    assert {row["name"] for row in doc["results"][0]["cost_model"]} >= {"clock_ghz", "mufu_ex2_per_clk_sm"}


@pytest.mark.parametrize("args, fragment", [
    (["trace", "--shape", SHAPE], "name a VARIANT or --compare A B"),
    (["trace", "sm100_tma_tmem", "--compare", "sm100_tma_tmem", "sm100_tma_s2_tmem", "--shape", SHAPE],
     "either VARIANT or --compare"),
    (["trace", "sm100_tma_tmem", "--shape", "b=8,h=8,t=1024,s=512,d=128"], "fmhactl trace models at most"),
    (["trace", "sm100_tma_tmem", "--shape", SHAPE, "--raw", "/nonexistent/events.bin"], "no such file"),
    (["trace", "ref", "--shape", SHAPE, "--raw", "/dev/null"], "SM100 variants only"),
])
def test_bad_input_is_one_line_exit_2(args, fragment):
    proc = fmhactl(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
