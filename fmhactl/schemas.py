"""Declared schemas for every TOML/JSON file fmhactl reads: scenarios, grids, milestones,
profiling recipes and milestones/status.json (pydantic, strict: no coercion of "false" to False).

`read_toml` / `read_json` turn unreadable, oversized, non-UTF-8 or malformed files into one
BadInput line with `file:line`; `validate` turns schema violations into one BadInput line with
the key path (`file: step[2].gpu: Input should be a valid boolean`). Names the files refer to
(variants, grids, recipes) are checked against what exists by the loaders that know them.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from fmhactl.errors import BadInput
from fmhactl.records import KNOWN_BASELINES

MAX_INPUT_FILE_BYTES = 1 << 20  # no scenario, grid or recipe is anywhere near 1 MiB
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")

M = TypeVar("M", bound=BaseModel)


def shown(value: object, limit: int = 60) -> str:
    """A user-given value for an error line: repr (so odd characters are visible), truncated."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…'"


def check_name(value: str, what: str) -> str:
    """A plain name (no path separators, printable ASCII, <= 64 chars) or BadInput."""
    if not isinstance(value, str) or not NAME_PATTERN.match(value):
        raise BadInput(f"{what} {shown(value)} is not a valid name (letters, digits, _ . + -; at most 64; "
                       "no path separators)")
    return value


def read_capped(path: Path, limit: int) -> bytes | None:
    """The bytes of path, or None when it holds more than limit. The limit is applied to what is
    read, not to what stat says: a device (/dev/zero, /dev/urandom) reports size 0 and never ends,
    so reading it whole would take every byte of memory."""
    with path.open("rb") as f:
        data = f.read(limit + 1)
    return None if len(data) > limit else data


def _read_text(path: Path, what: str) -> str:
    try:
        if path.is_dir():
            raise BadInput(f"{path}: {what} is a folder, a file is needed")
        size = path.stat().st_size
    except FileNotFoundError:
        raise BadInput(f"{what} file not found: {path}") from None
    except OSError as exc:
        raise BadInput(f"{path}: {what} cannot be read ({exc.strerror or exc})") from None
    if size > MAX_INPUT_FILE_BYTES:
        raise BadInput(f"{path}: {what} is {size} bytes, more than the {MAX_INPUT_FILE_BYTES} a {what} may have")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"{path}: {what} cannot be read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BadInput(f"{path}:{line}: {what} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def read_toml(path: Path, what: str) -> dict:
    text = _read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _TOML_AT.search(message)
        if at:
            return_line = at.group(1)
            raise BadInput(f"{path}:{return_line}: malformed TOML: {_TOML_AT.sub('', message).strip()}") from None
        raise BadInput(f"{path}: malformed TOML: {message}") from None


def read_json(path: Path, what: str) -> Any:
    text = _read_text(path, what)
    if not text.strip():
        raise BadInput(f"{path}: {what} is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from None


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part) in {"build", "verify", "bench", "profile", "fmhactl", "layout", "pytest"} and out.endswith("]"):
            continue  # the discriminated union's tag adds nothing to the path
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def validate(model: type[M], data: Any, origin: Path | str) -> M:
    """data as model, or BadInput naming the file, the key path and the rule of the first problem."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = "unknown field"
        elif first["type"] == "missing" and first["loc"]:
            message = f"needs {str(first['loc'][-1])!r}"
        if message.startswith(("step[", "product[", "defaults")) and not first["loc"]:
            raise BadInput(f"{origin}: {message}") from None
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        raise BadInput(f"{origin}: {_loc(tuple(first['loc']))}: {message}{more}") from None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


PositiveSeconds = Annotated[float, Field(gt=0, le=86400, allow_inf_nan=False)]
NonEmptyStr = Annotated[str, Field(min_length=1, max_length=400)]


# ---- scenarios -------------------------------------------------------------------------------

class _StepBase(_Strict):
    name: Annotated[str, Field(max_length=200)] | None = None
    gpu: bool | None = None
    timeout_s: PositiveSeconds | None = None


class BuildStep(_StepBase):
    type: Literal["build"]
    variants: list[NonEmptyStr] = []
    all: bool = False
    arch: Literal["sm_80", "sm_90a", "sm_100a", "native"] | None = None
    force: bool = False

    @model_validator(mode="after")
    def _something(self) -> "BuildStep":
        if not self.variants and not self.all:
            raise ValueError("a build step needs variants or all = true")
        return self


class VerifyStep(_StepBase):
    type: Literal["verify"]
    variants: Annotated[list[NonEmptyStr], Field(min_length=1)]
    grid: NonEmptyStr | None = None
    shapes: Annotated[list[NonEmptyStr], Field(min_length=1)] | None = None
    seed: Annotated[int, Field(ge=0, lt=2**31)] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> "VerifyStep":
        if (self.grid is None) == (self.shapes is None):
            raise ValueError("a verify step needs exactly one of grid or shapes")
        return self


class BenchStep(_StepBase):
    type: Literal["bench"]
    variant: NonEmptyStr
    shapes: Annotated[list[NonEmptyStr], Field(min_length=1)]
    baseline: Literal[KNOWN_BASELINES] = "cudnn"
    min_ratio: Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False)] = 0.0
    warmup: Annotated[int, Field(ge=0, le=10000)] = 10
    iters: Annotated[int, Field(ge=1, le=100000)] = 50


class ProfileStep(_StepBase):
    type: Literal["profile"]
    variant: NonEmptyStr
    shape: NonEmptyStr
    recipe: NonEmptyStr = "default"
    clock_control: Literal["none", "base"] = "none"
    warmup: Annotated[int, Field(ge=0, le=1000)] = 2


class CommandStep(_StepBase):
    type: Literal["fmhactl", "layout", "pytest"]
    args: Annotated[list[Annotated[str, Field(max_length=4000)]], Field(min_length=1)]
    expect_exit: Annotated[int, Field(ge=0, le=255)] = 0
    expect_text: str | list[str] = []
    requires_command: NonEmptyStr | None = None


Step = Annotated[Union[BuildStep, VerifyStep, BenchStep, ProfileStep, CommandStep], Field(discriminator="type")]
STEP_TYPES = ("build", "verify", "bench", "profile", "fmhactl", "layout", "pytest")


class ScenarioFile(_Strict):
    name: Annotated[str, Field(max_length=200)] | None = None
    description: Annotated[str, Field(max_length=2000)] = ""
    step: Annotated[list[Step], Field(min_length=1, max_length=500)]

    @model_validator(mode="before")
    @classmethod
    def _step_types(cls, data: Any) -> Any:
        if isinstance(data, dict):
            if "step" not in data:
                raise ValueError("a scenario needs at least one [[step]] table")
            steps = data.get("step")
            if isinstance(steps, list):
                for index, step in enumerate(steps):
                    if isinstance(step, dict) and step.get("type") not in STEP_TYPES:
                        raise ValueError(f"step[{index}]: type must be one of {', '.join(STEP_TYPES)}, "
                                         f"got {shown(step.get('type'))}")
        return data


# ---- grids -----------------------------------------------------------------------------------

GRID_FIELDS = ("batch", "heads", "heads_kv", "seq_q", "seq_k", "head_dim", "dtype", "causal",
               "window_left", "window_right", "sink", "topk", "kv_shared", "key_ranges")  # features: docs/features.md
MAX_AXIS_VALUES = 10000


def _check_axes(table: Any, where: str) -> None:
    if not isinstance(table, dict):
        raise ValueError(f"{where}: must be a table")
    for key, value in table.items():
        if key not in GRID_FIELDS:
            raise ValueError(f"{where}.{key}: unknown config field {shown(key)} (fields: {', '.join(GRID_FIELDS)})")
        values = value if isinstance(value, list) else [value]
        if not values:
            raise ValueError(f"{where}.{key}: empty axis (give at least one value)")
        if len(values) > MAX_AXIS_VALUES:
            raise ValueError(f"{where}.{key}: more than {MAX_AXIS_VALUES} values")
        for v in values:
            if not isinstance(v, (int, str, bool)):
                raise ValueError(f"{where}.{key}: {shown(v)} is not an integer, string or boolean")


class GridFile(_Strict):
    name: Annotated[str, Field(max_length=200)] | None = None
    description: Annotated[str, Field(max_length=2000)] = ""
    defaults: dict[str, Any] = {}
    product: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=1000)]

    @model_validator(mode="before")
    @classmethod
    def _tables(cls, data: Any) -> Any:
        if isinstance(data, dict):
            if not data.get("product"):
                raise ValueError("a grid needs at least one [[product]] table")
            if "defaults" in data:
                _check_axes(data["defaults"], "defaults")
            if isinstance(data["product"], list):
                for index, table in enumerate(data["product"]):
                    _check_axes(table, f"product[{index}]")
        return data


class SuiteFile(_Strict):
    """scenarios/bench/<name>.toml: the --shape strings a named bench suite runs."""
    name: Annotated[str, Field(max_length=200)] | None = None
    description: Annotated[str, Field(max_length=2000)] = ""
    shapes: Annotated[list[Annotated[str, Field(min_length=1, max_length=400)]], Field(min_length=1, max_length=1000)]


# ---- milestones ------------------------------------------------------------------------------

MilestoneId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


_CHECK_NAME = re.compile(r"^[A-Za-z0-9_.-]+:[^:\s][^:]*$")


class MilestoneEntry(_Strict):
    id: MilestoneId
    title: NonEmptyStr
    variants: list[NonEmptyStr] = []
    grids: list[NonEmptyStr] = []
    scenario: str = ""
    blocked: str = ""
    depends: list[MilestoneId] = []
    what: Annotated[str, Field(max_length=4000)] = ""
    # "kind:name" result rows that must pass (integration checks, not grids)
    checks: list[Annotated[str, Field(max_length=200)]] = []

    @model_validator(mode="after")
    def _proves_something(self) -> "MilestoneEntry":
        for check in self.checks:
            if not _CHECK_NAME.match(check):
                raise ValueError(f"checks must read kind:name (a result kind, a colon, a name); got {check!r}")
        if not self.variants and not self.checks:
            raise ValueError(f"milestone {self.id} names no variants and no checks")
        return self


class MilestonesFile(_Strict):
    milestone: Annotated[list[MilestoneEntry], Field(min_length=1, max_length=500)]

    @model_validator(mode="after")
    def _ids_and_dependencies(self) -> "MilestonesFile":
        ids = [m.id for m in self.milestone]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"milestone id {repeated[0]!r} is repeated")
        known = set(ids)
        for m in self.milestone:
            unknown = [d for d in m.depends if d not in known]
            if unknown:
                raise ValueError(f"milestone {m.id} depends on unknown {', '.join(unknown)}")
        cycle = _find_cycle({m.id: list(m.depends) for m in self.milestone})
        if cycle:
            raise ValueError(f"dependency cycle: {' -> '.join(cycle)}")
        return self


def _find_cycle(edges: dict[str, list[str]]) -> list[str]:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in edges.get(node, []):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return []

    for node in edges:
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


# ---- milestones/status.json ------------------------------------------------------------------

State = Literal["DONE", "STALE", "IN PROGRESS", "NOT RUN", "BLOCKED"]


class MilestoneState(_Strict):
    state: State
    modes: dict[str, State] = {}


class StatusFile(BaseModel):
    """{milestone id: {"state": ..., "modes": {mode: state}}} as `fmhactl status` writes it."""

    model_config = ConfigDict(strict=True)
    states: dict[MilestoneId, MilestoneState]

    @classmethod
    def parse(cls, data: Any, origin: Path) -> dict[str, dict]:
        if not isinstance(data, dict) or not data:
            raise BadInput(f"{origin}: a status file is a non-empty JSON object of milestone states")
        model = validate(cls, {"states": data}, origin)
        return {k: v.model_dump() for k, v in model.states.items()}


# ---- profiling recipes -----------------------------------------------------------------------

NcuName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.]{1,200}$")]


class RecipeFile(_Strict):
    name: Annotated[str, Field(max_length=64)] | None = None
    description: Annotated[str, Field(max_length=2000)] = ""
    sections: Annotated[list[NcuName], Field(max_length=100)] = []
    metrics: Annotated[list[NcuName], Field(max_length=1000)] = []
    set: NcuName | Literal[""] = ""
    extra_args: Annotated[list[Annotated[str, Field(pattern=r"^--?[A-Za-z0-9][A-Za-z0-9_.=:,-]{0,200}$")]],
                          Field(max_length=50)] = []

    @model_validator(mode="after")
    def _collects_something(self) -> "RecipeFile":
        if not (self.sections or self.metrics or self.set):
            raise ValueError("a recipe needs sections, metrics or a set")
        return self


def finite_positive(value: float, option: str, *, maximum: float | None = None) -> float:
    """A finite number > 0 (and <= maximum), or BadInput naming the option."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise BadInput(f"{option} must be a finite number > 0, got {shown(value)}")
    if maximum is not None and value > maximum:
        raise BadInput(f"{option} must be at most {maximum:g}, got {value:g}")
    return float(value)


def int_in_range(value: int, option: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadInput(f"{option} must be an integer in {lo}..{hi}, got {shown(value)}")
    return value


# ---- the kernel registry (kernels/family.toml) ------------------------------------------------

# Switches that size a tile or a ring: a launcher divides by them, so 0 is refused here, at load.
SIZE_SWITCHES = frozenset({"FMHA_BLOCK_M", "FMHA_BLOCK_N", "FMHA_STAGES", "FMHA_STAGES_D64"})
# Switches the tile plans read as numbers (fmhactl/plans: int(switches[...])), sizes among them:
# a string there is refused at load, not met as a ValueError when a plan is made.
NUMERIC_SWITCH = re.compile(r"^FMHA_(BLOCK_M|BLOCK_N|STAGES|STAGES_D\d+|BN_D\d+|CONSUMERS|P_SMEM|TOPK|PERSISTENT|"
                            r"EXP2_POLY|LOAD_TMA)$")
SIZE_SWITCH = re.compile(r"^FMHA_(BLOCK_M|BLOCK_N|STAGES|STAGES_D\d+|BN_D\d+|CONSUMERS)$")
Switch = Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]{0,63}$")]
PositiveInt = Annotated[int, Field(ge=1, le=1 << 20)]


class VariantEntry(_Strict):
    name: Annotated[str, Field(pattern=NAME_PATTERN.pattern)]
    description: Annotated[str, Field(max_length=2000)] = ""
    source: Annotated[str, Field(min_length=1, max_length=400)]
    archs: Annotated[list[Literal["sm_80", "sm_90a", "sm_100a"]], Field(min_length=1, max_length=3)]
    launcher: Annotated[str, Field(pattern=NAME_PATTERN.pattern)]
    kernel: Annotated[str, Field(min_length=1, max_length=200)]
    switches: dict[Switch, Annotated[int, Field(ge=0, le=1 << 20)] | Annotated[str, Field(max_length=200)]] = {}
    dtypes: Annotated[list[Literal["bf16", "f16"]], Field(min_length=1, max_length=2)] = ["bf16", "f16"]
    head_dims: Annotated[list[PositiveInt], Field(max_length=64)] = []
    head_dim_multiple: Annotated[int, Field(ge=1, le=512)] = 8
    max_head_dim: Annotated[int, Field(ge=1, le=4096)] = 256
    max_seq_q: Annotated[int, Field(ge=0, le=2**31 - 1)] = 0
    max_seq_k: Annotated[int, Field(ge=0, le=2**31 - 1)] = 0
    features: Annotated[list[Annotated[str, Field(pattern=r"^[a-z0-9_]{1,32}$")]], Field(max_length=32)] = []
    emulated_on: Annotated[list[Literal["sm_80", "sm_90a", "sm_100a"]], Field(max_length=3)] = []
    selftest: bool = False
    # Runs a narrower head dim (a multiple of 8) on its next wider entry through the TMA loads'
    # zero fill and the TMA store's clipping, with tensor maps over the caller's tensors
    # (fmhactl/torch/backends.py `kernel_head_dim`): only the sm90 launcher builds such maps.
    tma_head_dim_fill: bool = False
    index64: bool = False  # offsets in 64 bits: tensors past 2^31-1 elements (docs/features.md)

    @model_validator(mode="after")
    def _sizes_positive(self) -> "VariantEntry":
        for key in sorted(self.switches):
            value = self.switches[key]
            if (key in SIZE_SWITCHES or SIZE_SWITCH.match(key)) and (not isinstance(value, int) or value < 1):
                raise ValueError(f"switches.{key} sizes a tile or a ring: it must be an integer >= 1, "
                                 f"got {shown(value)}")
            if NUMERIC_SWITCH.match(key) and not isinstance(value, int):
                raise ValueError(f"switches.{key} is read as a number: it must be an integer, got {shown(value)}")
        for label, items in (("head_dims", self.head_dims), ("features", self.features), ("archs", self.archs)):
            if len(set(items)) != len(items):
                raise ValueError(f"{label} names an item twice")
        if self.tma_head_dim_fill and self.launcher != "sm90":
            raise ValueError(f"tma_head_dim_fill needs launcher 'sm90' (the one whose tensor maps cover the "
                             f"caller's tensors), not {shown(self.launcher)}")
        return self


class FamilyFile(_Strict):
    variant: Annotated[list[VariantEntry], Field(min_length=1, max_length=1000)]

    @model_validator(mode="after")
    def _names_unique(self) -> "FamilyFile":
        names = [v.name for v in self.variant]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"variant {twice[0]!r} defined twice")
        return self
