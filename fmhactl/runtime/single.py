"""One launch of one variant on one config, in the isolated worker (`fmhactl run`)."""

from __future__ import annotations

import random

from fmhactl.build.compiler import build
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.jobs import make_job, row_from_reply
from fmhactl.runtime.modes import plan
from fmhactl.runtime.pool import KernelWorker


def run_once(variant: Variant, cfg: AttnConfig, *, store: ResultStore, timeout_s: float = 30.0,
             seed: int | None = None) -> ResultRow:
    reason = variant.unsupported_reason(cfg)
    if reason:
        raise BadInput(f"{variant.name} cannot run {cfg.key}: {reason}")
    seed = seed if seed is not None else random.SystemRandom().randrange(1 << 30)
    with KernelWorker(timeout_s) as worker:
        info = worker.start()
        planned = plan(variant, info["cc"])
        if isinstance(planned, str):
            raise BadInput(planned)
        target, mode = planned
        built = build(variant, target)
        reply = worker.run(make_job("run", variant, built, cfg, seed, mode))
        row = row_from_reply("run", variant, built, target.arch, mode, cfg, seed, reply,
                             worker.info or info, new_session_id())
    store.add(row)
    return row
