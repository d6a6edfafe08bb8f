"""Focus and keys never trap: screens open with their keys live, Esc always leaves an input, a
prompt's footer shows the prompt's keys only, the footer keeps q at 80 columns. (The palette's
ranking is in test_pilot.test_command_palette_goes_to_a_screen.)"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tests.tui.conftest import drive
from tests.tui.test_pilot import type_text

from fmhactl.tui.app import PAGE_NAMES, FmhaApp


def shown_keys(app) -> dict[str, str]:
    """The footer's keys: key -> description, as the Footer widget lists them (shown and enabled)."""
    return {k: b.binding.description for k, b in app.screen.active_bindings.items() if b.binding.show and b.enabled}


def current(app) -> str:
    return app.query_one("ContentSwitcher").current


def app_on(name: str, tmp_path) -> FmhaApp:
    """The app opened on screen `name` (the results screen on an empty private store)."""
    return FmhaApp(name, {"db": tmp_path / "results.db"} if name == "results" else None)


def test_tma_opens_with_screen_keys_live_and_its_fields_untouched():
    """Issue 22: `tui --screen tma` opened in the dtype field; `3` replaced bf16, Esc, 1 and q were typed in."""
    app = FmhaApp("tma")

    async def script(pilot):
        assert not isinstance(app.focused, Input)
        await pilot.press("3")
        assert current(app) == "smem"
        await pilot.press("5")
        assert current(app) == "tma" and app.query_one("#tma-dtype", Input).value == "bf16"
        await pilot.press("tab")  # into the form, on purpose
        assert app.focused is app.query_one("#tma-dtype", Input)
        await pilot.press("escape")
        assert not isinstance(app.focused, Input)
        await pilot.press("1")
        assert current(app) == "tmem"
        assert app.return_code is None
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0  # q quit the app: it was not typed into a field

    drive(app, script)


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_every_screen_at_80x24_keeps_q_in_the_footer_opens_without_an_input_and_esc_leaves_each(name, tmp_path):
    from textual.widgets._footer import FooterKey

    app = app_on(name, tmp_path)

    async def script(pilot):
        await pilot.pause()
        visible = [k.key for k in app.query(FooterKey) if k.region.width and k.region.right <= 80]
        assert visible[:1] == ["q"], visible  # the way out is never cut by a narrow terminal
        assert "ctrl+p" in visible  # the palette sits on the right, always
        if name == "tmem":
            assert "p" in visible  # plan mode is reachable from the footer
        assert not isinstance(app.focused, Input), f"{name} opened with {app.focused!r} focused"
        inputs = [w for w in app.page(name).query(Input) if w.display and w.id and not w.id.endswith("-prompt")]
        for box in inputs:
            box.focus()
            await pilot.pause()
            assert app.focused is box
            await pilot.press("escape")
            assert not isinstance(app.focused, Input), f"Esc left {box.id} focused on {name}"
        digit = str(PAGE_NAMES.index("tmem" if name != "tmem" else "accum") + 1)
        await pilot.press(digit)
        assert current(app) == ("tmem" if name != "tmem" else "accum")

    drive(app, script, size=(80, 24))


def test_tma_dims_field_takes_every_character_and_the_rules_follow_the_fields():
    app = FmhaApp("tma")

    async def script(pilot):
        page = app.page("tma")
        app.query_one("#tma-dims", Input).focus()
        await pilot.press("end", "ctrl+u")
        summary = str(app.query_one("#tma-summary").render())
        assert summary.startswith("NOT CHECKED: dims is empty")
        assert app.query_one("#tma-rules").row_count == 0  # no rules of older values beside an empty field
        await type_text(pilot, "256,64,1")
        assert app.query_one("#tma-dims", Input).value == "256,64,1"
        assert page.options["dims"] == "256,64,1" and page.view is not None
        assert "error" not in app.query_one("#tma-msg").classes
        assert str(app.query_one("#tma-summary").render()).startswith("VALID")

    drive(app, script)


def test_goto_prompt_shows_only_its_keys_and_takes_plus_as_text():
    app = FmhaApp("tmem")

    async def script(pilot):
        assert shown_keys(app).get("plus") == ".num+"
        await pilot.press("g")
        keys = shown_keys(app)
        assert keys.get("enter") == "apply" and keys.get("escape") == "cancel"
        assert not {"s", "plus", "minus", "g", "p"} & set(keys), keys  # the page's keys are off while it asks
        await pilot.press("plus")
        assert app.focused.value == "+" and app.page("tmem").options["num"] == 1
        await pilot.press("escape")
        assert not isinstance(app.focused, Input)
        assert shown_keys(app).get("plus") == ".num+"
        await pilot.press("plus")
        assert app.page("tmem").options["num"] == 2

    drive(app, script)


def test_plan_mode_has_its_own_footer_and_no_stale_cell_report():
    app = FmhaApp("tmem")

    async def script(pilot):
        await pilot.press("l")
        app.focused.value = "32"  # warp 0 aimed at lane quarter 1: a VIOLATED line in the cell report
        await pilot.press("enter")
        await pilot.pause()
        assert "VIOLATED" in str(app.query_one("#tmem-info").render())
        await pilot.press("p")
        await pilot.pause()
        assert not app.query_one("#tmem-info").display
        keys = shown_keys(app)
        assert {"v", "d", "p"} <= set(keys) and not {"s", "plus", "w", "g"} & set(keys), keys
        await pilot.press("p")
        await pilot.pause()
        assert app.query_one("#tmem-info").display and "s" in shown_keys(app)

    drive(app, script)


def test_field_editor_esc_gives_the_keys_back():
    """The bit-field editor's box (Descriptors, SMEM) is an input too: Esc closes it, digits work again."""
    app = FmhaApp("descriptors")

    async def script(pilot):
        await pilot.press("enter")
        box = app.focused
        assert isinstance(box, Input) and box.display
        await pilot.press("1")
        assert box.value.endswith("1") and current(app) == "descriptors"  # typed, not a screen switch
        await pilot.press("escape")
        assert not isinstance(app.focused, Input) and not box.display
        await pilot.press("1")
        assert current(app) == "tmem"

    drive(app, script)
