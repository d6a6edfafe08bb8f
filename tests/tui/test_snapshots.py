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


def test_plan_unsupported_snapshot(snap_compare):
    """Issue 22: SMEM-P at head dim 512 is UNSUPPORTED, as `layout plan` says (it drew "fits in TMEM")."""
    assert snap_compare(FmhaApp("tmem", {"plan": True, "variant": "sm100_tma_s2_smem", "head_dim": 512}),
                        terminal_size=SIZE)


def test_goto_prompt_footer_snapshot(snap_compare):
    """While `g` asks, the footer shows the prompt's keys (apply, cancel), not the screen's."""
    assert snap_compare(FmhaApp("tmem", {"num": 8}), press=["g", "4"], terminal_size=SIZE)


@pytest.mark.parametrize("screen", ["tmem", "tma"])
def test_narrow_terminal_snapshot(snap_compare, screen):
    """80x24: q (quit) and the palette stay in the footer; the TMA screen opens with no field focused."""
    assert snap_compare(FmhaApp(screen), terminal_size=(80, 24))


def test_checkpoints_snapshot(snap_compare, tmp_path: Path):
    dump = write_tmem_dump(tmp_path / "s.json")
    assert snap_compare(FmhaApp("checkpoints", {"dump": str(dump)}), terminal_size=SIZE)


def test_results_snapshot(snap_compare, tmp_path: Path):
    db = make_store(tmp_path / "results.db")
    assert snap_compare(FmhaApp("results", {"db": db}), terminal_size=SIZE)
