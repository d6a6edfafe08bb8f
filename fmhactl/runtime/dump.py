"""`fmhactl dump`: build a variant with FMHA_CHECKPOINTS=1, run it once, compare one checkpoint."""

from __future__ import annotations

import dataclasses
import random

from fmhactl.build.compiler import build
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.checkpoints import CHECKPOINTS
from fmhactl.runtime.jobs import make_job, row_from_reply
from fmhactl.runtime.modes import plan
from fmhactl.runtime.pool import KernelWorker


def checkpoint_variant(variant: Variant) -> Variant:
    if variant.launcher != "sm100":
        raise BadInput(f"variant {variant.name} has no checkpoints (only the SM100 family does)")
    return dataclasses.replace(variant, name=f"{variant.name}+ckpt",
                               switches={**variant.switches, "FMHA_CHECKPOINTS": 1})


def run_dump(variant: Variant, cfg: AttnConfig, at: str, *, store: ResultStore, timeout_s: float = 60.0,
             seed: int | None = None) -> ResultRow:
    at = at.upper()
    if at not in CHECKPOINTS:
        raise BadInput(f"unknown checkpoint {at!r} (choose from {', '.join(CHECKPOINTS)})")
    debug = checkpoint_variant(variant)
    reason = variant.unsupported_reason(cfg)
    if reason:
        raise BadInput(f"{variant.name} cannot run {cfg.key}: {reason}")
    seed = seed if seed is not None else random.SystemRandom().randrange(1 << 30)
    with KernelWorker(timeout_s) as worker:
        info = worker.start()
        planned = plan(debug, info["cc"])
        if isinstance(planned, str):
            raise BadInput(planned)
        target, mode = planned
        built = build(debug, target)
        reply = worker.run(make_job("dump", debug, built, cfg, seed, mode, at=at))
        row = row_from_reply("dump", variant, built, target.arch, mode, cfg, seed, reply, worker.info or info,
                             new_session_id())
    store.add(row)
    return row
