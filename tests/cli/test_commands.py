"""Bad input of every kind: one line on stderr, exit 2 (or 3 for a missing GPU), no traceback."""

import json
import subprocess
import sys

import pytest


def fmhactl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fmhactl", *args], capture_output=True, text=True, timeout=300)


def _one_line_error(proc: subprocess.CompletedProcess, code: int, fragment: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error:"), proc.stderr
    assert fragment in lines[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("args, fragment", [
    (["build", "no_such_variant"], "unknown variant 'no_such_variant'"),
    (["build", "ref", "--arch", "sm_75"], "unknown arch 'sm_75'"),
    (["verify", "ref", "--shape", "b=0,t=1,s=1,d=64"], "batch must be a positive integer"),
    (["verify", "ref", "--shape", "t=1,s=1,d=64,h=3,hkv=2"], "multiple of heads_kv"),
    (["verify", "ref", "--grid", "nonexistent"], "unknown grid 'nonexistent'"),
    (["bench", "ref", "--shape", "t=1,s=1,d=1024"], "head_dim 1024 not supported"),
    (["run", "ref", "--shape", "t=4,s=4,d=64,dtype=fp8"], "dtype must be one of"),
    (["results", "--limit", "-1"], "--limit must be >= 0"),
])
def test_bad_input_is_one_line_and_exit_2(args, fragment):
    _one_line_error(fmhactl(*args), 2, fragment)


def test_malformed_grid_file_is_bad_input(tmp_path):
    grid = tmp_path / "broken.toml"
    grid.write_text("[[product]\nseq_q=1")
    _one_line_error(fmhactl("verify", "ref", "--grid", str(grid)), 2, "malformed TOML")


def test_verify_without_gpu_is_missing_environment():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    _one_line_error(fmhactl("verify", "ref", "--shape", "t=4,s=4,d=64"), 3, "no GPU")
    _one_line_error(fmhactl("run", "ref", "--shape", "t=4,s=4,d=64"), 3, "no GPU")


def test_list_json_and_results_json():
    listed = json.loads(fmhactl("list", "--json").stdout)
    assert "ref" in {v["name"] for v in listed}
    assert "selftest_fault" not in {v["name"] for v in listed}
    assert fmhactl("build", "ref", "--arch", "sm_100a").returncode == 0
    rows = json.loads(fmhactl("results", "--kind", "build", "--json").stdout)
    assert rows and rows[0]["variant"] == "ref" and rows[0]["mode"] == "compile-only"


def test_help_lists_only_registered_commands():
    out = fmhactl("--help").stdout
    for command in ("build", "list", "run", "verify", "bench", "results"):
        assert command in out
