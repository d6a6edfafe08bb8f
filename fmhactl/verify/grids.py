"""Named grids of attention configs, read from scenarios/grids/<name>.toml.

A grid file holds optional [defaults] and one or more [[product]] tables; every field of a
product is a value or a list of values, and the grid is the union of the cartesian products.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput, FmhactlError


@dataclass(frozen=True)
class Grid:
    name: str
    description: str
    configs: tuple[AttnConfig, ...]


def grid_dir() -> Path:
    return paths.scenarios_dir() / "grids"


def available_grids() -> list[str]:
    return sorted(p.stem for p in grid_dir().glob("*.toml"))


def load_grid(name_or_path: str) -> Grid:
    path = Path(name_or_path)
    if not path.suffix:
        path = grid_dir() / f"{name_or_path}.toml"
    if not path.is_file():
        raise BadInput(f"unknown grid {name_or_path!r} (known: {', '.join(available_grids())})")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: malformed TOML: {exc}") from None
    defaults = data.get("defaults", {})
    products = data.get("product", [])
    if not isinstance(defaults, dict) or not isinstance(products, list) or not products:
        raise BadInput(f"{path}: a grid needs at least one [[product]] table")
    configs: dict[AttnConfig, None] = {}
    for index, product in enumerate(products):
        if not isinstance(product, dict):
            raise BadInput(f"{path}: product {index} is not a table")
        fields = {**defaults, **product}
        names = list(fields)
        axes = [v if isinstance(v, list) else [v] for v in fields.values()]
        for values in itertools.product(*axes):
            try:
                configs[AttnConfig.from_dict(dict(zip(names, values)))] = None
            except FmhactlError as exc:
                raise BadInput(f"{path}: product {index}: {exc}") from None
            except TypeError as exc:
                raise BadInput(f"{path}: product {index}: {exc}") from None
    return Grid(data.get("name", path.stem), data.get("description", ""), tuple(configs))
