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


def test_barriers_are_named_by_role_from_the_plan_not_by_source_line(tmp_path):
    """The raw file's init sites point at the synthetic source, not at the real kernel's lines: the
    names still come out by role (fmhactl.plans.sm100.barrier_roles), never as mbar@0x..."""
    raw = tmp_path / "events.bin"
    raw.write_bytes(to_bytes(synth_events(4, 2)))
    proc = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(raw), "--json")
    assert proc.returncode == 0, proc.stderr
    waits = json.loads(proc.stdout)["results"][0]["summary"]["longest_waits"]
    names = {w["barrier"] for w in waits}
    assert names and not any("@0x" in n for n in names), names
    assert names <= {"q_full", "s_full", "p_full", "o_ready", "kv_full[0]", "kv_full[1]", "kv_empty[0]", "kv_empty[1]"}
    assert "mbar@" not in proc.stderr


def test_roles_by_address_needs_exactly_the_plans_block():
    from fmhactl.plans.sm100 import barrier_roles
    from fmhactl.trace.events import roles_by_address

    roles = barrier_roles(2)
    assert roles == ("q_full", "s_full", "p_full", "o_ready", "kv_full[0]", "kv_full[1]", "kv_empty[0]", "kv_empty[1]")
    named = roles_by_address([0x400 + 8 * i for i in reversed(range(8))], roles)
    assert named[0x400] == "q_full" and named[0x400 + 8 * 6] == "kv_empty[0]"
    assert roles_by_address([0x400 + 8 * i for i in range(7)], roles) == {}  # one missing: not this kernel
    assert roles_by_address([0x400 + 16 * i for i in range(8)], roles) == {}  # not one block


@pytest.mark.parametrize("data, rule", [
    (b"", "not a whole, non-zero number"),
    (b"\x00" * 33, "not a whole, non-zero number"),
])
def test_bad_raw_files_name_the_path(tmp_path, data, rule):
    raw = tmp_path / "events.bin"
    raw.write_bytes(data)
    proc = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(raw))
    assert proc.returncode == 2 and rule in proc.stderr and str(raw) in proc.stderr, proc.stderr


def test_a_folder_as_raw_and_an_unwritable_out_are_refused_before_work(tmp_path):
    proc = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(tmp_path))
    assert proc.returncode == 2 and "is a folder" in proc.stderr
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    for option in ("--out", "--save-raw"):  # no GPU here: the path is checked before the GPU probe
        proc = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, option, str(blocker / "t.json"))
        assert proc.returncode == 2 and option in proc.stderr, proc.stderr


def test_a_gzipped_recording_models_like_the_raw_one(tmp_path):
    import gzip

    raw = to_bytes(synth_events(4, 2))
    packed = tmp_path / "events.raw.gz"
    packed.write_bytes(gzip.compress(raw))
    plain = tmp_path / "events.raw"
    plain.write_bytes(raw)
    a = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(packed), "--json")
    b = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(plain), "--json")
    assert a.returncode == b.returncode == 0, a.stderr + b.stderr
    assert json.loads(a.stdout) == json.loads(b.stdout)
    packed.write_bytes(gzip.compress(raw)[:40])
    broken = fmhactl("trace", "sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", str(packed))
    assert broken.returncode == 2 and str(packed) in broken.stderr, broken.stderr


SHIPPED = sorted(__import__("pathlib").Path(__file__).resolve().parents[2].glob("docs/trace/*.raw.gz"))


@pytest.mark.parametrize("recording", SHIPPED, ids=lambda p: p.name)
def test_the_shipped_recordings_model_without_a_gpu(recording, tmp_path):
    """The documented command of docs/trace/README.md, on each committed recording (none until the
    lead runs scripts/device/record_trace.sh on the H100)."""
    variant, rest = recording.name.split("-", 1)
    b_h, t_s, d = rest.removesuffix(".raw.gz").split("-")
    shape = (f"b={b_h[1:b_h.index('h')]},h={b_h[b_h.index('h') + 1:]},t={t_s[1:t_s.index('s')]},"
             f"s={t_s[t_s.index('s') + 1:]},d={d[1:]}")
    proc = fmhactl("trace", variant, "--shape", shape, "--raw", str(recording), "--json")
    assert proc.returncode == 0, proc.stderr
    waits = json.loads(proc.stdout)["results"][0]["summary"]["longest_waits"]
    assert waits and not any("@0x" in w["barrier"] for w in waits)
