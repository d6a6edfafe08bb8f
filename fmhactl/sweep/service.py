"""Sweeps beyond one GPU: verify, bench and the CPU self-test through the one scheduler.

`Placement` says where the work goes: `--gpus all|N|0,2,5` (one local worker per GPU) or
`--ray [ADDRESS]` (Ray actors on a cluster; a local one when no address is given). Ray is
imported only on the Ray path.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.jobs import fresh_seed
from fmhactl.sweep.devices import (LOCAL_RAY, Device, check_ray_address, cpu_slots, local_gpus, parse_gpus,
                                    select_gpus)
from fmhactl.sweep.scheduler import Backend, SweepRun, run_sweep
from fmhactl.sweep.tasks import SELFTEST_VARIANTS, BuildMemo, KernelTask, SelftestTask

@dataclass(frozen=True)
class Placement:
    gpus: str | None = None   # all | N | 0,2,5 (local GPUs; with Ray: all or a count)
    ray: str | None = None    # a Ray address, or "local" for a local cluster
    jobs: int | None = None   # CPU slots for CPU-only work

    @property
    def active(self) -> bool:
        return self.gpus is not None or self.ray is not None

    def check(self) -> None:
        """Bad combinations are bad input before any work starts."""
        if self.gpus is not None:
            wanted = parse_gpus(self.gpus)
            if self.ray is not None and isinstance(wanted, list):
                raise BadInput("--gpus with --ray takes all or a count (Ray places actors, not indices)")
        if self.jobs is not None and self.jobs < 1:
            raise BadInput(f"--jobs {self.jobs}: must be at least 1")
        if self.ray is not None:
            check_ray_address(self.ray)


def placement_from_options(gpus: str | None, ray: str | None, jobs: int | None = None) -> Placement | None:
    """The CLI's --gpus/--ray/--jobs as a Placement, or None for the ordinary one-worker path."""
    if ray is not None and not ray.strip():
        ray = LOCAL_RAY
    placement = Placement(gpus=gpus, ray=ray, jobs=jobs)
    placement.check()
    return placement if placement.active or jobs is not None else None


# `scenario run --gpus/--ray` sets this around the run so verify and bench steps use it.
current_placement: contextvars.ContextVar[Placement | None] = contextvars.ContextVar("fmhactl_placement",
                                                                                     default=None)


def gpu_backend(placement: Placement, timeout_s: float, *, devices: Sequence[Device] | None = None,
                command: Callable[[Device], list[str]] | None = None) -> Backend:
    if placement.ray is not None:
        from fmhactl.sweep.ray_backend import RayBackend

        if placement.ray == LOCAL_RAY and devices is None:
            local_gpus()  # a local cluster has this machine's GPUs: none is exit 3 before Ray starts
        count = parse_gpus(placement.gpus) if placement.gpus else "all"
        return RayBackend(placement.ray, kind="gpu", count=count, timeout_s=timeout_s)
    from fmhactl.sweep.local import LocalBackend, default_command

    chosen = select_gpus(placement.gpus or "all", list(devices) if devices is not None else None)
    return LocalBackend(chosen, timeout_s=timeout_s, command=command or default_command)


def cpu_backend(placement: Placement, timeout_s: float, *, default_jobs: int = 2,
                command: Callable[[Device], list[str]] | None = None) -> Backend:
    jobs = placement.jobs or default_jobs
    if placement.ray is not None:
        from fmhactl.sweep.ray_backend import RayBackend

        return RayBackend(placement.ray, kind="cpu", count=placement.jobs or "all", timeout_s=timeout_s)
    from fmhactl.sweep.local import LocalBackend, default_command

    return LocalBackend(cpu_slots(jobs), timeout_s=timeout_s, command=command or default_command)


def kernel_tasks(op: str, variants: Sequence[Variant], configs: Sequence[AttnConfig], *, seed: int,
                 session: str, extra: dict | None = None) -> list[KernelTask]:
    """Tasks in the one-GPU order: every config of the first variant, then the next variant's."""
    memo = BuildMemo()
    tasks = []
    for variant in variants:
        for config_index, cfg in enumerate(configs):
            tasks.append(KernelTask(op, len(tasks), variant, config_index, cfg, seed + config_index, session,
                                    memo, dict(extra or {})))
    return tasks


def sweep_verify(variants: Sequence[Variant], configs: Sequence[AttnConfig], *, store: ResultStore | None,
                 placement: Placement, timeout_s: float = 30.0, seed: int | None = None,
                 on_result: Callable[[ResultRow], None] | None = None,
                 on_progress: Callable[[int, int, ResultRow, str], None] | None = None,
                 backend: Backend | None = None, cancel=None):
    """Verify on every selected device; returns (SweepSummary, SweepRun)."""
    from fmhactl.verify.sweep import SweepSummary

    session = new_session_id()
    tasks = kernel_tasks("verify", variants, configs, seed=fresh_seed(seed), session=session)
    backend = backend or gpu_backend(placement, timeout_s)
    run = run_sweep(tasks, backend, store=store, on_result=on_result, on_progress=on_progress, cancel=cancel)
    return SweepSummary(session, list(run.rows)), run


def sweep_bench(variant: Variant, configs: Sequence[AttnConfig], *, store: ResultStore | None,
                placement: Placement, warmup: int = 10, iters: int = 50, baselines: Sequence[str] = ("cudnn", "flash"),
                timeout_s: float = 120.0, seed: int | None = None,
                on_result: Callable[[ResultRow], None] | None = None,
                on_progress: Callable[[int, int, ResultRow, str], None] | None = None,
                backend: Backend | None = None, cancel=None) -> tuple[list[ResultRow], SweepRun]:
    """Bench configs across devices; each device's one worker times one kernel at a time."""
    if warmup < 0 or iters < 1:
        raise BadInput("--warmup must be >= 0 and --iters >= 1")
    session = new_session_id()  # every config was checked by services.bench (require_supported)
    extra = {"bench": {"warmup": warmup, "iters": iters, "baselines": list(baselines)}}
    tasks = kernel_tasks("bench", [variant], configs, seed=fresh_seed(seed), session=session, extra=extra)
    backend = backend or gpu_backend(placement, timeout_s)
    run = run_sweep(tasks, backend, store=store, on_result=on_result, on_progress=on_progress, cancel=cancel)
    return list(run.rows), run


def sweep_selftest(names: Sequence[str], configs: Sequence[AttnConfig], *, store: ResultStore | None,
                   placement: Placement, timeout_s: float = 30.0, seed: int | None = None, delay_s: float = 0.0,
                   on_result: Callable[[ResultRow], None] | None = None,
                   on_progress: Callable[[int, int, ResultRow, str], None] | None = None,
                   backend: Backend | None = None, max_attempts: int = 3, cancel=None):
    """The CPU self-test through the same scheduler (CI's stand-in for GPU work)."""
    from fmhactl.verify.sweep import SweepSummary

    unknown = [n for n in names if n not in SELFTEST_VARIANTS]
    if unknown:
        raise BadInput(f"unknown CPU self-test {unknown[0]!r} (choose from {', '.join(SELFTEST_VARIANTS)})")
    session = new_session_id()
    base = fresh_seed(seed)
    tasks = [SelftestTask(i * len(configs) + j, name, cfg, base + j, session, delay_s)
             for i, name in enumerate(names) for j, cfg in enumerate(configs)]
    backend = backend or cpu_backend(placement, timeout_s)
    run = run_sweep(tasks, backend, store=store, on_result=on_result, on_progress=on_progress,
                    max_attempts=max_attempts, cancel=cancel)
    return SweepSummary(session, list(run.rows)), run
