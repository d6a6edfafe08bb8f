"""Corruption fuzz of the TOML inputs of the checkout: scenarios (scenarios/*.toml), grids
(scenarios/grids), bench suites (scenarios/bench), profiling recipes (profiles/) and the kernel
registry (kernels/family.toml).

Each example takes one shipped file, damages it (bytes flipped, cut or appended; a key deleted,
renamed or given a value of another type) and loads it through the service layer's loader, then
uses what loaded (a grid's configs, a scenario's steps, every registry variant's launch limits for a
few shapes). Property: the loader gives a usable result or raises BadInput (exit 2, one line) naming
the file; nothing else escapes. (`fmhactl scenario run` of a damaged file is not run here: its
steps would build and run pytest; the loader is what stands before them.)
"""

from __future__ import annotations

import shutil
import tempfile
import tomllib
from pathlib import Path
from unittest import mock

import pytest

pytest.importorskip("hypothesis")
from hypothesis import event, given, strategies as st  # noqa: E402

from fmhactl.bench import suites  # noqa: E402
from fmhactl.config import parse_shape  # noqa: E402
from fmhactl.errors import BadInput, FmhactlError  # noqa: E402
from fmhactl.profile import recipes  # noqa: E402
from fmhactl.registry import load_registry  # noqa: E402
from fmhactl.scenario.model import load_scenario  # noqa: E402
from fmhactl.verify.grids import load_grid  # noqa: E402
from tests.corruption import Artifact, fuzz_settings, mutate_bytes, mutate_tree, to_toml  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SHAPES = [parse_shape(s) for s in ("b=1,h=2,t=64,s=64,d=64", "b=2,h=8,hkv=2,t=1,s=300,d=128,causal",
                                   "b=1,h=4,t=128,s=4096,d=256,dtype=f16")]


def _files() -> dict[str, list[Path]]:
    return {
        "scenario": sorted(p for p in (REPO / "scenarios").glob("*.toml") if p.stem != "milestones"),
        "grid": sorted((REPO / "scenarios" / "grids").glob("*.toml")),
        "suite": sorted((REPO / "scenarios" / "bench").glob("*.toml")),
        "recipe": sorted((REPO / "profiles").glob("*.toml")),
        "family": [REPO / "kernels" / "family.toml"],
    }


@pytest.fixture(scope="module")
def shipped() -> Artifact:
    files = _files()
    return Artifact("shipped TOML inputs", files=files,
                    texts={str(p): p.read_text(encoding="utf-8") for group in files.values() for p in group})


def _use(kind: str, path: Path) -> None:
    """Load `path` as the service layer does, then use what it gives."""
    if kind == "scenario":
        scenario = load_scenario(str(path))
        assert scenario.steps and all(step.type for step in scenario.steps)
    elif kind == "grid":
        grid = load_grid(str(path))
        assert all(cfg.key for cfg in grid.configs)
    elif kind == "suite":
        with mock.patch.object(suites, "suites_dir", lambda: path.parent):
            suite = suites.load_suite(path.stem)
        assert suite.configs
    elif kind == "recipe":
        with mock.patch.object(recipes, "recipes_dir", lambda: path.parent):
            recipe = recipes.load_recipe(path.stem)
        recipe.ncu_args()
    else:
        for variant in load_registry(path).values():
            for cfg in SHAPES:
                reason = variant.unsupported_reason(cfg)
                assert reason is None or isinstance(reason, str)


@fuzz_settings(120)
@given(data=st.data())
def test_damaged_input_file_loads_or_is_bad_input(shipped, data):
    kind = data.draw(st.sampled_from(sorted(shipped.files)), label="kind")
    original = data.draw(st.sampled_from(shipped.files[kind]), label="file")
    text = shipped.texts[str(original)]
    work = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-input-"))
    try:
        path = work / original.name
        if data.draw(st.booleans(), label="as tree"):
            what, tree = mutate_tree(data, tomllib.loads(text))
            path.write_text(to_toml(tree), encoding="utf-8")
        else:
            what, blob = mutate_bytes(data, text.encode())
            path.write_bytes(blob)
        try:
            _use(kind, path)
            event(f"{kind}: loaded")
        except BadInput as exc:
            event(f"{kind}: bad input")
            assert str(path) in str(exc) or path.stem in str(exc), (what, str(exc))
        except FmhactlError as exc:  # pragma: no cover - the assertion says what escaped
            raise AssertionError(f"{kind} {original.name}: {what}: {type(exc).__name__} (exit {exc.code}): {exc}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- regressions: each failed before the fix it names -----------------------------------------

def test_a_bench_suite_shape_that_does_not_parse_names_the_file(tmp_path):
    """A bad shape in scenarios/bench/NAME.toml gave the shape parser's line alone: no file named."""
    (tmp_path / "s.toml").write_text('shapes = ["b=1,h=1,t=8,s=8,d=64", "b=1,zz=2"]\n')
    with mock.patch.object(suites, "suites_dir", lambda: tmp_path):
        with pytest.raises(BadInput, match=r"s\.toml: shapes\[1\]: unknown shape field 'zz'"):
            suites.load_suite("s")


def _family(tmp_path: Path, old: str, new: str) -> Path:
    text = (REPO / "kernels" / "family.toml").read_text()
    assert old in text
    path = tmp_path / "family.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_an_unknown_launcher_in_the_family_file_is_refused_at_load(tmp_path):
    """The family file's launcher names were checked only when a plan was made: `fmhactl list`
    loaded an unknown one, and verify said "unknown launcher" without naming the file."""
    path = _family(tmp_path, 'launcher = "sm100"', 'launcher = "sm200"')
    with pytest.raises(BadInput, match=r"family\.toml: variant\[\d+\]\.launcher: unknown launcher 'sm200'"):
        load_registry(path)


def test_a_switch_the_plans_read_as_a_number_must_be_one(tmp_path):
    """FMHA_P_SMEM = "yes" loaded, then int("yes") raised ValueError when any plan was made."""
    path = _family(tmp_path, "FMHA_P_SMEM = 0", 'FMHA_P_SMEM = "yes"')
    with pytest.raises(BadInput, match=r"switches\.FMHA_P_SMEM is read as a number"):
        load_registry(path)
