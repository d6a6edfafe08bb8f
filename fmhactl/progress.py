"""The conventions every service shares: a progress callback and a cancel token.

A service takes `progress: ProgressCallback | None` and `cancel: CancelToken | None`. It calls
progress once per unit of work (a config, a variant, an ncu pass, a scenario step) with a
ProgressEvent, and checks the token between units: a set token ends the work with Cancelled
after the current unit, with every finished unit already stored. Both are safe to use from a
worker thread (the TUI runs services in Textual workers).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from fmhactl.errors import Cancelled
from fmhactl.records import ProgressEvent

ProgressCallback = Callable[[ProgressEvent], None]


class CancelToken:
    """Set from any thread; services stop at the next unit boundary."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled("cancelled by the caller")


def notify(progress: ProgressCallback | None, unit: str, done: int, total: int, message: str = "",
           record: object = None) -> None:
    if progress is not None:
        progress(ProgressEvent(unit=unit, done=done, total=total, message=message, record=record))


def check_cancel(cancel: CancelToken | None) -> None:
    if cancel is not None:
        cancel.raise_if_cancelled()


__all__ = ["CancelToken", "ProgressCallback", "ProgressEvent", "notify", "check_cancel"]
