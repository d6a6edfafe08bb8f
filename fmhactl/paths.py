"""Where the project's files live: the kernel tree, scenarios, and the local results area."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fmhactl.errors import BadInput, MissingEnvironment

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


def _usable_dir(path: Path, what: str) -> Path:
    """Create path if needed and prove it takes a file: MissingEnvironment (exit 3) otherwise."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise MissingEnvironment(f"{what} {path} exists and is not a folder") from None
    except OSError as exc:
        raise MissingEnvironment(f"{what} {path} cannot be created: {exc.strerror or exc}") from None
    if not path.is_dir():
        raise MissingEnvironment(f"{what} {path} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise MissingEnvironment(f"{what} {path} is not writable: {exc.strerror or exc}") from None
    return path


_checked: set[str] = set()


def work_dir() -> Path:
    """Project-local state: results database, build cache, profiler reports (FMHACTL_HOME overrides)."""
    env = os.environ.get("FMHACTL_HOME")
    if env is not None and (not env.strip() or "\0" in env):
        raise MissingEnvironment(f"FMHACTL_HOME={env!r} is not a usable path")
    path = Path(env) if env else project_root() / ".fmhactl"
    if str(path) not in _checked:
        _usable_dir(path, "FMHACTL_HOME" if env else "the work folder")
        _checked.add(str(path))
    return path


def cache_dir() -> Path:
    path = work_dir() / "cache"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MissingEnvironment(f"build cache {path} cannot be created: {exc.strerror or exc}") from None
    return path


def results_db_path() -> Path:
    return work_dir() / "results.sqlite"


def check_output_path(path: Path, option: str) -> Path:
    """Fail before any work when an output file cannot be written (BadInput, exit 2).

    The parent folder is created if missing; an existing file must be a writable regular file.
    """
    text = str(path)
    if not text or "\0" in text:
        raise BadInput(f"{option}: {text!r} is not a file path")
    if path.exists() and path.is_dir():
        raise BadInput(f"{option} {path}: is a folder, a file path is needed")
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"{option} {path}: folder {parent} cannot be created ({exc.strerror or exc})") from None
    if not parent.is_dir():
        raise BadInput(f"{option} {path}: {parent} is not a folder")
    try:
        if path.exists():
            with path.open("ab"):
                pass
        else:
            with tempfile.TemporaryFile(dir=parent):
                pass
    except OSError as exc:
        raise BadInput(f"{option} {path}: not writable ({exc.strerror or exc})") from None
    return path
