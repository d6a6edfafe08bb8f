"""scripts/device/ptx_grid.py's plan: shards that add up to a whole-grid verify (even starts, so the
seed and the layout parity of each config are the grid run's), skipping configs already run, and
interleaving `A+B` shard by shard (CPU; the runner itself needs the GPU)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "device" / "ptx_grid.py"


def _module():
    spec = importlib.util.spec_from_file_location("ptx_grid", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shards_cover_the_grid_once_from_even_starts():
    grid = _module()
    shards = grid.plan(["strict:native:seeds72"], 16, set())
    names = grid.variants()
    assert len(shards) == 4 * len(names)
    for name in names:
        mine = sorted((a, b) for v, g, e, em, a, b in shards if v == name)
        assert mine == [(0, 16), (16, 32), (32, 48), (48, 64)]


def test_done_configs_are_skipped_and_pairs_interleave(tmp_path):
    grid = _module()
    name = grid.variants()[0]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"variant": name, "grid": "seeds72", "emulate": "native", "emulation": "strict",
                                        "index": i}) + "\n" for i in range(7)) + "{cut line\n")
    shards = grid.plan(["strict:native:seeds72+strict:tc5:seeds72"], 16, grid._done([str(rows)]))
    first = [s for s in shards if s[0] == name and s[4] < 16]
    assert first == [(name, "seeds72", "native", "strict", 6, 16), (name, "seeds72", "tc5", "strict", 0, 16)]


def test_crash_and_hang_rows_are_run_again_and_replaced(tmp_path):
    """Under MPS a killed client ends its neighbours: their CRASH/HANG rows are not results."""
    grid = _module()
    name = grid.variants()[0]
    first, later = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    base = {"variant": name, "grid": "seeds72", "emulate": "native", "emulation": "strict"}
    first.write_text("".join(json.dumps({**base, "index": i, "status": s}) + "\n"
                             for i, s in enumerate(["PASS", "CRASH", "HANG", "FAIL"])))
    assert grid._done([str(first)]) == {(name, "seeds72", "native", "strict", i) for i in (0, 3)}
    later.write_text(json.dumps({**base, "index": 1, "status": "PASS", "max_abs_err": 1e-3}) + "\n")
    assert grid._done([str(first), str(later)]) == {(name, "seeds72", "native", "strict", i) for i in (0, 1, 3)}
