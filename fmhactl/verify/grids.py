"""Named grids of attention configs, read from scenarios/grids/<name>.toml.

A grid file holds optional [defaults] and one or more [[product]] tables; every field of a
product is a value or a non-empty list of values, and the grid is the union of the cartesian
products. The file is checked against fmhactl.schemas.GridFile, and its size is computed before
a single config is built: more than MAX_GRID_CONFIGS is refused.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput, FmhactlError

MAX_GRID_CONFIGS = 20000


@dataclass(frozen=True)
class Grid:
    name: str
    description: str
    configs: tuple[AttnConfig, ...]


def grid_dir() -> Path:
    return paths.scenarios_dir() / "grids"


def available_grids() -> list[str]:
    return sorted(p.stem for p in grid_dir().glob("*.toml"))


def grid_path(name_or_path: str) -> Path:
    """A grid name (scenarios/grids/<name>.toml) or the path of a .toml file; BadInput if neither."""
    from fmhactl.schemas import check_name, shown

    if name_or_path.endswith(".toml") or "/" in name_or_path or "\\" in name_or_path:
        path = Path(name_or_path)
        if not paths.is_file(path, "grid file"):
            raise BadInput(f"grid file {shown(name_or_path)} not found")
        return path
    check_name(name_or_path, "grid")
    path = grid_dir() / f"{name_or_path}.toml"
    if not path.is_file():
        raise BadInput(f"unknown grid {name_or_path!r} (known: {', '.join(available_grids())})")
    return path


def load_grid(name_or_path: str) -> Grid:
    from fmhactl.schemas import GridFile, read_toml, validate

    path = grid_path(name_or_path)
    model = validate(GridFile, read_toml(path, "grid"), path)
    defaults = dict(model.defaults)
    size = 0
    for product in model.product:
        fields = {**defaults, **product}
        size += math.prod(len(v) if isinstance(v, list) else 1 for v in fields.values())
        if size > MAX_GRID_CONFIGS:
            raise BadInput(f"{path}: the grid has more than {MAX_GRID_CONFIGS} configs "
                           f"(at least {size}); split it")
    configs: dict[AttnConfig, None] = {}
    for index, product in enumerate(model.product):
        fields = {**defaults, **product}
        names = list(fields)
        axes = [v if isinstance(v, list) else [v] for v in fields.values()]
        for values in itertools.product(*axes):
            row = dict(zip(names, values))
            if row.get("heads_kv") == 0:
                raise BadInput(f"{path}: product[{index}].heads_kv: must be positive (leave it out for 'same as heads')")
            try:
                configs[AttnConfig.from_dict(row)] = None
            except FmhactlError as exc:
                raise BadInput(f"{path}: product[{index}]: {exc}") from None
            except TypeError as exc:
                raise BadInput(f"{path}: product[{index}]: {exc}") from None
    return Grid(model.name or path.stem, model.description, tuple(configs))
