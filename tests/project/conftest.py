"""Kernel-project tests: FMHACTL_PROJECT is restored after every test (the CLI's --project
exports it into the process, and a leftover would move later tests into another project)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fmhactl import paths

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "seeds_project"


@pytest.fixture(autouse=True)
def _project_env(monkeypatch):
    monkeypatch.setenv(paths.PROJECT_ENV, "unset")
    monkeypatch.delenv(paths.PROJECT_ENV)


@pytest.fixture
def seeds_copy(tmp_path) -> Path:
    """The seeds-style fixture project, copied (tests write results and status files into it)."""
    target = tmp_path / "seeds_project"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns(".fmhactl"))
    return target
