"""TUI tests run without a GPU, in UTC, with a synthetic dump file and a private results store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")

SIZE = (120, 40)
FIXED_TIME = 1_790_000_000.0  # 2026-09-21 14:13:20 UTC: rows get a fixed date so snapshots are stable


@pytest.fixture(autouse=True)
def _no_gpu_utc(monkeypatch):
    """Only for the TUI tests: no GPU (even on a GPU machine) and UTC dates, so screens are stable."""
    from fmhactl.runtime import device
    from fmhactl.tui import backend

    monkeypatch.setenv("FMHACTL_ASSUME_NO_GPU", "1")
    monkeypatch.setattr(backend, "_GPU", None)
    for cached in (getattr(device, "probe", None), getattr(device, "_probe_driver", None)):
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
    for cached in (getattr(device, "probe", None), getattr(device, "_probe_driver", None)):
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()


def drive(app: Any, script: Callable[[Any], Awaitable[None]], size: tuple[int, int] = SIZE) -> None:
    """Run the app headless and hand its Pilot to `script`."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot)

    asyncio.run(main())


def write_tmem_dump(path: Path, bad: tuple[int, int] | None = (40, 3)) -> Path:
    """A small S checkpoint in the documented format: 128 lanes x 16 columns, one wrong value."""
    from fmhactl.runtime.dumpfile import write_dump

    want = [[(r * 16 + c) / 100.0 for c in range(16)] for r in range(128)]
    got = [row[:] for row in want]
    if bad:
        got[bad[0]][bad[1]] += 5.0
    write_dump(path, variant="sm100_tma_s2_smem", arch="sm_90a", mode="emulated", config_key="b1h1t128s128d128",
               config={"seq_q": 128}, checkpoint="S", space="tmem", got=got, want=want, threshold=1e-3)
    return path


def write_smem_dump(path: Path) -> Path:
    """A K checkpoint (shared memory, K-major 128B bf16, 128 x 64) with element (5, 70 - 64 = 6) wrong."""
    from fmhactl.runtime.dumpfile import write_dump

    want = [[float((r + c) % 7) for c in range(64)] for r in range(128)]
    got = [row[:] for row in want]
    got[5][6] = 100.0
    write_dump(path, variant="sm100_tma_s2_smem", arch="sm_90a", mode="emulated", config_key="b1h1t128s128d64",
               config={}, checkpoint="K", space="smem", got=got, want=want, threshold=0.0,
               layout={"major": "K", "swizzle": "128B", "dtype": "bf16", "rows": 128, "cols": 64})
    return path


def make_store(path: Path) -> Path:
    """A results store with a few rows, written through the store API."""
    from fmhactl.results.store import ResultRow, ResultStore

    rows = [
        ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="PASS",
                  config_key="b1h1t128s128d64", metrics={"max_abs_err": 1e-3, "cosine": 0.99999}),
        ResultRow(kind="verify", variant="sm100_direct_tmem", arch="sm_90a", mode="emulated", status="FAIL",
                  config_key="b1h1t300s300d128", metrics={"max_abs_err": 0.5, "cosine": 0.7,
                                                          "error_map": "query tile 2: rows 256..299"}),
        ResultRow(kind="bench", variant="ref", arch="sm_90a", mode="native", status="OK",
                  config_key="b4h16t2048s2048d128", metrics={"kernel": {"tflops": 123.4, "median_ms": 1.2}}),
        ResultRow(kind="build", variant="sm100_tma_s2_smem", arch="sm_100a", mode="compile-only", status="OK"),
    ]
    with ResultStore(path) as store:
        for i, row in enumerate(rows):
            row.created_at = FIXED_TIME + i * 60
            store.add(row)
    return path
