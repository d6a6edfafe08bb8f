"""Named benchmark suites: scenarios/bench/<name>.toml holds a list of --shape strings."""

from __future__ import annotations

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
    from fmhactl.schemas import SuiteFile, check_name, read_toml, validate

    check_name(name, "bench suite")
    path = suites_dir() / f"{name}.toml"
    if not path.is_file():
        raise BadInput(f"unknown bench suite {name!r} (known: {', '.join(available()) or 'none'})")
    model = validate(SuiteFile, read_toml(path, "bench suite"), path)
    configs = []
    for index, text in enumerate(model.shapes):
        try:
            configs.append(parse_shape(text))
        except BadInput as exc:  # the shape's own message, with the file and entry that gave it
            raise BadInput(f"{path}: shapes[{index}]: {exc}") from None
    return Suite(model.name or name, model.description, tuple(configs))
