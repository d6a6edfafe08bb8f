"""`python -m fmhactl.plans --write/--check`: one generator for every C++ copy of a declaration.

The committed headers are current, a hand edit of any one of them (in a copy of the tree) makes
--check exit 1 naming that file, --write repairs it, and every file carries its banner."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fmhactl.plans.generate import GENERATED, project_root, stale

ROOT = project_root()


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fmhactl.plans", *args], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory) -> Path:
    """A copy of the generated headers' tree (kernels/ only: the generator writes nothing else)."""
    copy = tmp_path_factory.mktemp("tree")
    shutil.copytree(ROOT / "kernels", copy / "kernels")
    return copy


def test_committed_headers_are_current():
    result = _run("--check")
    assert result.returncode == 0, result.stderr
    assert stale(ROOT) == []


def test_every_generated_file_names_its_source():
    for generated in GENERATED:
        first = (ROOT / generated.path).read_text().splitlines()[0]
        assert first.startswith(f"// GENERATED from {generated.source} by `python -m fmhactl.plans --write`"), \
            generated.path
        assert (ROOT / generated.source).is_file(), generated.source


@pytest.mark.parametrize("generated", GENERATED, ids=lambda g: g.path)
def test_a_hand_edit_fails_check_and_write_repairs_it(generated, tree_copy):
    target = tree_copy / generated.path
    original = target.read_text()
    lines = original.splitlines(keepends=True)
    # Change one number on a line past the banner, as a hand edit would.
    for i, line in enumerate(lines[1:], start=1):
        if any(ch.isdigit() for ch in line) and not line.lstrip().startswith("//"):
            digit = next(ch for ch in line if ch.isdigit())
            lines[i] = line.replace(digit, str((int(digit) + 1) % 10), 1)
            break
    else:
        pytest.fail(f"{generated.path} has no number to edit")
    target.write_text("".join(lines))
    result = _run("--check", "--root", str(tree_copy))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{generated.path} is stale (differs from its declaration): run python -m fmhactl.plans --write"]
    assert _run("--write", "--root", str(tree_copy)).stdout.strip() == f"wrote {generated.path}"
    assert target.read_text() == original
    assert _run("--check", "--root", str(tree_copy)).returncode == 0


def test_a_missing_header_is_stale(tree_copy):
    victim = tree_copy / GENERATED[0].path
    text = victim.read_text()
    victim.unlink()
    try:
        result = _run("--check", "--root", str(tree_copy))
        assert result.returncode == 1 and GENERATED[0].path in result.stderr
    finally:
        victim.write_text(text)


def test_bad_root_is_bad_input(tmp_path):
    result = _run("--check", "--root", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"--root {tmp_path}: not a project tree (no kernels/ directory)"


def test_no_action_is_a_usage_error():
    result = _run()
    assert result.returncode == 2 and "one of the arguments --write --check --list is required" in result.stderr
