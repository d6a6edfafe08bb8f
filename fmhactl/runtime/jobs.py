"""Turning (variant, build, config) into the job a worker runs, and its reply into a stored row."""

from __future__ import annotations

from fmhactl.build.compiler import BuildResult
from fmhactl.config import AttnConfig
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow


def make_job(op: str, variant: Variant, build: BuildResult, cfg: AttnConfig, seed: int,
             mode: str, **extra: object) -> dict:
    return {"op": op, "variant": variant.name, "kernel": variant.entry(cfg.dtype, cfg.head_dim),
            "cubin": str(build.cubin_path), "launcher": variant.launcher,
            "switches": dict(variant.switches), "config": cfg.to_dict(), "seed": seed,
            "mode": mode, **extra}


def row_from_reply(kind: str, variant: Variant, build: BuildResult | None, arch: str, mode: str,
                   cfg: AttnConfig, seed: int | None, reply: dict, worker_info: dict,
                   session: str) -> ResultRow:
    metrics = dict(reply.get("metrics", {}))
    for key in ("error", "reason"):
        if key in reply:
            metrics[key] = reply[key]
    return ResultRow(
        kind=kind, variant=variant.name, arch=arch, mode=mode, status=reply["status"],
        config_key=cfg.key, config=cfg.to_dict(), metrics=metrics,
        source_hash=build.source_hash if build else "", gpu=worker_info.get("gpu") or "",
        driver=worker_info.get("driver", ""), toolchain=build.toolchain if build else "",
        seed=seed, session=session)
