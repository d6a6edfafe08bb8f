"""One job of one variant on one config in the isolated worker (`fmhactl run`, `fmhactl dump`)."""

from __future__ import annotations

from fmhactl.config import AttnConfig
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.jobs import build_for_gpu, fresh_seed, make_job, row_from_reply
from fmhactl.runtime.pool import KernelWorker


def run_single(op: str, variant: Variant, cfg: AttnConfig, *, store: ResultStore, timeout_s: float,
               seed: int | None, built_variant: Variant | None = None, **extra: object) -> ResultRow:
    """Run `op` with `built_variant` (default: the variant itself) and record it under `variant`.
    The caller has checked that the variant runs `cfg` (require_supported, once, before any work)."""
    seed = fresh_seed(seed)
    built_variant = built_variant or variant
    with KernelWorker(timeout_s) as worker:
        info = worker.start()
        target, mode, built = build_for_gpu(built_variant, info)
        reply = worker.run(make_job(op, built_variant, built, cfg, seed, mode, **extra))
        row = row_from_reply(op, variant, built, target.arch, mode, cfg, seed, reply, worker.info or info,
                             new_session_id())
    store.add(row)
    return row


def run_once(variant: Variant, cfg: AttnConfig, *, store: ResultStore, timeout_s: float = 30.0,
             seed: int | None = None) -> ResultRow:
    """One launch with no reference: finished, every output written, NaNs."""
    return run_single("run", variant, cfg, store=store, timeout_s=timeout_s, seed=seed)
