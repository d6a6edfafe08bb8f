"""The app driven by keys through Textual's Pilot, asserting on what the screens show."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import drive, make_store, write_smem_dump, write_tmem_dump

from fmhactl.tui.app import FmhaApp
from fmhactl.tui.widgets.cellgrid import CellGrid


def text(app, selector: str) -> str:
    widget = app.query_one(selector)
    return str(widget.render())


async def type_text(pilot, value: str) -> None:
    for ch in value:
        await pilot.press({",": "comma", " ": "space", ".": "full_stop", "/": "slash", "-": "minus",
                           "=": "equals_sign", "_": "underscore", ";": "semicolon"}.get(ch, ch))


async def answer(pilot, value: str) -> None:
    """Put `value` into the focused prompt (as if typed or pasted) and press Enter."""
    from textual.widgets import Input

    box = pilot.app.focused
    assert isinstance(box, Input), f"expected a prompt to have the focus, not {box!r}"
    box.value = value
    await pilot.press("enter")
    await pilot.pause()


# ---- TMEM ------------------------------------------------------------------------------------

def test_tmem_seed_question_thread_of_lane_40_column_3():
    """Seed: which thread/register holds lane 40, column 3 after 32x32b.x8 from warp 1."""
    app = FmhaApp("tmem", {"shape": "32x32b", "num": 8, "warp": 1})

    async def script(pilot):
        await pilot.press("g")
        await answer(pilot, "40,3")
        grid = app.query_one("#tmem-grid", CellGrid)
        assert grid.cursor_key() == (40, 3)
        info = text(app, "#tmem-info")
        assert "thread 40 (lane 8 of warp 1) r[3]" in info
        assert "ok: warp 1" in info
        await pilot.press("t")  # highlight thread 8's cells: all 8 registers of lane 40
        assert grid.group == 8
        assert "holds 8 cell(s)" in text(app, "#tmem-info")

    drive(app, script)


def test_tmem_keys_change_shape_and_num_and_name_lane_quarter_violation():
    app = FmhaApp("tmem")

    async def script(pilot):
        page = app.page("tmem")
        await pilot.press("s")
        assert page.options["shape"] == "16x64b"
        await pilot.press("plus", "plus")
        assert page.options["num"] == 4
        assert "16x64b.x4" in text(app, "#tmem-controls") or "x4" in text(app, "#tmem-controls")
        await pilot.press("l")
        await answer(pilot, "32")  # warp 0 aimed at lane quarter 1
        assert "lane-quarter" in text(app, "#tmem-msg")
        assert "VIOLATED lane-quarter: warp 0" in text(app, "#tmem-info")

    drive(app, script)


def test_tmem_cursor_moves_with_arrow_keys():
    app = FmhaApp("tmem", {"shape": "32x32b", "num": 4})

    async def script(pilot):
        grid = app.query_one("#tmem-grid", CellGrid)
        start = grid.cursor_key()
        await pilot.press("down", "down", "right")
        assert grid.cursor_key() == (start[0] + 2, start[1] + 1)
        assert f"lane {start[0] + 2}, column {start[1] + 1}" in text(app, "#tmem-info")

    drive(app, script)


def test_tmem_plan_mode_shows_regions_from_the_plan():
    app = FmhaApp("tmem", {"plan": True, "variant": "sm100_tma_s2_tmem", "head_dim": 128})

    async def script(pilot):
        plan = text(app, "#tmem-plan")
        assert "S    columns   0..127" in plan and "O    columns 128..255" in plan
        assert "P    columns   0..63   softmax P, 16-bit pairs, written over the S columns" in plan
        await pilot.press("d")
        await answer(pilot, "512")  # O is split over two passes so S + O/2 fits
        plan = text(app, "#tmem-plan")
        assert "at head dim 512" in plan and "O    columns  32..287" in plan
        await pilot.press("d")
        await answer(pilot, "lots")
        assert "is not an integer" in text(app, "#tmem-msg")

    drive(app, script)


# ---- Accumulator -----------------------------------------------------------------------------

def test_accumulator_m128_n64_has_no_holes_and_find_works():
    app = FmhaApp("accum", {"m": 128, "n": 64})

    async def script(pilot):
        grid = app.query_one("#accum-grid", CellGrid)
        assert all((lane, col) in grid.model.cells for lane in range(128) for col in range(64))
        await pilot.press("f")
        await answer(pilot, "40,35")
        assert grid.cursor_key() == (40, 35)
        assert "D[40][35] -> lane 40, column 35" in text(app, "#accum-cell")

    drive(app, script)


def test_impossible_shape_shows_message_and_keeps_running():
    app = FmhaApp("accum")

    async def script(pilot):
        page = app.page("accum")
        await pilot.press("e")
        await answer(pilot, "1000")
        assert "N must be 8..256" in text(app, "#accum-msg")
        assert page.options["n"] == 64  # the last good shape is kept
        await pilot.press("a")  # cta_group::2 with M=128 is not modelled: refused, M=128 kept
        assert "cta_group::2 is modelled for M=256 only" in text(app, "#accum-msg")
        assert page.options["cta_group"] == 1
        await pilot.press("m")  # 128 -> 256: a CTA pair, 128 rows each
        assert (page.options["m"], page.options["cta_group"]) == (256, 2)
        await pilot.press("f")
        await answer(pilot, "200,3")
        assert "D[200][3] -> CTA 1, lane 72, column 3" in text(app, "#accum-cell")
        assert app.is_running

    drive(app, script)


# ---- SMEM ------------------------------------------------------------------------------------

def test_smem_descriptor_edit_moves_addressed_elements():
    """The seeds' full_d bug: the k-block 1 MMA with its start address left at the tile base reads k 0..15."""
    app = FmhaApp("smem", {"major": "K", "swizzle": "128B", "rows": 128, "cols": 64})

    async def script(pilot):
        page = app.page("smem")
        await pilot.press("right_square_bracket")
        assert page.view.kb == 1
        assert "2048 from the right place, 0 from the wrong place" in text(app, "#smem-desc-report")
        await pilot.press("e")  # edit the first field: start address
        await answer(pilot, "0")
        assert "0 from the right place, 2048 from the wrong place" in text(app, "#smem-desc-report")
        flagged = [k for k, c in page.view.grid.cells.items() if c.flag]
        assert flagged  # the wrongly read chunks are drawn in red
        await pilot.press("x")
        assert "2048 from the right place" in text(app, "#smem-desc-report")

    drive(app, script)


def test_smem_element_row5_k70_and_its_bank():
    app = FmhaApp("smem", {"rows": 128, "cols": 128, "element": (5, 70)})

    async def script(pilot):
        page = app.page("smem")
        msg = page.view.header
        assert "element (row 5, k 70)" in msg
        grid = app.query_one("#smem-grid", CellGrid)
        detail = page.view.grid.cell(*grid.cursor_key()).detail
        assert "row 5" in detail and "banks" in detail

    drive(app, script)


def test_smem_access_pattern_reports_conflicts_per_phase():
    app = FmhaApp("smem", {"swizzle": "none"})

    async def script(pilot):
        await pilot.press("a")
        await answer(pilot, "t; 0; 4")
        report = text(app, "#smem-pattern")
        assert "phase 0" in report
        assert "extra" in report  # rows 128 B apart with no swizzle: 4-byte reads collide

    drive(app, script)


# ---- Descriptors -----------------------------------------------------------------------------

def test_descriptor_edit_field_updates_hex():
    app = FmhaApp("descriptors", {"kind": "idesc", "value": "0x08400010"})

    async def script(pilot):
        page = app.page("descriptors")
        names = [f.name for f in page.view.fields]
        table = page.query_one("#desc-fields").table
        table.focus()
        table.move_cursor(row=names.index("m"))
        await pilot.press("enter")
        await answer(pilot, "64")
        await pilot.pause()
        assert page.hex_input.value == "0x04400010"
        assert "64x256" in text(app, "#desc-verdict")

    drive(app, script)


def test_descriptor_bit23_problem_named_like_the_cli():
    app = FmhaApp("descriptors", {"kind": "idesc", "value": "0x08c00010"})

    async def script(pilot):
        assert "reserved-23" in text(app, "#desc-problems")
        assert "INVALID" in text(app, "#desc-verdict")

    drive(app, script)


def test_malformed_hex_shows_message_and_keeps_running():
    app = FmhaApp("descriptors")

    async def script(pilot):
        page = app.page("descriptors")
        page.hex_input.focus()
        page.hex_input.value = "0xZZ12"  # as pasted
        await pilot.pause()
        assert "is not an integer" in text(app, "#descriptors-msg")
        assert page.view.value == 0x08400010  # the last good fields stay on screen ...
        assert text(app, "#desc-verdict").startswith("NOT DECODED: ")  # ... but no verdict of them
        page.hex_input.value = "0x1ffffffff"
        await pilot.pause()
        assert "does not fit in 32 bits" in text(app, "#descriptors-msg")
        assert app.is_running

    drive(app, script)


# ---- TMA -------------------------------------------------------------------------------------

def test_tma_form_is_checked_live_and_driver_key_is_disabled_without_gpu():
    app = FmhaApp("tma")

    async def script(pilot):
        assert "VALID" in text(app, "#tma-summary")
        box = app.query_one("#tma-box")
        box.focus()
        box.value = "300,128,1"  # as typed: every change is checked
        await pilot.pause()
        assert "INVALID" in text(app, "#tma-summary")
        assert "box" in text(app, "#tma-summary")
        assert "disabled" in text(app, "#tma-driver")
        await pilot.press("ctrl+g")
        assert "disabled" in text(app, "#tma-driver")

    drive(app, script)


# ---- Map -------------------------------------------------------------------------------------

def test_map_links_both_ends_and_highlights_a_thread():
    app = FmhaApp("map")

    async def script(pilot):
        page = app.page("map")
        await pilot.press("down", "down", "down", "right")
        await pilot.pause()
        src, dst = page.src.cursor_key(), page.dst.cursor_key()
        assert src == (3, 1)
        record = page.view.records_by_cell[src]
        assert (record.m, record.n) == (3, 1)
        assert page.view.tmem_to_dest[src] == dst
        await pilot.press("t")
        assert page.src.group == page.dst.group == 3
        assert "thread 3 highlighted on both sides" in text(app, "#map-info")

    drive(app, script)


# ---- Checkpoints -----------------------------------------------------------------------------

def test_open_dump_file_first_mismatch_and_jump_to_tmem(tmp_path: Path):
    dump = write_tmem_dump(tmp_path / "s.json")
    app = FmhaApp("checkpoints")

    async def script(pilot):
        await pilot.press("o")
        await answer(pilot, str(dump))
        lines = text(app, "#ckpt-lines")
        assert "1 of 2048 elements differ" in lines
        assert "first mismatch at lane 40, column 3" in lines
        assert app.query_one("#ckpt-heat", CellGrid).cursor_key() == (40, 3)
        await pilot.press("j")
        await pilot.pause()
        assert app.query_one("ContentSwitcher").current == "tmem"
        assert app.query_one("#tmem-grid", CellGrid).cursor_key() == (40, 3)
        assert "r[3]" in text(app, "#tmem-info")

    drive(app, script)


def test_smem_dump_jumps_to_the_element_in_the_smem_screen(tmp_path: Path):
    dump = write_smem_dump(tmp_path / "k.json")
    app = FmhaApp("checkpoints", {"dump": str(dump)})

    async def script(pilot):
        assert "first mismatch at row 5, k 6" in text(app, "#ckpt-lines")
        await pilot.press("j")
        await pilot.pause()
        page = app.page("smem")
        assert app.query_one("ContentSwitcher").current == "smem"
        assert page.view.grid.cell(*page.grid.cursor_key()).label == "5,0"  # the chunk holding k 0..7 of row 5

    drive(app, script)


def test_unreadable_dump_file_shows_message(tmp_path: Path):
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\xff\xfe not json")
    app = FmhaApp("checkpoints")

    async def script(pilot):
        await pilot.press("o")
        await answer(pilot, str(garbage))
        assert "unreadable" in text(app, "#checkpoints-msg") or "not JSON" in text(app, "#checkpoints-msg")
        await pilot.press("o")
        await answer(pilot, str(tmp_path / "missing.json"))
        assert "not found" in text(app, "#checkpoints-msg")
        assert app.is_running

    drive(app, script)


# ---- Results ---------------------------------------------------------------------------------

def test_results_filter_and_details(tmp_path: Path):
    db = make_store(tmp_path / "results.db")
    app = FmhaApp("results", {"db": db})

    async def script(pilot):
        page = app.page("results")
        assert len(page.lines) == 4
        await pilot.press("ctrl+f")
        await answer(pilot, "kind=verify status=fail")
        await pilot.pause()
        assert [line.variant for line in page.lines] == ["sm100_direct_tmem"]
        details = text(app, "#results-details")
        assert "max |err|: 0.5" in details and "query tile 2" in details
        await pilot.press("ctrl+f")
        await answer(pilot, "nonsense=1")
        await pilot.pause()
        assert "unknown filter 'nonsense'" in text(app, "#results-msg")
        assert len(page.lines) == 1  # the last good filter's rows stay

    drive(app, script)


def test_results_gpu_actions_disabled_with_reason(tmp_path: Path):
    db = make_store(tmp_path / "results.db")
    app = FmhaApp("results", {"db": db})

    async def script(pilot):
        page = app.page("results")
        assert page.check_action("start", ("verify",)) is None
        assert "disabled" in text(app, "#results-job-line") and "no GPU" in text(app, "#results-job-line")
        page.action_start("verify")
        assert "verify disabled: no GPU" in text(app, "#results-msg")

    drive(app, script)


def test_results_job_runs_in_a_worker_with_progress_and_cancel(tmp_path: Path, monkeypatch):
    """The worker plumbing (progress bar, log, cancel) with the GPU service replaced by a stand-in."""
    import threading

    from fmhactl.tui import backend

    db = make_store(tmp_path / "results.db")
    release = threading.Event()

    def fake_run_job(kind, variant, grid, *, progress, cancelled):
        progress(backend.ProgressEvent("config", 0, 3, f"{kind} {variant} over {grid}"))
        progress(backend.ProgressEvent("config", 1, 3, "PASS cfg1"))
        release.wait(5)
        if cancelled():
            return "cancelled after 1 of 3 config(s)"
        return "3 passed"

    monkeypatch.setattr(backend, "gpu_status", lambda: backend.DeviceStatus(available=True))
    monkeypatch.setattr(backend, "run_job", fake_run_job)
    app = FmhaApp("results", {"db": db})

    async def script(pilot):
        page = app.page("results")
        await pilot.press("ctrl+v")
        await pilot.pause(0.2)
        assert page.running
        assert app.query_one("#results-progress").progress == 1
        await pilot.press("ctrl+x")
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        assert not page.running
        assert "cancelled after 1 of 3" in text(app, "#results-msg")

    drive(app, script)


# ---- navigation ------------------------------------------------------------------------------

def test_number_keys_and_palette_switch_screens():
    app = FmhaApp("tmem")

    async def script(pilot):
        await pilot.press("3")
        assert app.query_one("ContentSwitcher").current == "smem"
        await pilot.press("8")
        assert app.query_one("ContentSwitcher").current == "results"
        app.show_page("map")
        await pilot.pause()
        assert app.query_one("ContentSwitcher").current == "map"

    drive(app, script)


@pytest.mark.parametrize("query, screen", [("Go to Checkpoints", "checkpoints"),
                                           ("Map", "map")])  # issue 22: "Map" ranked "Go to TMA" first
def test_command_palette_goes_to_a_screen(query, screen):
    app = FmhaApp("tmem")

    async def script(pilot):
        await pilot.press("ctrl+p")
        await pilot.pause()
        await type_text(pilot, query)
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app.query_one("ContentSwitcher").current == screen

    drive(app, script)


def test_real_job_without_gpu_is_refused_by_the_service():
    """backend.run_job goes through services.verify, which refuses to start without a GPU (exit-3 class)."""
    import pytest

    from fmhactl.errors import MissingEnvironment
    from fmhactl.tui import backend

    events = []
    with pytest.raises(MissingEnvironment):
        backend.run_job("verify", "ref", "smoke", progress=events.append, cancelled=lambda: False)
    assert events and "verify ref over grid smoke" in events[0].message
