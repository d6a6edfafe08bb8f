"""Verify many (variant, config) pairs through one isolated worker, storing each result as it lands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fmhactl.build.compiler import BuildResult
from fmhactl.build.entry import build
from fmhactl.config import AttnConfig
from fmhactl.progress import CancelToken, ProgressCallback, check_cancel, notify
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.jobs import fresh_seed, make_job, row_from_reply
from fmhactl.runtime.modes import plan
from fmhactl.runtime.pool import KernelWorker

FAILING = ("FAIL", "CRASH", "HANG", "ERROR")


def closing_line(counts: Mapping[str, int]) -> str:
    """`7 passed, 0 failed, 1 crashed`: the last line of a verify run (CLI, TUI, scenarios)."""
    line = f"{counts.get('PASS', 0)} passed, {counts.get('FAIL', 0)} failed"
    extras = [f"{counts[k]} {label}" for k, label in (("UNSUPPORTED", "unsupported"), ("CRASH", "crashed"),
                                                        ("HANG", "hung"), ("ERROR", "errored")) if counts.get(k)]
    return line + (", " + ", ".join(extras) if extras else "")


@dataclass
class SweepSummary:
    session: str
    rows: list[ResultRow] = field(default_factory=list)

    @property
    def counts(self) -> Counter:
        return Counter(r.status for r in self.rows)

    @property
    def ok(self) -> bool:
        return not any(self.counts[s] for s in FAILING)

    def closing_line(self) -> str:
        return closing_line(self.counts)


def run_verify(variants: Sequence[Variant], configs: Sequence[AttnConfig], *, store: ResultStore,
               timeout_s: float = 30.0, seed: int | None = None,
               on_result: Callable[[ResultRow], None] | None = None,
               progress: ProgressCallback | None = None, cancel: CancelToken | None = None) -> SweepSummary:
    """Every (variant, config) pair, one progress event per config; a cancel stops between configs."""
    session = new_session_id()
    total = len(variants) * len(configs)
    summary = SweepSummary(session)
    base_seed = fresh_seed(seed)
    with KernelWorker(timeout_s) as worker:
        info = worker.start()

        def record(row: ResultRow) -> None:
            store.add(row)
            summary.rows.append(row)
            if on_result:
                on_result(row)
            notify(progress, "config", len(summary.rows), total, f"{row.status} {row.variant} {row.config_key}", row)

        for variant in variants:
            planned = plan(variant, info["cc"])
            built: BuildResult | None = None
            if not isinstance(planned, str):
                check_cancel(cancel)
                target, mode = planned
                built = build(variant, target)
            for index, cfg in enumerate(configs):
                check_cancel(cancel)
                cfg_seed = base_seed + index
                reason = planned if isinstance(planned, str) else variant.unsupported_reason(cfg)
                if reason or built is None:
                    record(ResultRow(kind="verify", variant=variant.name, arch="", mode="", status="UNSUPPORTED",
                                     config_key=cfg.key, config=cfg.to_dict(), metrics={"reason": reason},
                                     gpu=info.get("gpu") or "", driver=info.get("driver", ""),
                                     seed=cfg_seed, session=session))
                    continue
                # Alternate the input memory layout so strides are exercised, not assumed.
                layout = "bhtd" if index % 2 else "bthd"
                reply = worker.run(make_job("verify", variant, built, cfg, cfg_seed, mode, layout=layout))
                record(row_from_reply("verify", variant, built, target.arch, mode, cfg, cfg_seed, reply,
                                      worker.info or info, session))
    return summary
