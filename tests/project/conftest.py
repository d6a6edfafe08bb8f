"""Kernel-project tests: the seeds-style fixture project (FMHACTL_PROJECT is restored after every
test by tests/conftest.py, for every test)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "seeds_project"


@pytest.fixture
def seeds_copy(tmp_path) -> Path:
    """The seeds-style fixture project, copied (tests write results and status files into it)."""
    target = tmp_path / "seeds_project"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns(".fmhactl"))
    return target
