"""scenario: named step sequences run through the services (never through the CLI)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fmhactl import paths
from fmhactl.build.compiler import CompileError
from fmhactl.progress import CancelToken, ProgressCallback
from fmhactl.records import BenchMetrics, VerifyMetrics
from fmhactl.results.store import ResultStore
from fmhactl.scenario.model import Scenario, Step, available_scenarios, load_scenario
from fmhactl.scenario.runner import Fail, ScenarioResult, Skip, StepRunner, run_steps

__all__ = ["list_scenarios", "load_scenario", "run_scenario", "run", "ScenarioResult"]


def list_scenarios() -> list[Scenario]:
    return [load_scenario(n) for n in available_scenarios()]


def _step_timeout(step: Step, default: float) -> float:
    return float(step.options.get("timeout_s", default))


def _build(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.services.build import build

    try:
        results = build(step.options.get("variants", []), all_variants=bool(step.options.get("all")),
                        arch=step.options.get("arch"), force=bool(step.options.get("force")), store=store)
    except CompileError as exc:
        raise Fail(str(exc).splitlines()[0] if str(exc) else "compile error", {"error": str(exc)}) from None
    builds = [{"variant": r.variant, "arch": r.target.label, "cache_hit": r.cache_hit,
               "registers": max((k.registers for k in r.kernels), default=0),
               "spills": sum(k.spill_stores + k.spill_loads for k in r.kernels)} for r in results]
    return f"{len(results)} builds ({sum(r.cache_hit for r in results)} cached)", {"builds": builds}


def _verify(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.services.kernels import verify

    from fmhactl.sweep.service import current_placement

    o = step.options
    outcome = verify(o["variants"], grid=o.get("grid"), shapes=o.get("shapes"), seed=o.get("seed"),
                     timeout_s=_step_timeout(step, 30.0), store=store, placement=current_placement.get())
    failing = []
    for r in outcome.rows:
        if r.status in ("FAIL", "CRASH", "HANG", "ERROR"):
            m = VerifyMetrics.from_dict(r.metrics)
            failing.append({"variant": r.variant, "config": r.config_key, "status": r.status,
                            "max_abs_err": m.max_abs_err, "reasons": list(m.reasons), "error": m.error})
    details = {"session": outcome.session, "counts": outcome.counts, "failing": failing}
    if not outcome.ok:
        raise Fail(outcome.closing_line(), details)
    if not outcome.counts.get("PASS"):
        raise Fail("no config passed (" + outcome.closing_line() + ")", details)
    return outcome.closing_line(), details


def _bench(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.services.kernels import bench

    o = step.options
    baseline = str(o.get("baseline", "cudnn"))
    min_ratio = float(o.get("min_ratio", 0.0))
    from fmhactl.sweep.service import current_placement

    outcome = bench(o["variant"], o["shapes"], warmup=int(o.get("warmup", 10)), iters=int(o.get("iters", 50)),
                    baselines=[baseline], timeout_s=_step_timeout(step, 120.0), store=store,
                    placement=current_placement.get())
    results, problems = [], []
    for row in outcome.rows:
        m = BenchMetrics.from_dict(row.metrics)
        base = m.baseline(baseline)
        ratio = base.ratio if base else None
        results.append({"config": row.config_key, "status": row.status, "mode": row.mode,
                        "tflops": m.kernel.tflops if m.kernel else None,
                        "median_ms": m.kernel.median_ms if m.kernel else None,
                        f"{baseline}_tflops": base.timing.tflops if base and base.timing else None, "ratio": ratio})
        if row.status != "OK":
            problems.append(f"{row.config_key}: {row.status} {m.error}".strip())
        elif base is None or not base.available:
            problems.append(f"{row.config_key}: baseline {baseline} unavailable: {base.reason if base else '?'}")
        elif ratio is None or ratio < min_ratio:
            problems.append(f"{row.config_key}: ratio {ratio if ratio is None else round(ratio, 3)} "
                            f"< {min_ratio} of {baseline}")
    details = {"baseline": baseline, "min_ratio": min_ratio, "results": results}
    if problems:
        raise Fail("; ".join(problems), details)
    worst = min(r["ratio"] for r in results)
    return f"{len(results)} configs, worst ratio {worst:.3f} vs {baseline} (threshold {min_ratio})", details


def _profile(step: Step, store: ResultStore) -> tuple[str, dict]:
    from fmhactl.services.profile import profile

    o = step.options
    outcome = profile(o["variant"], o["shape"], recipe=o.get("recipe", "default"),
                      clock_control=o.get("clock_control", "none"), warmup=int(o.get("warmup", 2)),
                      timeout_s=_step_timeout(step, 600.0), store=store)
    s = outcome.metrics.summary
    details = {"report": str(outcome.report), "result_id": outcome.row.id, "duration_us": s.duration_us,
               "tflops": s.tflops, "pct_of_tensor_peak": s.pct_of_tensor_peak}
    message = (f"{s.duration_us or 0:.2f} us, {s.tflops or 0:.1f} TFLOP/s"
               f" ({s.pct_of_tensor_peak or 0:.1f}% of tensor peak), report {outcome.report.name}")
    return message, details


def _fmhactl_env() -> dict:
    env = dict(os.environ)
    root = str(paths.project_root())
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _command_exists(name: str) -> bool:
    """Asks the installed CLI (a subprocess), so this layer never imports the CLI."""
    proc = subprocess.run([sys.executable, "-m", "fmhactl", name, "--help"], capture_output=True, text=True,
                          timeout=120, env=_fmhactl_env(), cwd=str(paths.project_root()))
    return proc.returncode == 0


def _command(step: Step, store: ResultStore) -> tuple[str, dict]:
    """Run `fmhactl ARGS` as a user would and check its exit code and output (a CLI test step)."""
    args = [str(a) for a in step.options["args"]]
    required = step.options.get("requires_command", args[0] if step.type == "layout" else None)
    if required and not _command_exists(required):
        raise Skip(f"`fmhactl {required}` is not in this checkout")
    program = "pytest" if step.type == "pytest" else "fmhactl"
    proc = subprocess.run([sys.executable, "-m", program, *args], capture_output=True, text=True,
                          timeout=_step_timeout(step, 300.0), env=_fmhactl_env(), cwd=str(paths.project_root()))
    expect_exit = int(step.options.get("expect_exit", 0))
    texts = step.options.get("expect_text", [])
    texts = [texts] if isinstance(texts, str) else list(texts)
    output = proc.stdout + proc.stderr
    details = {"command": [program, *args], "exit": proc.returncode, "expect_exit": expect_exit,
               "output_tail": output[-2000:]}
    if proc.returncode != expect_exit:
        last = [ln for ln in output.strip().splitlines() if ln.strip()][-1:] or [""]
        raise Fail(f"exit {proc.returncode}, expected {expect_exit}: {last[0][:200]}", details)
    missing = [t for t in texts if t not in output]
    if missing:
        raise Fail(f"output lacks {missing!r}", details)
    return f"exit {proc.returncode}" + (f", found {len(texts)} expected text(s)" if texts else ""), details


RUNNERS: dict[str, StepRunner] = {"build": _build, "verify": _verify, "bench": _bench, "profile": _profile,
                                  "fmhactl": _command, "layout": _command, "pytest": _command}


def detect_gpu() -> tuple[str | None, str]:
    from fmhactl.runtime.device import probe

    status = probe()
    return (status.arch, "") if status.available else (None, status.reason)


def run_scenario(scenario: Scenario, *, store: ResultStore | None = None, on_start=None, on_end=None,
                 gpu: tuple[str | None, str] | None = None, progress: ProgressCallback | None = None,
                 cancel: CancelToken | None = None) -> ScenarioResult:
    """Run a loaded scenario; GPU probed only when a step needs one."""
    if gpu is None:
        gpu = detect_gpu() if any(s.needs_gpu for s in scenario.steps) else (None, "not probed")
    return run_steps(scenario, RUNNERS, gpu=gpu, store=store, on_start=on_start, on_end=on_end,
                     progress=progress, cancel=cancel)


def run(name: str, *, junit: Path | None = None, json_out: Path | None = None, on_start=None, on_end=None,
        progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> ScenarioResult:
    """`fmhactl scenario run`: load (all names checked), check output paths, run, write JUnit/JSON."""
    import json

    from fmhactl.scenario.junit import junit_xml
    from fmhactl.services import common

    scenario = load_scenario(name)
    common.output(junit, "--junit")
    common.output(json_out, "--json-out")
    result = run_scenario(scenario, on_start=on_start, on_end=on_end, progress=progress, cancel=cancel)
    if junit:
        common.output_folders(junit, "--junit").write_text(junit_xml(result))
    if json_out:
        data = {**result.to_dict(), "schema_version": _schema()}
        common.output_folders(json_out, "--json-out").write_text(
            json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
    return result


def _schema() -> int:
    from fmhactl.records import RECORD_SCHEMA

    return RECORD_SCHEMA
