"""What a worker job is doing right now, told to the parent while it runs.

A job that the watchdog kills gives no reply of its own, so a HANG verdict alone cannot say
whether the kernel hung or something beside it did: a verify job's reference, a bench job's
baseline (a peer library compiling its kernels on first use can take minutes). The job reports
each stage as it enters it (`report`), with the result it has so far (`partial`: a bench job's
kernel timing and the baselines done); the worker sends each report as a line of the protocol
(`{"id": ..., "stage": ..., "partial": ...}`) and the parent (fmhactl.runtime.pool) names the last
stage in the HANG error and keeps the last partial result as the row's metrics. The watchdog
still bounds the whole job, not each stage.
"""

from __future__ import annotations

from typing import Callable

_send: Callable[[dict], None] | None = None


def bind(send: Callable[[dict], None] | None) -> None:
    """The worker: where this job's stage reports go (None: nowhere, outside a job)."""
    global _send
    _send = send


def report(stage: str, partial: dict | None = None) -> None:
    """Entering `stage` (a few words, e.g. "baseline flashinfer"); partial: the job's metrics so far."""
    if _send is not None:
        _send({"stage": stage} if partial is None else {"stage": stage, "partial": partial})
