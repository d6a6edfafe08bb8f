"""Where the project's files live: the kernel tree, scenarios, and the local results area."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def project_root() -> Path:
    """The checkout that holds kernels/ (FMHACTL_ROOT overrides, for installed copies)."""
    env = os.environ.get("FMHACTL_ROOT")
    if env:
        return Path(env).resolve()
    return PACKAGE_DIR.parent


def kernels_dir() -> Path:
    return project_root() / "kernels"


def scenarios_dir() -> Path:
    return project_root() / "scenarios"


def profiles_dir() -> Path:
    return project_root() / "profiles"


def work_dir() -> Path:
    """Project-local state: results database, build cache, profiler reports (FMHACTL_HOME overrides)."""
    env = os.environ.get("FMHACTL_HOME")
    path = Path(env) if env else project_root() / ".fmhactl"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    path = work_dir() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_db_path() -> Path:
    return work_dir() / "results.sqlite"
