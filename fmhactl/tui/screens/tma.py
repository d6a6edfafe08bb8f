"""TMA: a cuTensorMapEncodeTiled form checked live against the rules of `fmhactl tma check`; with a
GPU, one key asks the real driver and shows its verdict beside ours."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.widgets import DataTable, Input, Label, Static

from fmhactl.tui import backend
from fmhactl.tui.views import descriptors as descriptors_views
from fmhactl.tui.screens.base import Page

STATUS_STYLE = {"ok": "green", "violated": "bold red", "warning": "yellow", "n/a": "dim"}


class TmaPage(Page):
    NAME = "tma"
    TITLE = "TMA"
    HELP = "tensor-map parameters checked live; ctrl+g asks the driver (GPU)"

    BINDINGS = [
        Binding("ctrl+g", "driver", "ask driver"),
        Binding("e", "form", "edit form"),
        Binding("tab", "next_field", "fields", show=False),
        Binding("ctrl+r", "preset", "seed 002 preset"),
    ]

    DEFAULT_CSS = """
    #tma-form { grid-size: 4; grid-columns: 14 1fr 14 1fr; height: auto; grid-rows: 1; grid-gutter: 0 1; }
    #tma-form Input { border: none; height: 1; padding: 0; }
    #tma-form Label { color: $text-muted; }
    #tma-rules { height: 1fr; }
    """

    def __init__(self, options: dict | None = None) -> None:
        form = {key: default for key, _, default in descriptors_views.TMA_FIELDS}
        form.update({k: str(v) for k, v in (options or {}).items() if k in form and v is not None})
        super().__init__(form)
        self.view: descriptors_views.TmaView | None = None

    def compose(self) -> ComposeResult:
        with Grid(id="tma-form"):
            for key, label, _ in descriptors_views.TMA_FIELDS:
                yield Label(key.replace("_", " "))
                yield Input(str(self.options[key]), id=f"tma-{key}", tooltip=label)
        yield Static("", id="tma-call")
        yield Static("", id="tma-summary")
        yield DataTable(id="tma-rules", cursor_type="row", zebra_stripes=True)
        yield Static("", id="tma-driver")
        yield from self.compose_message()

    def first_show(self) -> None:
        self.query_one("#tma-rules", DataTable).add_columns("rule", "parameter", "status", "detail")
        gpu = backend.gpu_status()
        self.query_one("#tma-driver", Static).update(
            "driver: ctrl+g asks cuTensorMapEncodeTiled" if gpu.available
            else f"[dim]driver check disabled: {gpu.reason}[/]")
        self.update_view()

    def refresh_view(self) -> None:
        table = self.query_one("#tma-rules", DataTable)
        try:
            view = descriptors_views.tma_view(self.options)
        except backend.FmhactlError as exc:
            # The form is the truth: no rule table of older values beside fields that say otherwise.
            self.view = None
            table.clear()
            self.query_one("#tma-summary", Static).update(Text(f"NOT CHECKED: {exc}", style="bold red"))
            raise
        self.view = view
        self.query_one("#tma-call", Static).update(Text(view.c_call, style="bold"))
        self.query_one("#tma-summary", Static).update(
            Text(view.summary, style="bold green" if view.valid else "bold red"))
        table.clear()
        for rule, param, statement, status, detail in view.rules:
            table.add_row(rule, param, Text(status, style=STATUS_STYLE.get(status, "")),
                          Text(detail or statement, style="" if detail else "dim"))
        self.say("model: " + ("valid" if view.valid else "invalid"), "ok" if view.valid else "")

    def on_input_changed(self, event: Input.Changed) -> None:
        if not (event.input.id or "").startswith("tma-"):
            return
        event.stop()
        self.options[event.input.id[4:]] = event.value  # what the fields show is what is checked
        self.update_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not super().check_action(action, parameters):
            return False
        if action == "driver" and not backend.gpu_status().available:
            return None  # shown disabled in the footer; the reason is on the screen
        return True

    def action_driver(self) -> None:
        gpu = backend.gpu_status()
        if not gpu.available:
            self.say(f"driver check disabled: {gpu.reason}", "error")
            return
        if self.view is None:
            self.say("the form has an error: fix it before asking the driver", "error")
            return
        self.query_one("#tma-driver", Static).update("asking the driver ...")
        self._ask_driver(dict(self.options))

    @work(thread=True, exclusive=True, group="tma-driver")
    def _ask_driver(self, form: dict[str, str]) -> None:
        try:
            text = descriptors_views.tma_ask_driver(form)
        except backend.FmhactlError as exc:
            text = f"driver: {exc}"
        self.app.call_from_thread(self.query_one("#tma-driver", Static).update, text)

    def action_preset(self) -> None:
        for key, _, default in descriptors_views.TMA_FIELDS:
            self.query_one(f"#tma-{key}", Input).value = default

    def action_form(self) -> None:
        self.query_one("#tma-dtype", Input).focus()

    def action_next_field(self) -> None:
        """Tab: from the rules into the form; within the form, field to field (then the rules)."""
        if isinstance(self.app.focused, Input):
            self.app.action_focus_next()
        else:
            self.action_form()
