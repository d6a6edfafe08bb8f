"""`fmhactl build --jobs N` / `--ray`: compile the family in parallel worker processes (or Ray actors).

Each (variant, target) is one task of the sweep scheduler, run by a CPU worker process that
compiles through NVRTC into the shared cache (atomic writes, a per-key lock; see
fmhactl.build.compiler). Rows are written here, by the parent, in the order the serial build
would write them; a compile error is recorded and, as in the serial path, fails the command
(after the other builds have finished).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fmhactl.build.compiler import BuildResult, CompileError, targets_for
from fmhactl.errors import BadInput
from fmhactl.records import BuildMetrics
from fmhactl.registry import get_variant, load_registry
from fmhactl.results.store import ResultRow, ResultStore, new_session_id

BUILD_TIMEOUT_S = 600.0


def build_tasks(names: Sequence[str], *, all_variants: bool, arch: str | None, force: bool, session: str):
    from fmhactl.sweep.tasks import BuildTask

    registry = load_registry()
    variants = list(registry.values()) if all_variants else [get_variant(n, registry) for n in names]
    tasks = []
    for variant in variants:
        targets = targets_for(variant, arch)
        if not targets and not all_variants:
            raise BadInput(f"variant {variant.name} has no {arch} build (archs: {', '.join(variant.archs)})")
        for target in targets:
            tasks.append(BuildTask(len(tasks), variant, target, session, force))
    return tasks


def build_parallel(names: Sequence[str], *, all_variants: bool = False, arch: str | None = None,
                   force: bool = False, jobs: int | None = None, ray: str | None = None,
                   store: ResultStore | None = None,
                   on_result: Callable[[ResultRow], None] | None = None,
                   on_progress: Callable[[int, int, ResultRow, str], None] | None = None):
    """Build in parallel; returns (results in serial order, the SweepRun with per-slot throughput)."""
    from fmhactl.runtime.device import native_arch
    from fmhactl.sweep.scheduler import run_sweep
    from fmhactl.sweep.service import Placement, cpu_backend, placement_from_options

    placement = placement_from_options(None, ray, jobs) or Placement(jobs=jobs)
    if arch == "native":
        arch = native_arch()
    tasks = build_tasks(names, all_variants=all_variants, arch=arch, force=force, session=new_session_id())
    backend = cpu_backend(placement, BUILD_TIMEOUT_S, default_jobs=jobs or 1)
    owned = store is None
    store = store or ResultStore()
    try:
        run = run_sweep(tasks, backend, store=store, on_result=on_result, on_progress=on_progress)
    finally:
        if owned:
            store.close()
    results: list[BuildResult] = [t.result for t in tasks if t.result is not None]
    failed = [r for r in run.rows if r.status != "OK"]
    if failed:
        raise CompileError(f"{len(failed)} of {len(tasks)} builds failed; first: {failed[0].variant} "
                           f"{failed[0].arch}: {BuildMetrics.from_dict(failed[0].metrics).error}")
    return results, run
