"""Content hash of a kernel source and every header it includes, found the way NVRTC finds them."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput

_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def include_dirs(source: Path, extra: tuple[Path, ...] | list[Path] = ()) -> list[Path]:
    """Search path for quoted includes: the including file's folder, a project's include_dirs,
    then the shipped headers (kernels/, `fmhactl include-dir`)."""
    return [source.parent, *extra, paths.kernels_dir()]


def _resolve(name: str, including: Path, search: list[Path]) -> Path | None:
    for folder in [including.parent, *search]:
        candidate = folder / name
        if candidate.is_file():
            return candidate.resolve()
    return None


def _source_text(path: Path) -> str:
    """A source's text for finding its includes: bytes that are not UTF-8 (a Latin-1 comment,
    which NVRTC compiles) kept as surrogates; BadInput when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise BadInput(f"kernel source {path} cannot be read ({exc.strerror or exc})") from None


def transitive_sources(source: Path, extra: tuple[Path, ...] | list[Path] = ()) -> list[Path]:
    """The source and all quoted includes reachable from it, in a stable order."""
    search = include_dirs(source, extra)
    seen: dict[Path, None] = {}
    stack = [source.resolve()]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen[current] = None
        for name in _INCLUDE.findall(_source_text(current)):
            found = _resolve(name, current, search)
            if found is not None:
                stack.append(found)
    return sorted(seen, key=str)


def source_hash(source: Path, extra: tuple[Path, ...] | list[Path] = ()) -> str:
    """sha256 over (relative path, bytes) of every file the source pulls in."""
    # Names relative to the active project's folder, then the checkout: a project's hashes do not
    # change when the project is moved or cloned elsewhere (the built-in project is the checkout).
    roots = (paths.active_project_dir(), paths.project_root())
    digest = hashlib.sha256()
    for file in transitive_sources(source, extra):
        name = str(file)
        for root in roots:
            try:
                name = str(file.relative_to(root))
                break
            except ValueError:
                continue
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise BadInput(f"kernel source {file} cannot be read ({exc.strerror or exc})") from None
        digest.update(os.fsencode(name) + b"\0" + data + b"\0")  # fsencode: a name NVRTC found may not be UTF-8
    return digest.hexdigest()
