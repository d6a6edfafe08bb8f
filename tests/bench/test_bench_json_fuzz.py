"""Corruption fuzz of the bench JSON that scripts/redraw_bench_plot.py draws again (what
`fmhactl bench --json` printed on the GPU machine: notes/h100-session4/call7-*.json).

Each example damages the document (bytes flipped, cut or appended; a row's keys deleted, renamed
or given values of another type: NaN and huge timings, odd config keys, strings where numbers
were) and runs the script's main() in this process. Property: a PNG is drawn (exit 0), or one
`fmhactl: error:` line naming the file, exit 2; never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import runpy
import shutil
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("matplotlib")
from hypothesis import given, strategies as st  # noqa: E402

from tests.corruption import (Artifact, assert_clean_outcome, damage_path, fuzz_settings, mutate_bytes,  # noqa: E402
                              mutate_tree, time_limit)

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "redraw_bench_plot.py"
SOURCE = REPO / "notes" / "h100-session4" / "call7-bench-sm90_persistent.json"
ODD_KEYS = ["$\\frac{$", "$\\frac{", "$x$", "a\nb", "\u202e", "%s%d", "_" * 300, "\\", "{}", "<b>"]


@pytest.fixture(scope="module")
def bench_json() -> Artifact:
    rows = json.loads(SOURCE.read_text())
    return Artifact("bench JSON", rows=rows[:3], main=runpy.run_path(str(SCRIPT))["main"])


def _run(main, args: list[str]) -> SimpleNamespace:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), \
            pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "argv", ["redraw_bench_plot.py", *args])
        try:
            code = main()
        except SystemExit as exc:  # argparse
            code = exc.code
    return SimpleNamespace(exit_code=code, stderr=err.getvalue(), output="", exception=None)


@fuzz_settings(40)
@given(data=st.data())
def test_damaged_bench_json_is_drawn_or_refused(bench_json, data):
    work = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-bench-"))
    try:
        path, png = work / "bench.json", work / "out.png"
        kind = data.draw(st.sampled_from(["tree", "tree", "key", "bytes", "fs"]), label="damage")
        if kind == "tree":
            what, tree = mutate_tree(data, bench_json.rows)
            path.write_text(json.dumps(tree))
        elif kind == "key":
            rows = json.loads(json.dumps(bench_json.rows))
            index = data.draw(st.integers(0, len(rows) - 1))
            field = data.draw(st.sampled_from(["config_key", "variant", "gpu", "mode"]))
            rows[index][field] = data.draw(st.sampled_from(ODD_KEYS), label="text")
            what = f"[{index}].{field} = {rows[index][field]!r}"
            path.write_text(json.dumps(rows))
        elif kind == "bytes":
            what, blob = mutate_bytes(data, json.dumps(bench_json.rows).encode())
            path.write_bytes(blob)
        else:
            path.write_text(json.dumps(bench_json.rows))
            what = damage_path(data.draw(st.sampled_from(["folder", "symlink_loop", "dangling_symlink"])), path)
        with time_limit(60):
            result = _run(bench_json.main, [str(path), str(png)])
        assert_clean_outcome(result, (0, 2), what, "redraw")
        if result.exit_code == 0:
            assert png.stat().st_size > 0, what
        else:
            assert str(path) in result.stderr, (what, result.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- regressions: each failed before the fix it names -----------------------------------------

def test_a_dollar_in_a_label_is_drawn_literally(bench_json, tmp_path):
    """matplotlib read `$\\frac{$` in a config key as a formula and savefig raised
    ParseSyntaxException: a traceback from the script."""
    rows = json.loads(json.dumps(bench_json.rows))
    rows[0]["config_key"], rows[1]["gpu"] = "$\\frac{$", "$\\sqrt{$"
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(rows))
    result = _run(bench_json.main, [str(path), str(tmp_path / "out.png")])
    assert_clean_outcome(result, (0,), "$ in labels")


@pytest.mark.parametrize("change, rule", [
    (lambda rows: rows[0]["metrics"]["kernel"].update(median_ms=float("nan")), "median_ms must be a finite number"),
    (lambda rows: rows[1].update(config={"batch": "two"}), "config"),
    (lambda rows: rows.clear(), "a bench JSON document is a list"),
    (lambda rows: rows[0].update(metrics=[1]), "config and metrics must be JSON objects"),
])
def test_a_bench_json_it_cannot_draw_is_one_error_line(bench_json, tmp_path, change, rule):
    """The script built rows with ResultRow(**row) and drew whatever came: a NaN timing, a config
    that is not one, an empty list or metrics that are not an object ended in a traceback."""
    rows = json.loads(json.dumps(bench_json.rows))
    change(rows)
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(rows))
    result = _run(bench_json.main, [str(path), str(tmp_path / "out.png")])
    assert_clean_outcome(result, (2,), rule)
    assert str(path) in result.stderr and rule in result.stderr, result.stderr
