"""One broken-pipe policy for every command: a reader that closes stdout early (`| head`) ends the
command quietly, exit 0, no traceback (issue 22 item 1).

The commands are enumerated from the Typer app, so a new command fails
test_every_command_is_classified until it is given arguments here or excluded with a reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import typer.main

from fmhactl.cli.app import app

SHAPE = "b=1,h=1,t=128,s=512,d=128"
RAW = "@raw"  # replaced by a synthetic raw trace file made with the trace tests' helper
OUT_DIR = "@out"  # replaced by a fresh temporary folder (an output that must not land in the checkout)
OUT_FILE = "@outfile"  # replaced by a file path in a fresh temporary folder
# replaced by a small sm_100a PTX file (one tcgen05 instruction): `ptx rewrite`/`ptx link` rewrite and
# link it in seconds where a variant's native PTX takes half a minute, and what is tested here is
# the output, not the compile. `ptx scan` keeps a variant (a native PTX from NVRTC, a few seconds);
# tests/ptx/test_variants_link.py rewrites and links every variant's native PTX.
PTX_FILE = "@ptx"

# Every table- or JSON-printing command with arguments that make it print without a GPU.
PRINTS = {
    "list": [],
    "build": ["ref", "--arch", "sm_80"],
    "status": ["--check"],
    "results": [],
    "results export": ["--out", OUT_DIR, "--json"],  # without --json it prints one line on stderr only
    "results import": ["--json"],
    "layout tmem": [],
    "layout smem": ["--rows", "128", "--cols", "128"],
    "layout accum": [],
    "layout map": [],
    "layout banks": [],
    "layout plan": ["sm100_tma_s2_tmem", "--head-dim", "128"],
    "layout desc decode": ["0x4000404000010000"],
    "layout desc encode": ["--start", "0", "--sbo", "1024"],
    "layout idesc decode": ["0x08200490"],
    "layout idesc encode": [],
    "tma check": ["--preset", "seed002"],
    "tma maps": ["sm90_persistent", "--shape", "b=1,h=2,t=40,s=128,d=64"],
    "scenario list": [],
    "ptx scan": ["sm100_tma_s2_smem"],
    "ptx rewrite": [PTX_FILE, "-o", OUT_FILE, "--json"],  # without --json: one stderr line
    "ptx link": [PTX_FILE, "-o", OUT_FILE, "--json"],
    "trace": ["sm100_tma_s2_tmem", "--shape", SHAPE, "--raw", RAW, "--json"],
    "init": [OUT_DIR, "--force"],  # kernel projects (docs/kernel-abi.md)
    "project": [],
    "include-dir": [],
    "merge": ["--demo", "--segments", "2", "--shape", "b=1,h=2,t=16,s=64,d=16,causal,wl=7,sink"],  # CPU torch
}
# Commands that launch a kernel stop before printing on a machine without a GPU: they are run with a
# closed stdout anyway, and must give the same exit code and one stderr line as with an open one.
NEEDS_GPU = {
    "run": ["ref", SHAPE],
    "verify": ["ref", "--shape", SHAPE],
    "bench": ["ref", "--shape", SHAPE],
    "dump": ["sm100_tma_s2_tmem", SHAPE, "s"],
    "profile": ["ref", SHAPE],
    "scenario run": ["gpu-smoke"],
}
EXCLUDED = {"tui": "a full-screen app: it draws on a terminal, never into a pipe"}


def _leaf_commands() -> list[str]:
    names: list[str] = []

    def walk(command, path: list[str]) -> None:
        subcommands = getattr(command, "commands", None)
        if getattr(command, "invoke_without_command", False) and path:  # `results` lists rows itself
            names.append(" ".join(path))
        if subcommands:
            for name, sub in subcommands.items():
                walk(sub, [*path, name])
        else:
            names.append(" ".join(path))

    walk(typer.main.get_command(app), [])
    return names


def test_every_command_is_classified():
    leaves = set(_leaf_commands())
    classified = set(PRINTS) | set(NEEDS_GPU) | set(EXCLUDED)
    assert leaves - classified == set(), "give these commands arguments in PRINTS or a reason in EXCLUDED"
    assert classified - leaves == set(), "these are no longer commands"


@pytest.fixture(scope="module")
def raw_trace(tmp_path_factory) -> Path:
    from fmhactl.trace.events import to_bytes
    from tests.trace.synth import synth_events

    path = tmp_path_factory.mktemp("pipes") / "events.bin"
    path.write_bytes(to_bytes(synth_events(2, 2)))
    return path


def _run(args: list[str], *, close_early: bool) -> subprocess.CompletedProcess:
    """Run fmhactl with stdout into a pipe. close_early: the read end is closed before the command
    starts, so its first write to stdout fails exactly as under `| head -0`; otherwise all is read."""
    command = [sys.executable, "-m", "fmhactl", *args]
    if not close_early:
        return subprocess.run(command, capture_output=True, text=True, timeout=300)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(command, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write_end)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "", proc.stderr)


def small_ptx() -> Path:
    """A fresh sm_100a PTX file with one tcgen05 instruction (PTX_FILE)."""
    from tests.ptx.test_rewrite_link import kernel

    path = Path(tempfile.mkdtemp(prefix="fmhactl-pipes-")) / "k.ptx"
    path.write_text(kernel(["tcgen05.wait::ld.sync.aligned;"]))
    return path


def substitute(args: list[str], raw: Path) -> list[str]:
    """PRINTS arguments with the placeholders filled: RAW by a raw trace, PTX_FILE by a small PTX
    file, OUT_DIR/OUT_FILE by new paths."""
    def fill(arg: str) -> str:
        if arg == RAW:
            return str(raw)
        if arg == PTX_FILE:
            return str(small_ptx())
        if arg == OUT_DIR:
            return tempfile.mkdtemp(prefix="fmhactl-pipes-")
        if arg == OUT_FILE:
            return str(Path(tempfile.mkdtemp(prefix="fmhactl-pipes-")) / "out")
        return arg

    return [fill(a) for a in args]


def _args(name: str, raw: Path) -> list[str]:
    return [*name.split(), *substitute(PRINTS[name], raw)]


@pytest.mark.parametrize("name", sorted(PRINTS))
def test_a_reader_that_closes_early_ends_the_command_quietly(name, raw_trace):
    args = _args(name, raw_trace)
    full = _run(args, close_early=False)
    assert full.returncode == 0 and full.stdout.strip(), (full.returncode, full.stderr[-800:])
    closed = _run(args, close_early=True)
    assert closed.returncode == 0, closed.stderr[-800:]
    assert "Traceback" not in closed.stderr and "error" not in closed.stderr, closed.stderr[-800:]


@pytest.mark.parametrize("name", sorted(NEEDS_GPU))
def test_gpu_commands_keep_their_exit_code_with_a_closed_reader(name):
    args = [*name.split(), *NEEDS_GPU[name]]
    full = _run(args, close_early=False)
    closed = _run(args, close_early=True)
    assert closed.returncode == full.returncode, (full.stderr[-500:], closed.stderr[-500:])
    assert "Traceback" not in closed.stderr + full.stderr
    if full.returncode != 0:
        assert len(closed.stderr.strip().splitlines()) == 1, closed.stderr[-800:]



def test_abort_and_sys_exit_pass_through_the_group_as_one_line(capsys):
    """typer 0.29 vendors click without Abort in typer._click.exceptions (the crash of issue 22):
    the group catches typer's own Abort, and a command's sys.exit keeps its code."""
    import typer

    from fmhactl.cli.errors_group import OneLineErrorGroup

    demo = typer.Typer(cls=OneLineErrorGroup, add_completion=False)

    @demo.command("abort")
    def _abort() -> None:
        raise typer.Abort()

    @demo.command("leave")
    def _leave() -> None:
        print("some output")
        sys.exit(4)

    for args, code in ((["abort"], 1), (["leave"], 4)):
        with pytest.raises(SystemExit) as ended:
            demo(args=args, prog_name="demo")
        assert ended.value.code == code
    err = capsys.readouterr().err
    assert "fmhactl: error: aborted" in err and "Traceback" not in err
