"""Corruption fuzz of what `fmhactl status` reads besides the evidence (tests/results fuzzes that):
the milestones file (scenarios/milestones.toml) and the status files it wrote before
(milestones/status.json, the milestone pages, STATUS.md).

The valid artifacts are the checkout's milestones file and the status files `fmhactl status`
writes for a small evidence sample. Each example damages one of them (bytes flipped, cut or
appended; TOML/JSON keys deleted, renamed or given values of another type; a folder or a symlink
loop in place of a file). Properties:
- `status` (writing) works on what is there: a damaged milestones file is one error line (exit 2),
  damaged status files are rewritten (exit 0, a warning) and then read back valid, and a folder or
  a symlink loop where one goes is one error line naming it (exit 2);
- `status --check` (the gate) fails (exit 1) or refuses (exit 2) in one error line, or passes only
  when the files still say what the evidence computes.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402
from fmhactl.schemas import StatusFile  # noqa: E402
from tests.corruption import (Artifact, assert_clean_outcome, damage_path, example_folder,  # noqa: E402
                              fuzz_settings, mutate_bytes, mutate_tree, to_toml)
from tests.results.test_store_corruption_fuzz import sample_evidence  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def status_files(tmp_path_factory) -> Artifact:
    evidence = sample_evidence(tmp_path_factory.mktemp("evidence"))
    out = tmp_path_factory.mktemp("status")
    result = CliRunner().invoke(app, ["status", "--evidence", str(evidence), "--evidence-only", "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    milestones = (REPO / "scenarios" / "milestones.toml").read_text()
    return Artifact("status files", evidence=evidence, files=files, milestones=milestones)


def _lay_out(artifact: Artifact, work: Path) -> tuple[Path, Path]:
    """work/out holding the status files `status` wrote, and work/milestones.toml: (out, milestones)."""
    out = work / "out"
    for name, blob in artifact.files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(blob)
    milestones = work / "milestones.toml"
    milestones.write_text(artifact.milestones)
    return out, milestones


def _args(artifact: Artifact, out: Path, milestones: Path, check: bool) -> list[str]:
    return ["status", "--evidence", str(artifact.evidence), "--evidence-only", "--out", str(out),
            "--milestones", str(milestones), *(["--check"] if check else [])]


@fuzz_settings(60)
@given(data=st.data())
def test_damaged_milestones_or_status_files(status_files, data):
    with example_folder("status") as work:
        out, milestones = _lay_out(status_files, work)
        target = data.draw(st.sampled_from(["milestones", "status.json", "status.json", "page", "fs"]),
                           label="target")
        if target == "milestones":
            if data.draw(st.booleans(), label="as tree"):
                what, tree = mutate_tree(data, tomllib.loads(status_files.milestones))
                milestones.write_text(to_toml(tree))
            else:
                what, blob = mutate_bytes(data, status_files.milestones.encode())
                milestones.write_bytes(blob)
        elif target == "status.json":
            path = out / "milestones" / "status.json"
            if data.draw(st.booleans(), label="as tree"):
                what, tree = mutate_tree(data, json.loads(path.read_text()))
                path.write_text(json.dumps(tree))
            else:
                what, blob = mutate_bytes(data, path.read_bytes())
                path.write_bytes(blob)
        elif target == "page":
            name = data.draw(st.sampled_from(sorted(n for n in status_files.files if n.endswith(".md"))))
            what, blob = mutate_bytes(data, (out / name).read_bytes())
            (out / name).write_bytes(blob)
            what = f"{name}: {what}"
        else:
            name = data.draw(st.sampled_from(sorted(status_files.files)), label="file")
            what = damage_path(data.draw(st.sampled_from(["folder", "symlink_loop", "dangling_symlink", "missing"])),
                               out / name)
        check = data.draw(st.booleans(), label="check")
        result = CliRunner().invoke(app, _args(status_files, out, milestones, check),
                                    env={"FMHACTL_HOME": str(work / "home")})
        command = "status --check" if check else "status"
        if check:
            assert_clean_outcome(result, (0, 1, 2), f"{what}; {command}", command)
            if result.exit_code == 0:  # the gate passed: the files are what the evidence computes
                for name, blob in status_files.files.items():
                    assert (out / name).read_bytes() == blob, f"{what}: --check passed with {name} changed"
            return
        assert_clean_outcome(result, (0, 2), f"{what}; {command}", command)
        if result.exit_code == 2:  # a damaged milestones file, or something unwritable where a status file goes
            assert target == "milestones" or (target == "fs" and Path(name).name in result.stderr), \
                f"{what}: exit 2 for a status file `status` rewrites: {result.stderr}"
            return
        state = out / "milestones" / "status.json"
        StatusFile.parse(json.loads(state.read_text()), state)  # rewritten valid


@pytest.mark.parametrize("op", ["symlink_loop", "folder"])
def test_something_unwritable_where_a_status_file_goes_is_one_error_line(status_files, tmp_path, op):
    """A symlink loop at milestones/status.json (or a folder at a milestone page) passed the output
    check and made write_text raise OSError: an internal error. Now one line naming the file."""
    out, milestones = _lay_out(status_files, tmp_path)
    name = "milestones/status.json" if op == "symlink_loop" else next(n for n in status_files.files
                                                                       if n.startswith("milestones/M"))
    damage_path(op, out / name)
    result = CliRunner().invoke(app, _args(status_files, out, milestones, check=False),
                                env={"FMHACTL_HOME": str(tmp_path / "home")})
    assert_clean_outcome(result, (2,), op)
    assert Path(name).name in result.stderr and "cannot be written" in result.stderr, result.stderr
