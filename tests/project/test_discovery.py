"""Which project a command uses: the working directory upward, --project, $FMHACTL_PROJECT, and the
built-in family where there is none; results and cache belong to the project."""

from __future__ import annotations

import json
import os

from typer.testing import CliRunner

from fmhactl import paths
from fmhactl.cli.app import app
from fmhactl.registry import load_registry


def project_json(*args: str):
    result = CliRunner().invoke(app, [*args, "project", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cwd_finds_the_project(seeds_copy, monkeypatch):
    monkeypatch.chdir(seeds_copy)
    info = project_json()
    assert info["name"] == "seeds_fixture" and info["builtin"] is False and info["variants"] == 1
    assert info["schema_version"] >= 1


def test_parent_folders_are_searched(seeds_copy, monkeypatch):
    deep = seeds_copy / "attention" / "deeper"
    deep.mkdir()
    monkeypatch.chdir(deep)
    assert paths.discover_project() == seeds_copy.resolve()
    assert list(load_registry()) == ["heads_bf16"]


def test_project_option_beats_the_working_directory(seeds_copy, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert project_json()["builtin"] is True  # nothing above tmp: the built-in family
    info = project_json("--project", str(seeds_copy))
    assert info["name"] == "seeds_fixture"
    # exported, so workers and ncu subprocesses (another working directory) use it too
    assert os.environ[paths.PROJECT_ENV] == str(seeds_copy.resolve())


def test_environment_variable_names_the_project(seeds_copy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(paths.PROJECT_ENV, str(seeds_copy / "fmhactl.toml"))  # the file works too
    assert project_json()["name"] == "seeds_fixture"


def test_bad_project_option_is_one_line_exit_2(tmp_path):
    for target, fragment in ((tmp_path / "missing", "no such folder"), (tmp_path, "no fmhactl.toml there")):
        result = CliRunner().invoke(app, ["--project", str(target), "list"])
        assert result.exit_code == 2, result.output
        lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and fragment in lines[0] and "Traceback" not in result.output


def test_results_and_cache_belong_to_the_project(seeds_copy, monkeypatch, tmp_path):
    monkeypatch.delenv("FMHACTL_HOME")
    monkeypatch.chdir(seeds_copy)
    assert paths.work_dir() == seeds_copy.resolve() / ".fmhactl"
    home = tmp_path / "home"
    monkeypatch.setenv("FMHACTL_HOME", str(home))
    # one shared home: each project in a folder of its own, the built-in family at its top
    assert paths.work_dir().parent == home / "projects" and "seeds_project" in paths.work_dir().name
    monkeypatch.chdir(paths.project_root())
    assert paths.work_dir() == home


def test_source_hash_survives_moving_the_project(seeds_copy, tmp_path, monkeypatch):
    import shutil

    from fmhactl.build.hashing import source_hash

    monkeypatch.chdir(seeds_copy)
    here = source_hash(load_registry()["heads_bf16"].source_path)
    moved = tmp_path / "moved"
    shutil.copytree(seeds_copy, moved)
    monkeypatch.chdir(moved)
    assert source_hash(load_registry()["heads_bf16"].source_path) == here


def test_status_writes_the_projects_own_files(seeds_copy, monkeypatch):
    monkeypatch.chdir(seeds_copy)
    result = CliRunner().invoke(app, ["status", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [m["id"] for m in report["milestones"]] == ["S1"]
    assert (seeds_copy / "STATUS.md").is_file() and (seeds_copy / "milestones" / "S1.md").is_file()
    assert not (paths.project_root() / "milestones" / "S1.md").exists()
