"""Every repository file path named in a comment or a doc resolves.

A path is `fmhactl/...`, `kernels/...`, `docs/...`, `tests/...` or `scripts/...` ending in .py, .cuh,
.h or .md, written anywhere in the sources, headers, scripts and docs under those folders or in
README.md (not preceded by another path character, so `/abs/fmhactl/x.py` and `a/docs/x.md` are
not taken for repository paths). Globs and placeholders (`tests/*.py`, `scripts/device/ptx_*`)
name no single file and are not matched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("fmhactl", "kernels", "docs", "tests", "scripts")
SCANNED_SUFFIXES = (".py", ".cuh", ".h", ".cu", ".cpp", ".md", ".sh", ".toml")
PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(ROOTS) + r")/[\w./-]*\.(?:py|cuh|h|md))(?![\w-])")

# Broken names in files this branch may not edit, each owned by another piece of work; every entry
# must still be broken (a fixed one makes test_known_broken_paths_are_still_broken ask for its removal).
KNOWN_BROKEN: dict[tuple[str, str], str] = {}

# Files whose `kernels/...` names are paths inside a user's kernel project (what `fmhactl init`
# writes), not in this repository.
PROJECT_RELATIVE = {"fmhactl/project/scaffold.py"}


def scanned_files() -> list[Path]:
    files = [REPO / "README.md"]
    for root in ROOTS:
        files += [p for p in (REPO / root).rglob("*") if p.is_file() and p.suffix in SCANNED_SUFFIXES
                  and "__pycache__" not in p.parts]
    return sorted(p for p in files if p != Path(__file__).resolve())  # this file names missing paths on purpose


def named_paths(text: str) -> list[tuple[int, str]]:
    return [(number, m.group(1)) for number, line in enumerate(text.splitlines(), 1) for m in PATH.finditer(line)]


def broken_paths() -> list[tuple[str, int, str]]:
    found = []
    for path in scanned_files():
        where = path.relative_to(REPO).as_posix()
        for number, named in named_paths(path.read_text(errors="replace")):
            if not (REPO / named).exists() and where not in PROJECT_RELATIVE:
                found.append((where, number, named))
    return found


def test_every_named_path_resolves():
    broken = [f"{where}:{number}: {named}" for where, number, named in broken_paths()
              if (where, named) not in KNOWN_BROKEN]
    assert broken == []


def test_known_broken_paths_are_still_broken():
    still = {(where, named) for where, _, named in broken_paths()}
    for (where, named), why in KNOWN_BROKEN.items():
        if (where, named) not in still:
            pytest.fail(f"{where} no longer names a missing {named}: remove it from KNOWN_BROKEN ({why})")


@pytest.mark.parametrize("text, expected", [
    ("see tests/trace/test_cost_model.py (it checks)", ["tests/trace/test_cost_model.py"]),
    ("// Mirrored by fmhactl/runtime/launchers.py::Sm90Plan", ["fmhactl/runtime/launchers.py"]),
    ("[x](docs/layout.md) and `kernels/common/tcgen05.cuh`", ["docs/layout.md", "kernels/common/tcgen05.cuh"]),
    ("/work/main/fmhactl/x.py, ../docs/y.md, tests/*.py, scripts/device/ptx_*", []),
])
def test_the_scanner_finds_repository_paths_only(text, expected):
    assert [named for _, named in named_paths(text)] == expected


def test_the_check_catches_a_missing_file(tmp_path, monkeypatch):
    """The contract can fail: a doc naming a file that is not there is reported."""
    probe = REPO / "docs" / "_paths_probe.md"
    probe.write_text("See fmhactl/no_such_module.py.\n")
    try:
        assert ("docs/_paths_probe.md", 1, "fmhactl/no_such_module.py") in broken_paths()
    finally:
        probe.unlink()
