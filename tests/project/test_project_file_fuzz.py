"""Corruption fuzz of kernel project files (fmhactl.toml, the milestones file it names, the files
its variants point at), from the fixture projects in tests/fixtures.

Each example copies a fixture project, damages one file (bytes flipped, cut or appended; a TOML
key deleted, renamed or given a value of another type, a formula made odd; a folder, a symlink
loop or a dangling symlink where a file belongs) and runs a CPU command of the project:
`project`, `list`, `verify` (no GPU: every input is checked before the GPU probe), `tma maps`
(tensor-map fields) or `status` (its milestones and evidence). Property: the command works on
what is there, or refuses in one `fmhactl: error:` line (exit 2 for the project's files, 3 for no
GPU), never a traceback or an internal error; and a verify of a damaged project records nothing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402
from tests.corruption import (ODD_VALUES, Artifact, assert_clean_outcome, damage_path, fuzz_settings,  # noqa: E402
                              mutate_bytes, mutate_tree, paths_of, to_toml)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SHAPE = "b=1,h=2,t=64,s=64,d=64,dtype=bf16"

# What a formula (launch grid/block/smem, a params value, a tensor-map box) may be damaged into.
ODD_FORMULAS = ["1e999", "1e308 * 10", "1e308 * 10 - 1e308 * 10", "min()", "max(1)", "ceil_div(1)",
                "ceil_div(heads, 0)", "heads // 0", "heads % 0", "-heads", "0", "2147483648", "10" * 150,
                "-" * 300 + "1", "(" * 120 + "1" + ")" * 120, "heads if 0 else 1 // 0", "1.5", "heads / 2.5",
                "unknown_name", "__import__('os')", "heads.real", "lambda: 1", "[1]", "'x'", "", " "]
FORMULA_KEYS = {"grid", "block", "smem", "value", "box"}
values = st.one_of(st.sampled_from(ODD_VALUES), st.sampled_from(ODD_FORMULAS), st.integers(), st.floats(),
                   st.text(max_size=20))

PROJECTS = {
    "seeds": ("seeds_project", "heads_bf16"),
    "tma": ("tma_project", "tma_sm90"),
}


@pytest.fixture(scope="module")
def fixtures() -> Artifact:
    trees = {name: tomllib.loads((FIXTURES / folder / "fmhactl.toml").read_text()) for name, (folder, _) in
             PROJECTS.items()}
    return Artifact("fixture projects", trees=trees)


def _commands(project: Path, variant: str, out: Path) -> dict[str, list[str]]:
    head = ["--project", str(project)]
    return {
        "project": [*head, "project", "--json"],
        "list": [*head, "list", "--json"],
        "verify": [*head, "verify", variant, "--shape", SHAPE],
        "tma": [*head, "tma", "maps", variant, "--shape", SHAPE],
        "status": [*head, "status", "--out", str(out), "--json"],
    }


def _damage(data: st.DataObject, project: Path, tree: dict) -> str:
    target = data.draw(st.sampled_from(["toml", "toml", "formula", "bytes", "milestones", "source", "fs"]),
                       label="target")
    file = project / "fmhactl.toml"
    if target == "formula":
        spots = [p for p in paths_of(tree) if FORMULA_KEYS & {str(k) for k in p[-2:]}]
        spot = data.draw(st.sampled_from(spots), label="formula at")
        text = data.draw(st.sampled_from(ODD_FORMULAS), label="formula")
        damaged = json.loads(json.dumps(tree))
        parent = damaged
        for key in spot[:-1]:
            parent = parent[key]
        parent[spot[-1]] = text
        file.write_text(to_toml(damaged), encoding="utf-8")
        return f"fmhactl.toml: {'.'.join(map(str, spot))} = {text!r:.40}"
    if target == "source":
        file = project / "attention" / data.draw(st.sampled_from(sorted(p.name for p in (project / "attention").iterdir())))
        what, blob = mutate_bytes(data, file.read_bytes())
        file.write_bytes(blob)
        return f"{file.name}: {what}"
    if target == "toml":
        what, damaged = mutate_tree(data, tree, values)
        file.write_text(to_toml(damaged), encoding="utf-8")
        return f"fmhactl.toml: {what}"
    if target == "bytes":
        what, blob = mutate_bytes(data, file.read_bytes())
        file.write_bytes(blob)
        return f"fmhactl.toml: {what}"
    if target == "milestones" and (project / "milestones.toml").is_file():
        milestones = project / "milestones.toml"
        if data.draw(st.booleans(), label="as tree"):
            what, damaged = mutate_tree(data, tomllib.loads(milestones.read_text()), values)
            milestones.write_text(to_toml(damaged), encoding="utf-8")
        else:
            what, blob = mutate_bytes(data, milestones.read_bytes())
            milestones.write_bytes(blob)
        return f"milestones.toml: {what}"
    where = data.draw(st.sampled_from(["fmhactl.toml", "milestones.toml", "attention", "evidence"]), label="where")
    sources = sorted(p.name for p in (project / "attention").iterdir())
    if where == "attention":
        where = "attention/" + data.draw(st.sampled_from(sources))
    op = data.draw(st.sampled_from(["folder", "symlink_loop", "dangling_symlink", "missing"]), label="fs op")
    return damage_path(op, project / where)


def _rows(home: Path) -> list[tuple]:
    stores = list(home.rglob("results.sqlite"))
    out = []
    for db in stores:
        with sqlite3.connect(db) as conn:
            out += conn.execute("SELECT id, kind, variant, status FROM results").fetchall()
    return out


@fuzz_settings(80)
@given(data=st.data())
def test_damaged_project_loads_or_is_one_error_line(fixtures, data):
    name = data.draw(st.sampled_from(sorted(PROJECTS)), label="project")
    folder, variant = PROJECTS[name]
    work = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-project-"))
    try:
        project = work / folder
        shutil.copytree(FIXTURES / folder, project, ignore=shutil.ignore_patterns(".fmhactl"))
        what = _damage(data, project, fixtures.trees[name])
        commands = ["project", "list", "verify", "tma"] + (["status"] if name == "seeds" else [])  # tma: no milestones
        command = data.draw(st.sampled_from(commands), label="command")
        home = work / "home"
        before = _rows(home)
        result = CliRunner().invoke(app, _commands(project, variant, work / "out")[command],
                                    env={"FMHACTL_HOME": str(home), "FMHACTL_ASSUME_NO_GPU": "1",
                                         "FMHACTL_PROJECT": None})
        allowed = {"verify": (2, 3), "tma": (0, 1, 2), "status": (0, 2)}.get(command, (0, 2))
        assert_clean_outcome(result, allowed, f"{what}; {command}", command)
        if command == "verify" and result.exit_code == 2:
            assert _rows(home) == before, f"{what}: a refused verify recorded rows"
        if command in ("project", "list") and result.exit_code == 0:
            json.loads(result.stdout)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- regressions: each failed before the fix it names -----------------------------------------

def _copy(tmp_path: Path, name: str = "seeds") -> Path:
    folder, _ = PROJECTS[name]
    project = tmp_path / folder
    shutil.copytree(FIXTURES / folder, project, ignore=shutil.ignore_patterns(".fmhactl"))
    return project


def _invoke(project: Path, tmp_path: Path, *args: str):
    return CliRunner().invoke(app, ["--project", str(project), *args],
                              env={"FMHACTL_HOME": str(tmp_path / "home"), "FMHACTL_ASSUME_NO_GPU": "1",
                                   "FMHACTL_PROJECT": None})


def test_a_symlink_loop_the_project_names_is_one_error_line(tmp_path):
    """Path.resolve() raises RuntimeError (not OSError) on a symlink loop: `fmhactl project` on a
    project whose milestones file was a loop was an internal error."""
    project = _copy(tmp_path)
    damage_path("symlink_loop", project / "milestones.toml")
    result = _invoke(project, tmp_path, "project")
    assert_clean_outcome(result, (2,), "milestones.toml loops")
    assert "project.milestones" in result.stderr and "milestones.toml" in result.stderr


def test_a_source_name_too_long_for_the_file_system_is_one_error_line(tmp_path):
    """is_file() raises ENAMETOOLONG for a 300-character name (the schema allows 400): internal error."""
    project = _copy(tmp_path)
    file = project / "fmhactl.toml"
    file.write_text(file.read_text().replace('source = "attention/fmha_heads.cu"', f'source = "{"x" * 300}.cu"'))
    result = _invoke(project, tmp_path, "list")
    assert_clean_outcome(result, (2,), "long source name")
    assert "source" in result.stderr and str(file) in result.stderr
    assert "not a usable path" in result.stderr  # the one path question of fmhactl/paths.py


def test_paths_resolved_names_the_input_where_a_symlink_loops(tmp_path):
    """project/files.py had its own copy of this (resolved/_is); the one in fmhactl/paths.py
    serves it now: a loop (RuntimeError on 3.11, OSError later) is one BadInput naming the input."""
    from fmhactl import paths
    from fmhactl.errors import BadInput

    loop = tmp_path / "loop.toml"
    damage_path("symlink_loop", loop)
    with pytest.raises(BadInput) as caught:
        paths.resolved(loop, "included file")
    message = str(caught.value)
    assert message.startswith("included file ") and "cannot be resolved" in message and "loop.toml" in message
    assert paths.resolved(tmp_path / "absent.toml", "included file") == (tmp_path / "absent.toml").resolve()


def test_an_included_file_that_loops_names_the_project_file_and_the_field(tmp_path):
    project = _copy(tmp_path)
    file = project / "fmhactl.toml"
    file.write_text(file.read_text().replace("[project]\n", '[project]\ninclude = ["loop.toml"]\n', 1))
    damage_path("symlink_loop", project / "loop.toml")
    result = _invoke(project, tmp_path, "list")
    assert_clean_outcome(result, (2,), "include loops")
    assert f"{file}: project.include[0]:" in result.stderr and "cannot be resolved" in result.stderr


@pytest.mark.parametrize("text, where", [
    ("min()", "min takes 2"), ("max(1)", "max takes 2"), ("ceil_div(heads)", "ceil_div takes 2"),
    ("1e999", "not a finite number"),
])
def test_a_formula_no_evaluation_could_use_is_refused_at_load(tmp_path, text, where):
    """min() / max(1) / ceil_div(x) passed the load check and raised TypeError when evaluated; 1e999
    raised OverflowError (int(inf)): internal errors at `verify`. Both are refused at load now."""
    project = _copy(tmp_path)
    file = project / "fmhactl.toml"
    file.write_text(file.read_text().replace('grid = [1, "heads", "batch"]', f'grid = [1, "{text}", "batch"]'))
    result = _invoke(project, tmp_path, "list")
    assert_clean_outcome(result, (2,), text)
    assert "launch.grid[1]" in result.stderr and where in result.stderr, result.stderr


def test_a_formula_that_overflows_when_evaluated_is_bad_input(tmp_path):
    """1e308 * 10 is inf only once evaluated: int(inf) raised OverflowError (internal error); now
    one line naming the launch formulas, before any GPU is asked for."""
    project = _copy(tmp_path)
    file = project / "fmhactl.toml"
    file.write_text(file.read_text().replace("smem = 0", 'smem = "1e308 * 10"'))
    result = _invoke(project, tmp_path, "verify", "heads_bf16", "--shape", SHAPE)
    assert_clean_outcome(result, (2,), "1e308 * 10")
    assert "launch formulas" in result.stderr and "finite" in result.stderr, result.stderr


def test_a_kernel_source_that_is_not_utf8_still_hashes(tmp_path):
    """A Latin-1 byte in a kernel header's comment (NVRTC takes it) made the source hash raise
    UnicodeDecodeError: `status` of the project was an internal error."""
    project = _copy(tmp_path)
    header = project / "attention" / "fmha_heads.cuh"
    header.write_bytes(b"// caf\xe9\n" + header.read_bytes())
    result = _invoke(project, tmp_path, "status", "--out", str(tmp_path / "out"))
    assert_clean_outcome(result, (0,), "latin-1 comment")
