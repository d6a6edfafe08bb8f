"""Profiling recipes: which ncu sections and metrics a run collects, read from profiles/<name>.toml."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput

_SAFE = re.compile(r"^[A-Za-z0-9_.]+$")


@dataclass(frozen=True)
class Recipe:
    name: str
    description: str = ""
    sections: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    set_name: str = ""  # ncu --set, when given
    extra_args: tuple[str, ...] = ()

    def ncu_args(self) -> list[str]:
        args: list[str] = []
        if self.set_name:
            args += ["--set", self.set_name]
        for section in self.sections:
            args += ["--section", section]
        if self.metrics:
            args += ["--metrics", ",".join(self.metrics)]
        return args + list(self.extra_args)

    def to_dict(self) -> dict:
        return {"name": self.name, "description": self.description, "sections": list(self.sections),
                "metrics": list(self.metrics), "set": self.set_name, "extra_args": list(self.extra_args)}


def recipes_dir() -> Path:
    return paths.profiles_dir()


def available_recipes() -> list[str]:
    return sorted(p.stem for p in recipes_dir().glob("*.toml"))


def load_recipe(name_or_path: str) -> Recipe:
    path = Path(name_or_path)
    if not path.suffix:
        path = recipes_dir() / f"{name_or_path}.toml"
    if not path.is_file():
        raise BadInput(f"unknown profile recipe {name_or_path!r} (known: {', '.join(available_recipes())})")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: malformed TOML: {exc}") from None
    sections = data.get("sections", [])
    metrics = data.get("metrics", [])
    extra = data.get("extra_args", [])
    for label, values in (("sections", sections), ("metrics", metrics), ("extra_args", extra)):
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise BadInput(f"{path}: {label} must be a list of strings")
    for value in (*sections, *metrics):
        if not _SAFE.match(value):
            raise BadInput(f"{path}: {value!r} is not a section or metric name")
    set_name = data.get("set", "")
    if not isinstance(set_name, str) or (set_name and not _SAFE.match(set_name)):
        raise BadInput(f"{path}: set must be an ncu set name")
    if not (sections or metrics or set_name):
        raise BadInput(f"{path}: a recipe needs sections, metrics or a set")
    return Recipe(name=data.get("name", path.stem), description=data.get("description", ""),
                  sections=tuple(sections), metrics=tuple(metrics), set_name=set_name,
                  extra_args=tuple(extra))
