"""Property test: random option values and random files thrown at the commands.

Whatever comes in, the CLI answers with exit 0, 2 or 3 (never 1 for input it cannot use, never a
crash), never prints a traceback, and stores nothing when it says the input was bad (exit 2).
No GPU is assumed (FMHACTL_ASSUME_NO_GPU), so valid GPU work ends in exit 3 at once.
"""

from __future__ import annotations

import sqlite3
import string
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
shape_keys = st.sampled_from(["b", "h", "hkv", "t", "s", "d", "dtype", "causal", "x", "batch", ""])
shape_values = st.one_of(st.integers(-5, 2**40).map(str), st.sampled_from(["bf16", "f16", "fp8", "", "1.5", "nan"]),
                         words)
shapes = st.lists(st.tuples(shape_keys, shape_values).map(lambda kv: f"{kv[0]}={kv[1]}"), max_size=6).map(",".join)
numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers(-10**12, 10**12).map(str),
                    words)
variants = st.one_of(st.sampled_from(["ref", "sm100_direct_tmem", "selftest_fault"]), words)


def _rows(home: Path) -> list[tuple]:
    db = home / "results.sqlite"
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM results ORDER BY id").fetchall()


def _no_escaped_exception(result, args: list[str]) -> None:
    """CliRunner keeps an exception that escaped the command in result.exception and calls it exit 1,
    with no traceback in the output: only SystemExit, how a command ends with its documented exit
    code (0-3), may be there."""
    exc = result.exception
    assert exc is None or (isinstance(exc, SystemExit) and result.exit_code in (0, 1, 2, 3)), (args, repr(exc))
    assert "internal error" not in result.stderr, (args, result.stderr)  # a bug the guard caught: exit 1 too


def _check(home: Path, args: list[str]) -> None:
    before = _rows(home)
    result = CliRunner().invoke(app, args, env={"FMHACTL_ASSUME_NO_GPU": "1"})
    _no_escaped_exception(result, args)
    assert result.exit_code in (0, 2, 3), (args, result.exit_code, result.output)
    assert "Traceback" not in result.output, args
    if result.exit_code in (2, 3):
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("fmhactl: error:")]
        assert len(errors) == 1, (args, result.stderr)
    if result.exit_code == 2:
        assert _rows(home) == before, args


@SETTINGS
@given(command=st.sampled_from(["run", "verify", "bench", "dump", "profile"]), variant=variants, shape=shapes,
       timeout=numbers, seed=st.one_of(st.integers(-2**63, 2**63).map(str), words),
       extra=st.sampled_from([[], ["--at", "P"], ["--at", "zz"], ["--iters", "0"], ["--recipe", "../x"],
                              ["--grid", "smoke"], ["--warmup", "-3"]]))
def test_kernel_commands_with_random_options(fmhactl_home, command, variant, shape, timeout, seed, extra):
    args = [command, variant, "--shape", shape, "--timeout", timeout, "--seed", seed, *extra]
    if command == "dump" and "--at" not in extra:
        args += ["--at", "S"]
    _check(fmhactl_home, args)


@SETTINGS
@given(kind=st.one_of(st.none(), words, st.sampled_from(["build", "verify"])),
       status=st.one_of(st.none(), words, st.sampled_from(["pass", "FAIL"])),
       limit=numbers, since=st.one_of(st.none(), words, st.dates().map(str)),
       grid=st.one_of(st.none(), words, st.just("smoke")))
def test_results_with_random_filters(fmhactl_home, kind, status, limit, since, grid):
    args = ["results", "--limit", limit]
    for option, value in (("--kind", kind), ("--status", status), ("--since", since), ("--grid", grid)):
        if value is not None:
            args += [option, value]
    _check(fmhactl_home, args)


toml_like = st.one_of(
    st.binary(max_size=300),
    st.text(alphabet=string.printable, max_size=300),
    st.builds(lambda t, k, v: f"[[{t}]]\n{k} = {v}\n", st.sampled_from(["step", "product", "milestone", "x"]),
              st.sampled_from(["type", "seq_q", "id", "variants", "gpu", "zz"]),
              st.sampled_from(['"build"', "[]", "0", '"false"', "[1, 2]", '"../x"', "1e999", '["ref"]'])),
)


@SETTINGS
@given(body=toml_like, command=st.sampled_from(["scenario", "grid", "milestones", "status-json"]))
def test_random_files(fmhactl_home, tmp_path_factory, body, command):
    folder = tmp_path_factory.mktemp("random")
    path = folder / "input.toml"
    path.write_bytes(body if isinstance(body, bytes) else body.encode())
    if command == "scenario":
        args = ["scenario", "run", str(path)]
    elif command == "grid":
        args = ["verify", "ref", "--grid", str(path)]
    elif command == "milestones":
        args = ["status", "--milestones", str(path), "--out", str(folder / "out")]
    else:
        (folder / "out" / "milestones").mkdir(parents=True)
        (folder / "out" / "milestones" / "status.json").write_bytes(path.read_bytes())
        _check_gate(folder / "out")
        return
    _check(fmhactl_home, args)


def _check_gate(out: Path) -> None:
    """`status --check` on a status folder: the gate may legitimately fail (exit 1: pages missing),
    which an escaped exception also reads as, so result.exception tells them apart."""
    args = ["status", "--check", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    _no_escaped_exception(result, args)
    assert result.exit_code in (1, 2) and "Traceback" not in result.output, (args, result.exit_code, result.output)
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("fmhactl: error:")]
    assert len(errors) <= 1, (args, result.stderr)


@pytest.mark.parametrize("debug", ["1", ""])
def test_a_bug_in_the_gate_is_not_taken_for_its_exit_1(tmp_path, monkeypatch, debug):
    """The status-json case allowed exit 1 and looked for "Traceback" in the output, which CliRunner
    never prints: a bug in `status --check` (an exception that escaped, with FMHACTL_DEBUG=1; the
    guard's "internal error" line without it), exit 1 both, passed as the gate failing."""
    from fmhactl import services

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(services, "status", broken)
    monkeypatch.setenv("FMHACTL_DEBUG", debug)
    (tmp_path / "out" / "milestones").mkdir(parents=True)
    with pytest.raises(AssertionError, match="RuntimeError"):
        _check_gate(tmp_path / "out")
