"""Profiling recipes: which ncu sections and metrics a run collects, read from profiles/<name>.toml."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput

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


def load_recipe(name: str) -> Recipe:
    """profiles/<name>.toml, checked against fmhactl.schemas.RecipeFile; names only, no paths."""
    from fmhactl.schemas import RecipeFile, check_name, read_toml, shown, validate

    try:
        check_name(name, "recipe")
    except BadInput:
        raise BadInput(f"unknown profile recipe {shown(name)} (a recipe is a name, not a path; known: "
                       f"{', '.join(available_recipes())})") from None
    path = recipes_dir() / f"{name}.toml"
    if not path.is_file():
        raise BadInput(f"unknown profile recipe {name!r} (known: {', '.join(available_recipes())})")
    model = validate(RecipeFile, read_toml(path, "recipe"), path)
    return Recipe(name=model.name or path.stem, description=model.description, sections=tuple(model.sections),
                  metrics=tuple(model.metrics), set_name=model.set, extra_args=tuple(model.extra_args))
