"""build: compile variants through NVRTC (content-hash cache), record each build, report resources."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fmhactl.build.compiler import BuildResult, CompileError, targets_for
from fmhactl.build.entry import build as compile_variant
from fmhactl.errors import BadInput
from fmhactl.registry import Variant, load_registry
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.device import native_arch
from fmhactl.runtime.modes import COMPILE_ONLY
from fmhactl.services import common
from fmhactl.progress import CancelToken, ProgressCallback, check_cancel, notify

KNOWN_ARCH_CHOICES = ("sm_80", "sm_90a", "sm_100a", "native")


@dataclass(frozen=True)
class KernelBuildRow:
    """One entry point of one build, as the build table shows it."""

    variant: str
    target: str  # arch, "+emu" when built for the emulation
    kernel: str
    registers: int
    static_smem_bytes: int
    dynamic_smem_bytes: int | None  # None: not an SM100-plan kernel, or the plan does not fit
    stack_bytes: int
    spill_bytes: int
    tmem_columns_used: int | None
    tmem_columns_allocated: int | None
    ctas_per_sm_planned: int | None  # co-resident CTAs the SM100 plan decides
    ctas_per_sm_by_registers: int | None  # what the registers would allow (fewer: the plan cannot hold)
    compile_seconds: float
    cache_hit: bool


def build_variants(variants: Sequence[Variant], *, arch: str | None = None, force: bool = False,
                   skip_missing_arch: bool = False, store: ResultStore | None = None,
                   progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> list[BuildResult]:
    """Build each variant for arch (None: every arch it declares) and record each build."""
    if arch is not None and arch not in KNOWN_ARCH_CHOICES:
        raise BadInput(f"unknown arch {arch!r} (choose from {', '.join(KNOWN_ARCH_CHOICES)})")
    if arch == "native":
        arch = native_arch()
    plan = []
    for variant in variants:
        targets = targets_for(variant, arch)
        if not targets and not skip_missing_arch:
            raise BadInput(f"variant {variant.name} has no {arch} build (archs: {', '.join(variant.archs)})")
        plan += [(variant, t) for t in targets]
    results: list[BuildResult] = []
    session = new_session_id()
    owned = store is None
    store = store or ResultStore()
    try:
        for index, (variant, target) in enumerate(plan, 1):
            check_cancel(cancel)
            try:
                result = compile_variant(variant, target, force=force)
            except CompileError as exc:
                store.add(ResultRow(kind="build", variant=variant.name, arch=target.arch, mode=COMPILE_ONLY,
                                    status="ERROR", metrics={"error": str(exc), "emulated": target.emulated},
                                    session=session))
                raise
            results.append(result)
            store.add(ResultRow(kind="build", variant=variant.name, arch=target.arch, mode=COMPILE_ONLY,
                                status="OK", metrics=result.to_dict(), source_hash=result.source_hash,
                                toolchain=result.toolchain, session=session))
            notify(progress, "build", index, len(plan), f"{variant.name} {target.label}", result)
    finally:
        if owned:
            store.close()
    return results


def build(names: Sequence[str] = (), *, all_variants: bool = False, arch: str | None = None, force: bool = False,
          jobs: int | None = None, ray: str | None = None, store: ResultStore | None = None,
          progress: ProgressCallback | None = None, cancel: CancelToken | None = None,
          on_parallel_run=None) -> list[BuildResult]:
    """`fmhactl build`: named variants, or every variant (self-tests included) with all_variants.
    With jobs or ray, compile in parallel worker processes / Ray actors (fmhactl.sweep.builds);
    on_parallel_run(run) then receives the sweep run (per-slot throughput)."""
    from fmhactl.schemas import int_in_range

    if not names and not all_variants:
        raise BadInput("name at least one variant, or pass --all")
    if names and all_variants:
        raise BadInput("name variants or pass --all, not both")
    if arch is not None and arch not in KNOWN_ARCH_CHOICES:
        raise BadInput(f"unknown arch {arch!r} (choose from {', '.join(KNOWN_ARCH_CHOICES)})")
    registry = load_registry()
    chosen = list(registry.values()) if all_variants else common.variants(names, registry)
    if jobs is not None or ray is not None:
        if jobs is not None:
            int_in_range(jobs, "--jobs", 1, 256)
        from fmhactl.sweep.builds import build_parallel

        results, run = build_parallel([v.name for v in chosen] if not all_variants else [],
                                      all_variants=all_variants, arch=arch, force=force, jobs=jobs, ray=ray,
                                      store=store)
        if on_parallel_run is not None:
            on_parallel_run(run)
        return results
    return build_variants(chosen, arch=arch, force=force, skip_missing_arch=all_variants, store=store,
                          progress=progress, cancel=cancel)


def instruction_mixes(results: Sequence[BuildResult],
                      instructions: tuple[str, ...] = ("MUFU.EX2", "FFMA")) -> dict[tuple[str, str], dict[str, int]]:
    """(variant, kernel) -> {instruction: count in its SASS}: where the softmax exponentials run
    (MUFU.EX2 on the SFU, or the FFMA polynomial of the exp2-emulation variants). Needs cuobjdump."""
    from fmhactl.build.sass import instruction_mix

    mixes: dict[tuple[str, str], dict[str, int]] = {}
    for r in results:
        for kernel, counts in instruction_mix(r.cubin_path, instructions).items():
            mixes[(r.variant, kernel)] = counts
    return mixes


def kernel_rows(results: Sequence[BuildResult]) -> list[KernelBuildRow]:
    """The build table: one row per entry point, with the SM100 plan's dynamic SMEM and TMEM."""
    from fmhactl.plans.sm100 import ctas_by_registers
    from fmhactl.plans.launch import entry_plan

    registry = load_registry()
    rows = []
    for r in results:
        variant = registry[r.variant]
        for k in sorted(r.kernels, key=lambda k: k.kernel):
            plan = entry_plan(variant.launcher, k.kernel, variant.switches)
            fits = plan is not None and plan.limit_reason() is None
            rows.append(KernelBuildRow(
                variant=r.variant, target=r.target.label, kernel=k.kernel, registers=k.registers,
                static_smem_bytes=k.static_smem, dynamic_smem_bytes=plan.smem_bytes if fits else None,
                stack_bytes=k.stack_bytes, spill_bytes=k.spill_stores + k.spill_loads,
                tmem_columns_used=plan.tmem_columns if fits else None,
                tmem_columns_allocated=plan.tmem_alloc if fits else None,
                ctas_per_sm_planned=plan.ctas_per_sm if fits else None,
                ctas_per_sm_by_registers=ctas_by_registers(k.registers) if fits else None,
                compile_seconds=r.compile_seconds, cache_hit=r.cache_hit))
    return rows
