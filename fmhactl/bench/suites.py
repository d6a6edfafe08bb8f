"""Named benchmark suites: scenarios/bench/<name>.toml holds a list of --shape strings."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.config import AttnConfig, parse_shape
from fmhactl.errors import BadInput


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    configs: tuple[AttnConfig, ...]


def suites_dir() -> Path:
    return paths.project_root() / "scenarios" / "bench"


def available() -> list[str]:
    return sorted(p.stem for p in suites_dir().glob("*.toml"))


def load_suite(name: str) -> Suite:
    if not name or len(name) > 64 or not all(c.isascii() and (c.isalnum() or c in "-_") for c in name):
        raise BadInput(f"--suite {name[:64]!r}: a suite name is letters, digits, '-' and '_' "
                       f"(known: {', '.join(available()) or 'none'})")
    path = suites_dir() / f"{name}.toml"
    if not path.is_file():
        raise BadInput(f"unknown bench suite {name!r} (known: {', '.join(available()) or 'none'})")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: malformed TOML: {exc}") from None
    shapes = data.get("shapes")
    if not isinstance(shapes, list) or not shapes or not all(isinstance(s, str) for s in shapes):
        raise BadInput(f"{path}: 'shapes' must be a non-empty list of shape strings")
    return Suite(str(data.get("name", name)), str(data.get("description", "")),
                 tuple(parse_shape(s) for s in shapes))
