"""Corruption fuzz of checkpoint dump files (`fmhactl dump ... --out FILE`, read back by the TUI).

Valid dumps are written by the product (write_dump: a TMEM one and a shared-memory one), then
damaged: bytes flipped, cut or appended; keys deleted, renamed or given values of another type
(huge integers, NaN, strings, nested lists). Property: read_dump gives a DumpFile whose numbers
the viewer can use (errors, mismatches, the TUI's dump view), or BadInput naming the file; nothing else escapes.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402

from fmhactl.errors import BadInput  # noqa: E402
from fmhactl.runtime.dumpfile import read_dump, write_dump  # noqa: E402
from fmhactl.tui.views.mapping import load_dump_view, smem_jump_options  # noqa: E402
from tests.corruption import Artifact, fuzz_settings, mutate_bytes, mutate_tree  # noqa: E402


@pytest.fixture(scope="module")
def dumps(tmp_path_factory) -> Artifact:
    folder = tmp_path_factory.mktemp("dumps")
    got = [[float(r * 8 + c) for c in range(8)] for r in range(4)]
    want = [row[:] for row in got]
    want[1][2], got[3][7] = math.nan, math.inf
    write_dump(folder / "tmem.json", variant="sm100_tma_tmem", arch="sm_90a", mode="emulated",
               config_key="b1h1-t128s128-d64-bf16", config={"batch": 1}, checkpoint="S", space="tmem",
               got=got, want=want, threshold=1e-3)
    write_dump(folder / "smem.json", variant="sm100_tma_tmem", arch="sm_90a", mode="emulated",
               config_key="b1h1-t128s128-d64-bf16", config={"batch": 1}, checkpoint="Q", space="smem",
               got=got, want=want, threshold=0.0,
               layout={"major": "K", "swizzle": "128B", "dtype": "bf16", "rows": 4, "cols": 8})
    return Artifact("dump files", texts={p.name: p.read_text() for p in folder.iterdir()})


@fuzz_settings(150)
@given(data=st.data())
def test_damaged_dump_reads_or_is_bad_input(dumps, data):
    name = data.draw(st.sampled_from(sorted(dumps.texts)), label="dump")
    work = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-dump-"))
    try:
        path = work / name
        if data.draw(st.booleans(), label="as tree"):
            what, tree = mutate_tree(data, json.loads(dumps.texts[name]))
            path.write_text(json.dumps(tree))
        else:
            what, blob = mutate_bytes(data, dumps.texts[name].encode())
            path.write_bytes(blob)
        try:
            dump = read_dump(path)
        except BadInput as exc:
            assert str(path) in str(exc), (what, str(exc))
            return
        assert len(dump.got) == dump.rows and all(len(r) == dump.cols for r in dump.got), what
        assert dump.mismatches() >= 0 and len(dump.abs_errors()) == dump.rows, what
        assert 0 <= dump.threshold < math.inf, what
        dump.first_mismatch()
        view = load_dump_view(path)  # what `fmhactl tui` draws from it
        if view.space == "smem" and view.first:
            smem_jump_options(view.smem_layout, dump.rows, dump.cols, *view.first)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- regressions: each failed before the fix it names -----------------------------------------

@pytest.mark.parametrize("name, key, value, rule", [
    ("tmem.json", "layout", True, "layout and config must be JSON objects"),  # TypeError: bool not iterable
    ("smem.json", "layout", ["major", "swizzle", "dtype"], "layout and config must be JSON objects"),  # ValueError
    ("tmem.json", "config", [1, 2], "layout and config must be JSON objects"),  # TypeError
    ("tmem.json", "space", ["tmem"], "space must be tmem or smem"),  # TypeError: unhashable
    ("tmem.json", "threshold", float("nan"), "threshold must be a finite number"),  # accepted: hid every mismatch
    ("smem.json", "layout", {"major": "K", "swizzle": 5, "dtype": "bf16"}, "must be strings"),  # TUI: AttributeError
    ("smem.json", "layout", {"major": "K", "swizzle": "128B", "dtype": "fp64"}, "unknown element type"),
])
def test_odd_values_in_a_dump_are_bad_input(dumps, tmp_path, name, key, value, rule):
    doc = json.loads(dumps.texts[name])
    doc[key] = value
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInput, match=re.escape(rule)):
        read_dump(path)


@pytest.mark.parametrize("cell, rule", [(10**400, "too large"), ("1.5", "not a number"), (True, "not a number")],
                         ids=["huge-int", "string", "bool"])
def test_dump_cells_must_be_numbers_a_kernel_wrote(dumps, tmp_path, cell, rule):
    """10**400 raised OverflowError; "1.5" and true were taken as numbers."""
    doc = json.loads(dumps.texts["tmem.json"])
    doc["got"][0][0] = cell
    path = tmp_path / "tmem.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInput, match=rule):
        read_dump(path)
