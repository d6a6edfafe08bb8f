"""Checks every service applies to its arguments before any work starts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import Variant

MAX_TIMEOUT_S = 7 * 24 * 3600.0
MAX_CONFIGS = 20000
MAX_SEED = 2**62


def timeout(value: float, option: str = "--timeout") -> float:
    from fmhactl.schemas import finite_positive

    return finite_positive(value, option, maximum=MAX_TIMEOUT_S)


def seed(value: int | None, option: str = "--seed") -> int | None:
    from fmhactl.schemas import int_in_range

    return None if value is None else int_in_range(value, option, 0, MAX_SEED)


def variants(names: Sequence[str], registry: dict[str, Variant] | None = None) -> list[Variant]:
    """Registry variants for names, each once; BadInput names the unknown or repeated one."""
    from fmhactl.registry import get_variant, load_registry
    from fmhactl.schemas import shown

    registry = registry if registry is not None else load_registry()
    seen: set[str] = set()
    out = []
    for name in names:
        if name in seen:
            raise BadInput(f"variant {shown(name)} named twice")
        seen.add(name)
        out.append(get_variant(name, registry))
    return out


def variant(name: str) -> Variant:
    return variants([name])[0]


def shapes(texts: Sequence[str], option: str = "--shape") -> list[AttnConfig]:
    from fmhactl.config import parse_shape

    if len(texts) > MAX_CONFIGS:
        raise BadInput(f"{option} given {len(texts)} times; at most {MAX_CONFIGS}")
    configs = [parse_shape(t) for t in texts]
    keys = [c.key for c in configs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise BadInput(f"{option}: config {repeated[0]} given twice")
    return configs


def configs(grid: str | None, shape_texts: Sequence[str] | None, random_count: int | None = None,
            chosen: Sequence[Variant] = (), random_seed: int | None = None) -> list[AttnConfig]:
    """Exactly one of a grid name/path, shapes, or a count of random configs the chosen variants
    run (fmhactl.verify.random_grid, drawn from random_seed)."""
    from fmhactl.verify.grids import load_grid

    if sum((bool(grid), bool(shape_texts), random_count is not None)) != 1:
        raise BadInput("give exactly one of --grid NAME, --shape ... (repeatable) or --random N")
    if random_count is not None:
        from fmhactl.verify.random_grid import random_configs

        return random_configs(chosen, random_count, 0 if random_seed is None else random_seed)
    if grid:
        return list(load_grid(grid).configs)
    return shapes(list(shape_texts or []))


def output(path: Path | None, option: str) -> Path | None:
    from fmhactl.paths import check_output_path

    return None if path is None else check_output_path(Path(path), option)


def output_folders(path: Path, option: str) -> Path:
    """The writer's half of `output`: the file's missing folders made, now that it is written."""
    from fmhactl.paths import create_parent

    return create_parent(Path(path), option)
