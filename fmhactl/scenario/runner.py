"""The scenario engine: run steps in order; each step ends PASS, FAIL, SKIPPED or ERROR.

What each step type does is given by the caller (fmhactl.services.scenario supplies runners that
call the services). Steps that need a GPU are SKIPPED where there is none; a step whose
environment is missing (no ncu) is SKIPPED with that reason. Bad input never reaches here as a
SKIPPED step: the loader (fmhactl.scenario.model) refuses it before the run starts.
"""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from fmhactl.errors import Cancelled, FmhactlError, MissingEnvironment
from fmhactl.progress import CancelToken, ProgressCallback, check_cancel, notify
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


class Skip(Exception):
    """A step cannot run here (its command group is absent, its environment is missing)."""


class Fail(Exception):
    """A step ran and its check failed."""

    def __init__(self, message: str, details: dict | None = None) -> None:
        super().__init__(message)
        self.details = details or {}


StepRunner = Callable[[Step, ResultStore], tuple[str, dict]]


def run_step(step: Step, store: ResultStore, gpu_arch: str | None, no_gpu_reason: str,
             runners: dict[str, StepRunner]) -> StepResult:
    start = time.perf_counter()
    result = StepResult(step.name, step.type, PASS)
    try:
        if step.needs_gpu and gpu_arch is None:
            raise Skip(f"needs a GPU: {no_gpu_reason}")
        result.message, result.details = runners[step.type](step, store)
    except Skip as exc:
        result.status, result.message = SKIPPED, str(exc)
    except Cancelled:
        raise
    except Fail as exc:
        result.status, result.message, result.details = FAIL, str(exc), exc.details
    except MissingEnvironment as exc:  # no ncu for a GPU step: skipped; anything else is an error
        result.status, result.message = (SKIPPED if step.needs_gpu else ERROR), str(exc)
    except FmhactlError as exc:
        result.status, result.message = ERROR, str(exc)
    except subprocess.TimeoutExpired as exc:
        result.status, result.message = FAIL, f"timed out after {exc.timeout:g} s"
    except Exception as exc:  # noqa: BLE001 - a step's bug must not stop the scenario
        result.status, result.message = ERROR, f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - start
    return result


def run_steps(scenario: Scenario, runners: dict[str, StepRunner], *, gpu: tuple[str | None, str],
              store: ResultStore | None = None, on_start: Callable[[int, Step], None] | None = None,
              on_end: Callable[[int, StepResult], None] | None = None,
              progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> ScenarioResult:
    """Run every step with runners[step.type]; one progress event per finished step."""
    start = time.perf_counter()
    gpu_arch, reason = gpu
    result = ScenarioResult(scenario.name, scenario.description, gpu=gpu_arch)
    owned = store is None
    store = store or ResultStore()
    try:
        for index, step in enumerate(scenario.steps, 1):
            check_cancel(cancel)
            if on_start:
                on_start(index, step)
            step_result = run_step(step, store, gpu_arch, reason, runners)
            result.steps.append(step_result)
            if on_end:
                on_end(index, step_result)
            notify(progress, "step", index, len(scenario.steps), f"{step_result.status} {step.name}", step_result)
    finally:
        if owned:
            store.close()
    result.seconds = time.perf_counter() - start
    return result
