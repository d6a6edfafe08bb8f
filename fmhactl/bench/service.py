"""Time a variant on one config beside baselines measured in the same worker run: torch SDPA
backends, the feature baselines and peer libraries."""

from __future__ import annotations

from collections.abc import Sequence

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.progress import CancelToken, ProgressCallback, check_cancel, notify
from fmhactl.records import KNOWN_BASELINES
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.jobs import build_for_gpu, fresh_seed, make_job, row_from_reply
from fmhactl.runtime.modes import EMULATED
from fmhactl.runtime.pool import KernelWorker

DEFAULT_BASELINES = ("cudnn", "flash")


def run_bench(variant: Variant, configs: Sequence[AttnConfig], *, store: ResultStore, warmup: int = 10,
              iters: int = 50, baselines: Sequence[str] = DEFAULT_BASELINES, timeout_s: float = 120.0,
              seed: int | None = None, progress: ProgressCallback | None = None,
              cancel: CancelToken | None = None) -> list[ResultRow]:
    if warmup < 0 or iters < 1:
        raise BadInput("--warmup must be >= 0 and --iters >= 1")
    unknown = [b for b in baselines if b not in KNOWN_BASELINES]
    if unknown:
        raise BadInput(f"unknown baseline {unknown[0]!r} (choose from {', '.join(KNOWN_BASELINES)})")
    session = new_session_id()  # every config was checked by the caller (services.bench: require_supported)
    base_seed = fresh_seed(seed)
    rows: list[ResultRow] = []
    with KernelWorker(timeout_s) as worker:
        info = worker.start()
        target, mode, built = build_for_gpu(variant, info)
        for index, cfg in enumerate(configs):
            check_cancel(cancel)
            job = make_job("bench", variant, built, cfg, base_seed + index, mode,
                           bench={"warmup": warmup, "iters": iters, "baselines": list(baselines)})
            reply = worker.run(job)
            row = row_from_reply("bench", variant, built, target.arch, mode, cfg, base_seed + index,
                                 reply, worker.info or info, session)
            if mode == EMULATED:
                row.metrics["note"] = "emulated execution: timings say nothing about SM100 performance"
            store.add(row)
            rows.append(row)
            notify(progress, "config", len(rows), len(configs), f"{row.status} {row.config_key}", row)
    return rows
