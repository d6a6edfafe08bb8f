"""Scenario files: scenarios/<name>.toml with a name, a description and [[step]] tables.

Step types and their fields (fmhactl.schemas declares them; unknown fields are refused):
  build    variants = [...] | all = true, arch = "sm_90a" (optional)                  CPU
  verify   variants = [...], grid = NAME | shapes = [...], timeout_s                     GPU
  bench    variant, shapes = [...], baseline = "cudnn", min_ratio = 0.1, warmup, iters   GPU
  profile  variant, shape, recipe = "default", clock_control = "none"                    GPU
  fmhactl  args = [...], expect_exit = 0, expect_text = "...", requires_command = "layout"
           (runs `python -m fmhactl ARGS`; SKIPPED when requires_command is not a command)
  layout   same as fmhactl with requires_command defaulting to "layout"
  pytest   args = [...], expect_exit = 0 (runs `python -m pytest ARGS` in the checkout)
Every step may set name and `gpu = true|false` to override whether it needs a GPU.

Loading checks everything a step names against what exists (variants, grids, recipes, shapes),
so a broken step is a load error (exit 2), never a SKIPPED step at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fmhactl import paths
from fmhactl.errors import BadInput, FmhactlError

STEP_TYPES = {"build": False, "verify": True, "bench": True, "profile": True, "fmhactl": False, "layout": False,
              "pytest": False}
RESERVED = {"milestones"}  # scenarios/*.toml files that are not scenarios


@dataclass(frozen=True)
class Step:
    type: str
    name: str
    needs_gpu: bool
    options: dict = field(default_factory=dict)
    spec: Any = None  # the validated fmhactl.schemas step model


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


def scenario_path(name_or_path: str) -> Path:
    from fmhactl.schemas import check_name, shown

    if name_or_path.endswith(".toml") or "/" in name_or_path or "\\" in name_or_path:
        path = Path(name_or_path)
        if not paths.is_file(path, "scenario file"):
            raise BadInput(f"scenario file {shown(name_or_path)} not found")
        return path
    try:
        check_name(name_or_path, "scenario")
    except BadInput:
        raise BadInput(f"unknown scenario {shown(name_or_path)} (known: {', '.join(available_scenarios())})") from None
    path = paths.scenarios_dir() / f"{name_or_path}.toml"
    if not path.is_file() or path.stem in RESERVED:
        raise BadInput(f"unknown scenario {name_or_path!r} (known: {', '.join(available_scenarios())})")
    return path


def _check_names(path: Path, index: int, spec) -> None:
    """Every variant, grid, recipe and shape a step names must exist / parse."""
    from fmhactl.config import parse_shape
    from fmhactl.profile.recipes import load_recipe
    from fmhactl.registry import get_variant, load_registry
    from fmhactl.verify.grids import load_grid

    where = f"{path}: step[{index}]"
    try:
        registry = load_registry()
        for n in getattr(spec, "variants", None) or []:
            get_variant(n, registry)
        if getattr(spec, "variant", None):
            get_variant(spec.variant, registry)
        if getattr(spec, "grid", None):
            load_grid(spec.grid)
        for text in (getattr(spec, "shapes", None) or []) + ([spec.shape] if getattr(spec, "shape", None) else []):
            cfg = parse_shape(text)
            if spec.type in ("bench", "profile"):  # these need every shape to run (verify records UNSUPPORTED)
                reason = get_variant(spec.variant, registry).unsupported_reason(cfg)
                if reason:
                    raise BadInput(f"{spec.variant} cannot run {cfg.key}: {reason}")
        if spec.type == "profile":
            load_recipe(spec.recipe)
    except FmhactlError as exc:
        raise BadInput(f"{where} ({spec.type}): {exc}") from None


def load_scenario(name_or_path: str) -> Scenario:
    from fmhactl.schemas import ScenarioFile, read_toml, validate

    path = scenario_path(name_or_path)
    model = validate(ScenarioFile, read_toml(path, "scenario"), path)
    steps = []
    for index, spec in enumerate(model.step):
        _check_names(path, index, spec)
        options = spec.model_dump(exclude={"type", "name", "gpu"}, exclude_none=True)
        name = spec.name or f"{spec.type} {index + 1}"
        needs_gpu = STEP_TYPES[spec.type] if spec.gpu is None else spec.gpu
        steps.append(Step(type=spec.type, name=name, needs_gpu=needs_gpu, options=options, spec=spec))
    return Scenario(name=model.name or path.stem, description=model.description, steps=tuple(steps), path=path)
