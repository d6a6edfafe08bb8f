"""The dump file format that `fmhactl dump --out` writes and the Checkpoints screen reads."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fmhactl.errors import BadInput
from fmhactl.runtime import dumpfile
from tests.tui.conftest import write_tmem_dump


def test_round_trip_and_first_mismatch(tmp_path: Path):
    d = dumpfile.read_dump(write_tmem_dump(tmp_path / "s.json"))
    assert (d.rows, d.cols, d.space, d.checkpoint) == (128, 16, "tmem", "S")
    assert d.first_mismatch() == (40, 3)
    assert d.mismatches() == 1
    assert d.abs_errors()[40][3] == pytest.approx(5.0)


def test_nan_matches_nan_but_not_a_number(tmp_path: Path):
    path = tmp_path / "n.json"
    dumpfile.write_dump(path, variant="v", arch="a", mode="m", config_key="k", config={}, checkpoint="O",
                        space="tmem", got=[[math.nan, math.nan]], want=[[math.nan, 1.0]], threshold=0.1)
    d = dumpfile.read_dump(path)
    assert [d.mismatch(0, 0), d.mismatch(0, 1)] == [False, True]


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe", "unreadable"),
    (b"{not json", "not JSON"),
    (b'{"schema": "other/1"}', "schema must be"),
    (b'{"schema": "fmhactl.dump/1", "space": "gmem"}', "space must be"),
    (b'{"schema": "fmhactl.dump/1", "space": "tmem", "rows": 2, "cols": 2, "got": [[1, 2]], "want": [[1, 2]]}',
     "got must be 2 rows of 2 numbers"),
    (b'{"schema": "fmhactl.dump/1", "space": "tmem", "rows": 1, "cols": 1, "got": [["a"]], "want": [[1]]}',
     "not a number"),
    (b'{"schema": "fmhactl.dump/1", "space": "smem", "rows": 1, "cols": 1, "got": [[1]], "want": [[1]]}',
     "layout.major"),
    (b'{"schema": "fmhactl.dump/1", "space": "tmem", "rows": 100000, "cols": 100000}', "rows x cols"),
])
def test_bad_files_are_bad_input(tmp_path: Path, content: bytes, message: str):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(BadInput, match=message):
        dumpfile.read_dump(path)


def test_smem_elements_read_each_element_where_the_layout_puts_it():
    """A K-major 128B image whose element (r, k) holds bf16(r + k/64): decoded back in (row, k) order."""
    from fmhactl.layout.smem import make_tile

    layout = dumpfile.smem_tile_layout("K", 64, 8, "bf16")
    tile = make_tile("K", "128B", 8, 64, "bf16")
    image = [0] * (8 * 64)
    for r in range(8):
        for k in range(64):
            value = float(r) + k / 64
            bits = int.from_bytes(__import__("struct").pack("<f", value), "little") >> 16
            image[tile.offset(r, k) // 2] = bits
    grid = dumpfile.smem_elements(image, layout)
    assert grid[5][6] == pytest.approx(5 + 6 / 64, abs=1e-2)
    assert grid[0][63] == pytest.approx(63 / 64, abs=1e-2)


def test_dump_cli_refuses_an_unwritable_out_before_running(tmp_path: Path):
    from typer.testing import CliRunner

    from fmhactl.cli.app import app

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(app, ["dump", "sm100_tma_s2_smem", "--shape", "t=128,s=128,d=64", "--at", "S",
                                      "--out", str(blocker / "s.json")])
    assert result.exit_code == 2, result.output  # refused before the GPU is even looked for (that would be 3)
    assert "--out" in result.output


def test_written_file_is_plain_json(tmp_path: Path):
    doc = json.loads(write_tmem_dump(tmp_path / "s.json").read_text())
    assert doc["schema"] == dumpfile.SCHEMA and len(doc["got"]) == 128
