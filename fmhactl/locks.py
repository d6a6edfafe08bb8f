"""An exclusive advisory lock on a file, across processes (fcntl.flock): what the build cache
holds per key while it compiles and stores, and what the results store holds while it creates or
checks its schema (SQLite answers a second process switching a new file to WAL with "database is
locked", whatever its busy timeout)."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from fmhactl.errors import MissingEnvironment


@contextlib.contextmanager
def exclusive(lock_path: Path, what: str) -> Iterator[None]:
    """Hold `lock_path` (created if absent) exclusively; `what` names the guarded thing in the one
    line MissingEnvironment gives when the lock file cannot be made."""
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock_path, "a+b")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise MissingEnvironment(f"{what} is not writable: {exc.strerror or exc}") from None
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
