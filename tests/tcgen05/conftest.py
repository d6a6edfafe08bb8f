"""tcgen05 tests: one random base seed per run (TC5_SEED overrides), shown in the report header so a
failing MMA case can be replayed with TC5_SEED=<seed>."""

from __future__ import annotations

import os

os.environ.setdefault("TC5_SEED", str(int.from_bytes(os.urandom(4), "little") or 1))


def pytest_report_header(config) -> str:
    return f"tcgen05: TC5_SEED={os.environ['TC5_SEED']}"
