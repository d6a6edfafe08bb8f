"""Scenario files: scenarios/<name>.toml with a name, a description and [[step]] tables.

Step types and their fields:
  build    variants = [...] | all = true, arch = "sm_90a" (optional)                  CPU
  verify   variants = [...], grid = NAME | shapes = [...], timeout_s                     GPU
  bench    variant, shapes = [...], baseline = "cudnn", min_ratio = 0.1, warmup, iters   GPU
  profile  variant, shape, recipe = "default", clock_control = "none"                    GPU
  fmhactl  args = [...], expect_exit = 0, expect_text = "...", requires_command = "layout"
           (runs `python -m fmhactl ARGS`; SKIPPED when requires_command is not a command)
  layout   same as fmhactl with requires_command defaulting to "layout"
Every step may set name and `gpu = true|false` to override whether it needs a GPU.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput

STEP_TYPES = {"build": False, "verify": True, "bench": True, "profile": True, "fmhactl": False, "layout": False}
RESERVED = {"milestones"}  # scenarios/*.toml files that are not scenarios


@dataclass(frozen=True)
class Step:
    type: str
    name: str
    needs_gpu: bool
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    steps: tuple[Step, ...]
    path: Path


def scenario_files() -> list[Path]:
    return sorted(p for p in paths.scenarios_dir().glob("*.toml") if p.stem not in RESERVED)


def available_scenarios() -> list[str]:
    return [p.stem for p in scenario_files()]


def _list_of_str(path: Path, index: int, key: str, value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadInput(f"{path}: step {index}: {key} must be a list of strings")
    return value


def _check_step(path: Path, index: int, kind: str, table: dict) -> None:
    need = {"verify": ("variants",), "bench": ("variant", "shapes"), "profile": ("variant", "shape"),
            "fmhactl": ("args",), "layout": ("args",)}.get(kind, ())
    for key in need:
        if key not in table:
            raise BadInput(f"{path}: step {index} ({kind}) needs {key!r}")
    if kind == "verify" and bool(table.get("grid")) == bool(table.get("shapes")):
        raise BadInput(f"{path}: step {index} (verify) needs exactly one of grid or shapes")
    if kind == "build" and not (table.get("variants") or table.get("all")):
        raise BadInput(f"{path}: step {index} (build) needs variants or all = true")
    for key in ("variants", "shapes", "args"):
        if key in table:
            _list_of_str(path, index, key, table[key])
    if "min_ratio" in table and not isinstance(table["min_ratio"], (int, float)):
        raise BadInput(f"{path}: step {index}: min_ratio must be a number")
    if "expect_exit" in table and not isinstance(table["expect_exit"], int):
        raise BadInput(f"{path}: step {index}: expect_exit must be an integer")


def load_scenario(name_or_path: str) -> Scenario:
    path = Path(name_or_path)
    if not path.suffix:
        path = paths.scenarios_dir() / f"{name_or_path}.toml"
    if not path.is_file() or path.stem in RESERVED:
        raise BadInput(f"unknown scenario {name_or_path!r} (known: {', '.join(available_scenarios())})")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: malformed TOML: {exc}") from None
    tables = data.get("step", [])
    if not isinstance(tables, list) or not tables:
        raise BadInput(f"{path}: a scenario needs at least one [[step]] table")
    steps = []
    for index, table in enumerate(tables, 1):
        if not isinstance(table, dict):
            raise BadInput(f"{path}: step {index} is not a table")
        kind = table.get("type")
        if kind not in STEP_TYPES:
            raise BadInput(f"{path}: step {index}: type must be one of {', '.join(STEP_TYPES)}, got {kind!r}")
        _check_step(path, index, kind, table)
        options = {k: v for k, v in table.items() if k not in ("type", "name", "gpu")}
        name = str(table.get("name") or f"{kind} {index}")
        steps.append(Step(type=kind, name=name, needs_gpu=bool(table.get("gpu", STEP_TYPES[kind])),
                          options=options))
    return Scenario(name=str(data.get("name", path.stem)), description=str(data.get("description", "")),
                    steps=tuple(steps), path=path)
