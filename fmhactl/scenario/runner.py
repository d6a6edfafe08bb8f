"""Run a scenario's steps in order; each step ends PASS, FAIL, SKIPPED or ERROR.

Steps that need a GPU are SKIPPED where there is none; a step whose environment is missing
(no ncu, no GPU) is SKIPPED with that reason; bad input in the scenario is an ERROR. Every
result a step produces goes to the results store through the ordinary services.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from fmhactl import paths
from fmhactl.errors import FmhactlError, MissingEnvironment
from fmhactl.results.store import ResultStore
from fmhactl.scenario.model import Scenario, Step

PASS, FAIL, SKIPPED, ERROR = "PASS", "FAIL", "SKIPPED", "ERROR"


@dataclass
class StepResult:
    name: str
    type: str
    status: str
    seconds: float = 0.0
    message: str = ""
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "type": self.type, "status": self.status, "seconds": round(self.seconds, 3),
                "message": self.message, "details": self.details}


@dataclass
class ScenarioResult:
    scenario: str
    description: str
    steps: list[StepResult] = field(default_factory=list)
    seconds: float = 0.0
    gpu: str | None = None

    @property
    def counts(self) -> Counter:
        return Counter(s.status for s in self.steps)

    @property
    def ok(self) -> bool:
        return not (self.counts[FAIL] or self.counts[ERROR])

    def to_dict(self) -> dict:
        c = self.counts
        return {"scenario": self.scenario, "description": self.description, "ok": self.ok,
                "seconds": round(self.seconds, 3), "gpu": self.gpu,
                "counts": {k: c[k] for k in (PASS, FAIL, SKIPPED, ERROR)},
                "steps": [s.to_dict() for s in self.steps]}


def detect_gpu() -> tuple[str | None, str]:
    """(arch, '') when a GPU is usable here, else (None, why). Asks the driver, creates no context."""
    if os.environ.get("FMHACTL_ASSUME_NO_GPU"):
        return None, "FMHACTL_ASSUME_NO_GPU is set"
    from fmhactl.build.service import native_arch

    try:
        return native_arch(), ""
    except MissingEnvironment as exc:
        return None, str(exc)


def registered_commands() -> set[str]:
    """Top-level fmhactl commands and command groups present in this checkout."""
    from fmhactl.cli.app import app

    names: set[str] = set()
    for command in app.registered_commands:
        names.add(command.name or command.callback.__name__.replace("_", "-"))
    for group in app.registered_groups:
        name = group.name or (group.typer_instance.info.name if group.typer_instance else None)
        if name:
            names.add(str(name))
    return names


class _Skip(Exception):
    pass


class _Fail(Exception):
    def __init__(self, message: str, details: dict | None = None) -> None:
        super().__init__(message)
        self.details = details or {}


def _configs(step: Step):
    from fmhactl.config import parse_shape
    from fmhactl.verify.grids import load_grid

    if step.options.get("grid"):
        return list(load_grid(step.options["grid"]).configs)
    return [parse_shape(s) for s in step.options.get("shapes") or [step.options["shape"]]]


def _run_build(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.build.compiler import CompileError
    from fmhactl.build.service import build_variants

    try:
        results = build_variants(step.options.get("variants", []), all_variants=bool(step.options.get("all")),
                                 arch=step.options.get("arch"), force=bool(step.options.get("force")), store=store)
    except CompileError as exc:
        raise _Fail(str(exc).splitlines()[0] if str(exc) else "compile error", {"error": str(exc)}) from None
    builds = [{"variant": r.variant, "arch": r.target.label, "cache_hit": r.cache_hit,
               "registers": max((k.registers for k in r.kernels), default=0),
               "spills": sum(k.spill_stores + k.spill_loads for k in r.kernels)} for r in results]
    return f"{len(results)} builds ({sum(r.cache_hit for r in results)} cached)", {"builds": builds}


def _run_verify(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.registry import get_variant
    from fmhactl.verify.sweep import run_verify

    from fmhactl.sweep.service import current_placement, sweep_verify

    variants = [get_variant(n) for n in step.options["variants"]]
    timeout_s = float(step.options.get("timeout_s", 30.0))
    if placement := current_placement.get():  # scenario run --gpus/--ray
        summary, _ = sweep_verify(variants, _configs(step), store=store, placement=placement, timeout_s=timeout_s,
                                  seed=step.options.get("seed"))
    else:
        summary = run_verify(variants, _configs(step), store=store, timeout_s=timeout_s, seed=step.options.get("seed"))
    counts = dict(summary.counts)
    failing = [{"variant": r.variant, "config": r.config_key, "status": r.status,
                "max_abs_err": r.metrics.get("max_abs_err"), "reasons": r.metrics.get("reasons"),
                "error": r.metrics.get("error")}
               for r in summary.rows if r.status in ("FAIL", "CRASH", "HANG", "ERROR")]
    details = {"session": summary.session, "counts": counts, "failing": failing}
    if not summary.ok:
        raise _Fail(summary.closing_line(), details)
    if not counts.get("PASS"):
        raise _Fail("no config passed (" + summary.closing_line() + ")", details)
    return summary.closing_line(), details


def _run_bench(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.bench.service import run_bench
    from fmhactl.registry import get_variant

    baseline = str(step.options.get("baseline", "cudnn"))
    min_ratio = float(step.options.get("min_ratio", 0.0))
    from fmhactl.sweep.service import current_placement, sweep_bench

    bench = run_bench
    if placement := current_placement.get():  # scenario run --gpus/--ray
        def bench(*args, **kwargs):
            return sweep_bench(*args, placement=placement, **kwargs)[0]
    rows = bench(get_variant(step.options["variant"]), _configs(step), store=store,
                 warmup=int(step.options.get("warmup", 10)), iters=int(step.options.get("iters", 50)),
                 baselines=[baseline], timeout_s=float(step.options.get("timeout_s", 120.0)))
    results, problems = [], []
    for row in rows:
        kernel = row.metrics.get("kernel", {})
        base = row.metrics.get("baselines", {}).get(baseline, {})
        ratio = base.get("ratio")
        results.append({"config": row.config_key, "status": row.status, "mode": row.mode,
                        "tflops": kernel.get("tflops"), "median_ms": kernel.get("median_ms"),
                        f"{baseline}_tflops": base.get("tflops"), "ratio": ratio})
        if row.status != "OK":
            problems.append(f"{row.config_key}: {row.status} {row.metrics.get('error', '')}".strip())
        elif not base.get("available", False):
            problems.append(f"{row.config_key}: baseline {baseline} unavailable: {base.get('reason', '?')}")
        elif ratio is None or ratio < min_ratio:
            problems.append(f"{row.config_key}: ratio {ratio if ratio is None else round(ratio, 3)} "
                            f"< {min_ratio} of {baseline}")
    details = {"baseline": baseline, "min_ratio": min_ratio, "results": results}
    if problems:
        raise _Fail("; ".join(problems), details)
    worst = min(r["ratio"] for r in results)
    return f"{len(results)} configs, worst ratio {worst:.3f} vs {baseline} (threshold {min_ratio})", details


def _run_profile(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.config import parse_shape
    from fmhactl.profile.recipes import load_recipe
    from fmhactl.profile.service import run_profile
    from fmhactl.registry import get_variant

    result = run_profile(get_variant(step.options["variant"]), parse_shape(step.options["shape"]),
                         load_recipe(step.options.get("recipe", "default")), store=store,
                         clock_control=step.options.get("clock_control", "none"),
                         warmup=int(step.options.get("warmup", 2)))
    s = result.summary
    details = {"report": str(result.report), "summary": s, "result_id": result.row.id}
    tflops = s.get("tflops")
    message = (f"{s.get('duration_us') or 0:.2f} us, {tflops or 0:.1f} TFLOP/s"
               f" ({s.get('pct_of_tensor_peak') or 0:.1f}% of tensor peak), report {result.report.name}")
    return message, details


def _run_command(step: Step, store: ResultStore) -> tuple[str, dict]:
    args = [str(a) for a in step.options["args"]]
    required = step.options.get("requires_command", args[0] if step.type == "layout" else None)
    if required and required not in registered_commands():
        raise _Skip(f"`fmhactl {required}` is not in this checkout")
    env = dict(os.environ)
    root = str(paths.project_root())
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "fmhactl", *args], capture_output=True, text=True,
                          timeout=float(step.options.get("timeout_s", 300.0)), env=env, cwd=root)
    expect_exit = int(step.options.get("expect_exit", 0))
    texts = step.options.get("expect_text", [])
    texts = [texts] if isinstance(texts, str) else list(texts)
    output = proc.stdout + proc.stderr
    details = {"command": ["fmhactl", *args], "exit": proc.returncode, "expect_exit": expect_exit,
               "output_tail": output[-2000:]}
    if proc.returncode != expect_exit:
        last = [ln for ln in output.strip().splitlines() if ln.strip()][-1:] or [""]
        raise _Fail(f"exit {proc.returncode}, expected {expect_exit}: {last[0][:200]}", details)
    missing = [t for t in texts if t not in output]
    if missing:
        raise _Fail(f"output lacks {missing!r}", details)
    return f"exit {proc.returncode}" + (f", found {len(texts)} expected text(s)" if texts else ""), details


_RUNNERS: dict[str, Callable[[Step, ResultStore], tuple[str, dict]]] = {
    "build": _run_build, "verify": _run_verify, "bench": _run_bench, "profile": _run_profile,
    "fmhactl": _run_command, "layout": _run_command,
}


def run_step(step: Step, store: ResultStore, gpu_arch: str | None, no_gpu_reason: str) -> StepResult:
    start = time.perf_counter()
    result = StepResult(step.name, step.type, PASS)
    try:
        if step.needs_gpu and gpu_arch is None:
            raise _Skip(f"needs a GPU: {no_gpu_reason}")
        result.message, result.details = _RUNNERS[step.type](step, store)
    except _Skip as exc:
        result.status, result.message = SKIPPED, str(exc)
    except _Fail as exc:
        result.status, result.message, result.details = FAIL, str(exc), exc.details
    except MissingEnvironment as exc:
        result.status, result.message = SKIPPED, str(exc)
    except FmhactlError as exc:
        result.status, result.message = ERROR, str(exc)
    except subprocess.TimeoutExpired as exc:
        result.status, result.message = FAIL, f"timed out after {exc.timeout:g} s"
    except Exception as exc:  # noqa: BLE001 - a step's bug must not stop the scenario
        result.status, result.message = ERROR, f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - start
    return result


def run_scenario(scenario: Scenario, *, store: ResultStore | None = None,
                 on_start: Callable[[int, Step], None] | None = None,
                 on_end: Callable[[int, StepResult], None] | None = None,
                 gpu: tuple[str | None, str] | None = None) -> ScenarioResult:
    start = time.perf_counter()
    needs_gpu = any(s.needs_gpu for s in scenario.steps)
    gpu_arch, reason = gpu if gpu is not None else (detect_gpu() if needs_gpu else (None, "not probed"))
    result = ScenarioResult(scenario.name, scenario.description, gpu=gpu_arch)
    owned = store is None
    store = store or ResultStore()
    try:
        for index, step in enumerate(scenario.steps, 1):
            if on_start:
                on_start(index, step)
            step_result = run_step(step, store, gpu_arch, reason)
            result.steps.append(step_result)
            if on_end:
                on_end(index, step_result)
    finally:
        if owned:
            store.close()
    result.seconds = time.perf_counter() - start
    return result
