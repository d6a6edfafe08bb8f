"""Every screen rendered at a fixed size and compared with its stored SVG snapshot.

Update after an intended change: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import make_store, write_tmem_dump

from fmhactl.tui.app import FmhaApp

SIZE = (100, 32)


@pytest.mark.parametrize("screen, options", [
    ("tmem", {"shape": "32x32b", "num": 8, "warp": 1, "cell": (40, 3)}),
    ("tmem", {"plan": True, "variant": "sm100_tma_s2_tmem", "head_dim": 128}),
    ("accum", {"m": 128, "n": 64}),
    ("smem", {"major": "K", "swizzle": "128B", "rows": 128, "cols": 64, "kb": 1}),
    ("descriptors", {"kind": "idesc", "value": "0x08c00010"}),
    ("tma", {}),
    ("map", {}),
], ids=["tmem", "tmem-plan", "accum", "smem", "descriptors", "tma", "map"])
def test_screen_snapshot(snap_compare, screen, options):
    assert snap_compare(FmhaApp(screen, options), terminal_size=SIZE)


def test_checkpoints_snapshot(snap_compare, tmp_path: Path):
    dump = write_tmem_dump(tmp_path / "s.json")
    assert snap_compare(FmhaApp("checkpoints", {"dump": str(dump)}), terminal_size=SIZE)


def test_results_snapshot(snap_compare, tmp_path: Path):
    db = make_store(tmp_path / "results.db")
    assert snap_compare(FmhaApp("results", {"db": db}), terminal_size=SIZE)
