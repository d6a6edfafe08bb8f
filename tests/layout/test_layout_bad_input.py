"""Bad input to `fmhactl layout ...` and `fmhactl tma check`, fed through the real CLI app.

Every case must end with exit 2 and exactly one stderr line that names the input, before any
work is done (size caps), never a traceback. A hypothesis test throws random option values at
the commands: the exit is 0, 2 or 3, or 1 for a check that ran and failed (then stderr is empty:
a failed check is reported on stdout, an internal error would print "internal error").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fmhactl.cli.app import app

REPO = Path(__file__).resolve().parents[2]


def run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def assert_bad_input(result, *words: str) -> None:
    out = result.stdout + result.stderr
    assert result.exit_code == 2, out
    assert "Traceback" not in out
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error:"), result.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


SIZE_CAPS = [
    (["layout", "smem", "--rows", "1000000"], "rows"),
    (["layout", "smem", "--cols", "1000000"], "cols"),
    (["layout", "smem", "--rows", "4096", "--cols", "4096"], "elements"),
    (["layout", "banks", "--repeat", "100000000"], "--repeat"),
    (["layout", "banks", "--rows", "99999"], "rows"),
    (["layout", "smem", "--max-rows", "100000000"], "--max-rows"),
    (["layout", "map", "--threads", "0-" + "9" * 30], "--threads"),
    (["tma", "check", "--dtype", "bf16", "--dims", "1,1,1,1,1,1,1", "--box", "16"], "--dims"),
]

NUMERIC_RANGES = [
    (["layout", "tmem", "--warp", "99"], "warp"),
    (["layout", "tmem", "--warp", "-1"], "warp"),
    (["layout", "tmem", "--col", "600"], "column"),
    (["layout", "tmem", "--taddr", "0x10000000000"], "taddr"),
    (["layout", "tmem", "--taddr", "0x00800000"], "lane 128"),
    (["layout", "tmem", "--imm", "4"], "16x32bx2"),
    (["layout", "tmem", "--num", "0"], ".num"),
    (["layout", "accum", "--cta-group", "3"], "cta_group"),
    (["layout", "accum", "--dtmem", "-1"], "d-tmem"),
    (["layout", "accum", "--m", "128", "--cta-group", "2"], "cta_group::2"),
    (["layout", "accum", "--n", "0"], "N"),
    (["layout", "map", "--warp", "7"], "warp"),
    (["layout", "map", "--m", "0"], "M"),
    (["layout", "smem", "--base", "-16"], "base"),
    (["layout", "smem", "--lbo", "99999999"], "LBO"),
    (["layout", "banks", "--vec", "3"], "width"),
    (["layout", "desc", "encode", "--start", "0x40000", "--sbo", "1024"], "start address"),
    (["layout", "desc", "encode", "--start", "0", "--sbo", "1024", "--base-offset", "9"], "base offset"),
    (["layout", "idesc", "encode", "--m", "-128"], "M"),
    (["tma", "check", "--dtype", "bf16", "--dims", "64", "--box", "16", "--rank", "999"], "--rank"),
    (["tma", "check", "--dtype", "bf16", "--dims", "-5", "--box", "16"], "--dims"),
]

COORDINATES = [
    (["layout", "smem", "--element", "500,0"], "row"),
    (["layout", "smem", "--element", "1,2,3"], "--element"),
    (["layout", "smem", "--desc", "0x4000404000010000", "--k0", "999"], "k0"),
    (["layout", "tmem", "--cell", "200,0"], "lane"),
    (["layout", "tmem", "--cell", "0,512"], "column"),
    (["layout", "banks", "--row", "t + 200"], "outside"),
    (["layout", "banks", "--k", "-1"], "outside"),
    (["layout", "map", "--element", "999,0"], "row"),
]

MALFORMED_WORDS = [
    (["layout", "desc", "decode", ""], "empty"),
    (["layout", "desc", "decode", "0x"], "not an integer"),
    (["layout", "desc", "decode", "0xZZ"], "not an integer"),
    (["layout", "desc", "decode", "-1"], "negative"),
    (["layout", "desc", "decode", "0x1" + "0" * 16], "64 bits"),
    (["layout", "desc", "decode", "0x" + "f" * 200], "too long"),
    (["layout", "desc", "decode", "1e5"], "not an integer"),
    (["layout", "desc", "decode", "0x4000404000010000", "--arch", "sm80"], "--arch"),
    (["layout", "desc", "decode", "0x4000404000010000", "--major", "Q"], "major"),
    (["layout", "idesc", "decode", "0x1_0000_0000"], "32 bits"),
    (["layout", "idesc", "decode", "08400010h"], "not an integer"),
    (["layout", "desc", "decode", "0x4000404000010000", "--arch", "sm90", "--major", "K"], "--major"),
]

NAMES = [
    (["layout", "tmem", "--shape", "32x32b/../x"], "shape"),
    (["layout", "smem", "--dtype", "é" * 300], "element type"),
    (["layout", "smem", "--swizzle", "\u202e128B"], "swizzle"),
    (["layout", "tmem", "--view", "cube"], "--view"),
    (["tma", "check", "--preset", "../seed002"], "preset"),
    (["tma", "check", "--dtype", "bfloat17", "--dims", "64", "--box", "16"], "DataType"),
]


@pytest.mark.parametrize("args, word", SIZE_CAPS + NUMERIC_RANGES + COORDINATES + MALFORMED_WORDS + NAMES,
                         ids=lambda v: " ".join(v)[:60] if isinstance(v, list) else None)
def test_bad_input_exit_2_one_line(args, word):
    assert_bad_input(run(*args), word)


@pytest.mark.parametrize("flag", ["--svg"])
@pytest.mark.parametrize("command", [["layout", "smem"], ["layout", "tmem"], ["layout", "desc", "decode", "0x0"],
                                     ["tma", "check", "--preset", "seed002"]])
def test_unwritable_output_refused_before_work(tmp_path, command, flag):
    """Paths no one can write, root included: under a regular file, and in /proc."""
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    assert_bad_input(run(*command, flag, str(blocker / "pic.svg")), "cannot be created")
    assert_bad_input(run(*command, flag, "/proc/pic.svg"), "/proc/pic.svg: not writable")


def test_svg_folders_are_made_by_the_write(tmp_path):
    """An --svg path under folders that do not exist yet: proved creatable first, made when written."""
    target = tmp_path / "new" / "deeper" / "pic.svg"
    result = run("layout", "tmem", "--svg", str(target))
    assert result.exit_code == 0, result.output
    assert target.read_text().startswith("<svg")


def test_size_caps_answer_at_once_through_the_installed_entry_point():
    """The two cases of the issue, as a user runs them: a fresh process, exit 2, one line."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "FMHACTL_HOME": os.environ.get("FMHACTL_HOME", "/tmp/fmh-test")}
    for args in (["layout", "smem", "--rows", "1000000"], ["layout", "banks", "--repeat", "100000000"]):
        proc = subprocess.run([sys.executable, "-m", "fmhactl", *args], capture_output=True, text=True, env=env,
                              timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_piped_output_is_tsv_not_wrapped():
    result = run("layout", "idesc", "decode", "0x08400010")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("# ") and lines[1].split("\t")[:3] == ["bits", "field", "value"]
    assert any(line.startswith("24-28\tm\t128") for line in lines)
    wide = run("tma", "check", "--preset", "seed002").stdout.splitlines()
    assert max(len(line) for line in wide) > 120  # long lines stay whole in a pipe


# ---- property test ------------------------------------------------------------------------------

_NUMBERS = st.one_of(st.integers(-10, 600), st.integers(-(1 << 70), 1 << 70), st.sampled_from([0, 1, 8, 16, 128]))
_TEXT = st.one_of(_NUMBERS.map(str), _NUMBERS.map(lambda v: hex(v) if v >= 0 else str(v)),
                  st.text(max_size=12), st.sampled_from(["", "0x", "t", "t*i", "t//0", "1,2", "-3,4", "nan"]))
_OPTIONS = {
    ("layout", "tmem"): ["--shape", "--num", "--warp", "--col", "--taddr", "--imm", "--cell", "--view"],
    ("layout", "smem"): ["--major", "--swizzle", "--rows", "--cols", "--dtype", "--lbo", "--sbo", "--base",
                         "--element", "--at", "--desc", "--k0", "--max-rows"],
    ("layout", "accum"): ["--m", "--n", "--cta-group", "--dtmem", "--read", "--num"],
    ("layout", "banks"): ["--rows", "--cols", "--row", "--k", "--vec", "--repeat", "--swizzle"],
    ("layout", "map"): ["--m", "--n", "--warp", "--threads", "--element", "--from", "--to"],
    ("layout", "desc", "encode"): ["--start", "--lbo", "--sbo", "--swizzle", "--base-offset"],
    ("layout", "idesc", "encode"): ["--m", "--n", "--a", "--d"],
    ("tma", "check"): ["--dtype", "--rank", "--dims", "--strides", "--box", "--elem-strides", "--swizzle",
                       "--address"],
}
_DECODERS = [("layout", "desc", "decode"), ("layout", "idesc", "decode")]


@st.composite
def command_lines(draw) -> list[str]:
    if draw(st.booleans()) and draw(st.booleans()):
        return [*draw(st.sampled_from(_DECODERS)), draw(_TEXT)]
    command = draw(st.sampled_from(sorted(_OPTIONS)))
    flags = draw(st.lists(st.sampled_from(_OPTIONS[command]), min_size=1, max_size=3, unique=True))
    args = list(command)
    if command == ("layout", "desc", "encode"):
        args += ["--start", "0", "--sbo", "1024"]
    if command == ("tma", "check"):
        args += ["--preset", "seed002"]
    for flag in flags:
        args += [flag, draw(_TEXT)]
    return args


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_lines())
def test_random_options_never_crash(args):
    result = run(*args)
    out = result.stdout + result.stderr
    assert "Traceback" not in out and "internal error" not in out, (args, out[-400:])
    assert result.exit_code in (0, 1, 2, 3), (args, result.exit_code)
    if result.exit_code == 1:
        assert not result.stderr.strip(), (args, result.stderr)
    if result.exit_code == 2:
        assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
