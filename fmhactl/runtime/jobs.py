"""Turning (variant, build, config) into the job a worker runs (a KernelJob, fmhactl/runtime/kernel_job.py),
and its reply into a stored row."""

from __future__ import annotations

import random
from collections.abc import Sequence

from fmhactl.build.compiler import BuildResult, BuildTarget
from fmhactl.build.entry import build
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import Variant
from fmhactl.runtime.kernel_job import KernelJob
from fmhactl.results.store import ResultRow
from fmhactl.runtime.modes import plan


def make_job(op: str, variant: Variant, build: BuildResult, cfg: AttnConfig, seed: int,
             mode: str, **options: object) -> KernelJob:
    entry = variant.entry(cfg.dtype, cfg.head_dim)
    symbol = build.entry_names.get(entry, entry)
    compiled = {k.kernel for k in build.kernels}
    if compiled and symbol not in compiled:  # a typo in `kernel`: say so before a worker starts
        raise BadInput(f"variant {variant.name}: entry {entry!r} is not in its {build.target.label} cubin "
                       f"(kernel = {variant.kernel!r}; the cubin has {', '.join(sorted(compiled)[:6])})")
    return KernelJob(op=op, variant=variant.name, kernel=symbol, cubin=str(build.cubin_path),
                     launcher=variant.launcher, switches=dict(variant.switches), config=cfg, seed=seed,
                     mode=mode, options=dict(options),
                     launch=dict(variant.launch) if variant.launch else None,
                     params=[dict(f) for f in variant.params] if variant.params else None,
                     params_as=variant.params_as if variant.params else None,
                     writes_lse="lse" in variant.features, cubin_sha256=build.cubin_sha256)


def row_from_reply(kind: str, variant: Variant, build: BuildResult | None, arch: str, mode: str,
                   cfg: AttnConfig, seed: int | None, reply: dict, worker_info: dict,
                   session: str) -> ResultRow:
    metrics = dict(reply.get("metrics", {}))
    if mode == "emulated" and build is not None:
        metrics["emulation"] = "strict" if build.target.strict else "fast"
    for key in ("error", "reason"):
        if key in reply:
            metrics[key] = reply[key]
    return ResultRow(
        kind=kind, variant=variant.name, arch=arch, mode=mode, status=reply["status"],
        config_key=cfg.key, config=cfg.to_dict(), metrics=metrics,
        source_hash=build.source_hash if build else "", gpu=worker_info.get("gpu") or "",
        driver=worker_info.get("driver", ""), toolchain=build.toolchain if build else "",
        seed=seed, session=session)


def fresh_seed(seed: int | None) -> int:
    """The given seed, or a random one (always recorded with the result)."""
    return seed if seed is not None else random.SystemRandom().randrange(1 << 30)


def require_supported(variant: Variant, configs: Sequence[AttnConfig]) -> None:
    for cfg in configs:
        reason = variant.unsupported_reason(cfg)
        if reason:
            raise BadInput(f"{variant.name} cannot run {cfg.key}: {reason}")


def build_for_gpu(variant: Variant, worker_info: dict) -> tuple[BuildTarget, str, BuildResult]:
    """The build that runs on the worker's GPU, its execution mode, and the compiled result."""
    planned = plan(variant, worker_info["cc"])
    if isinstance(planned, str):
        raise BadInput(planned)
    target, mode = planned
    return target, mode, build(variant, target)
