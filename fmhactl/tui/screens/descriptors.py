"""Descriptors: paste a hex instruction / UMMA shared-memory / wgmma descriptor and see its fields
and problems live (the same decoder and messages as `fmhactl layout ... decode`); edit a field and
the hex follows."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from fmhactl.tui import backend
from fmhactl.tui.views import descriptors as descriptors_views
from fmhactl.tui.screens.base import Page, cycle, problems_text
from fmhactl.tui.widgets.fieldtable import FieldTable

EXAMPLES = {"idesc": "0x08400010", "smem": "0x4000404000010000", "wgmma": "0x4000004000010000"}
TITLES = {"idesc": "tcgen05.mma instruction descriptor (32 bits)", "smem": "tcgen05 shared-memory descriptor "
          "(64 bits)", "wgmma": "Hopper wgmma shared-memory descriptor (64 bits)"}


class DescriptorsPage(Page):
    NAME = "descriptors"
    TITLE = "Descriptors"
    HELP = "hex <-> fields of the instruction, UMMA and wgmma descriptors, problems live"

    BINDINGS = [
        Binding("ctrl+t", "kind(1)", "kind"),
        Binding("ctrl+o", "major", "major (smem)"),
        Binding("ctrl+e", "edit", "edit field", show=False),
        Binding("tab", "switch", "hex/fields", show=False),
    ]

    DEFAULT_CSS = """
    #desc-hex { width: 40; }
    #desc-fields { height: 1fr; }
    #desc-fields DataTable { height: 1fr; max-height: 100%; }
    #desc-problems { height: auto; max-height: 6; }
    """

    def __init__(self, options: dict | None = None) -> None:
        o = {"kind": "idesc", "value": None, "major": None, **(options or {})}
        if o["value"] is None:
            o["value"] = EXAMPLES[o["kind"]] if o["kind"] in EXAMPLES else ""
        super().__init__(o)
        self.view: descriptors_views.DescriptorView | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="controls", id="desc-controls")
        yield Input(str(self.options["value"]), id="desc-hex", placeholder="paste a hex value, e.g. 0x08400010")
        yield Static("", id="desc-verdict")
        yield FieldTable(id="desc-fields")
        yield Static("", id="desc-problems")
        yield from self.compose_message()

    def first_show(self) -> None:
        self.update_view()

    @property
    def hex_input(self) -> Input:
        return self.query_one("#desc-hex", Input)

    def refresh_view(self) -> None:
        o = self.options
        self.query_one("#desc-controls", Static).update(
            f"[b]{TITLES.get(o['kind'], o['kind'])}[/] (ctrl+t: kind)"
            + (f"  operand major [b]{o['major'] or 'unknown'}[/] (ctrl+o)" if o["kind"] == "smem" else "")
            + "  tab: fields, Enter/e: edit")
        try:
            value = descriptors_views.parse_descriptor_text(o["kind"], str(o["value"]))
            view = descriptors_views.descriptor_view(o["kind"], value, o["major"])
        except backend.FmhactlError as exc:
            # The hex box is the truth: no verdict of an older value beside text that says otherwise.
            self.query_one("#desc-verdict", Static).update(Text(f"NOT DECODED: {exc}", style="bold red"))
            raise
        self.view = view
        width = view.bits // 4
        self.query_one("#desc-verdict", Static).update(
            f"0x{view.value:0{width}x}: " + (f"[green]{view.verdict}[/]" if "INVALID" not in view.verdict
                                             else f"[bold red]{view.verdict}[/]"))
        self.query_one("#desc-fields", FieldTable).show(view.fields)
        lines = backend.problem_lines(view.problems)
        self.query_one("#desc-problems", Static).update(problems_text(lines))
        self.say(f"{len([s for s, _ in lines if s == 'error'])} error(s), "
                 f"{len([s for s, _ in lines if s != 'error'])} other finding(s)")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "desc-hex":
            return
        event.stop()
        self.set_options(value=event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "desc-hex":
            event.stop()
            self.query_one("#desc-fields", FieldTable).table.focus()
            return
        super().on_input_submitted(event)

    def on_field_table_edited(self, event: FieldTable.Edited) -> None:
        assert self.view is not None
        kind, value = self.options["kind"], self.view.value

        def apply() -> None:
            new = descriptors_views.set_descriptor_field(kind, value, event.index, event.text)
            self.hex_input.value = f"0x{new:0{self.view.bits // 4 if self.view else 16}x}"  # Changed -> decode

        self.guard(apply)

    def action_kind(self, step: int) -> None:
        kind = cycle(backend.DESCRIPTOR_KINDS, self.options["kind"], step)
        self.options["kind"] = kind
        self.hex_input.value = EXAMPLES[kind]
        self.set_options(value=EXAMPLES[kind])

    def action_major(self) -> None:
        self.set_options(major=cycle((None, "K", "MN"), self.options["major"]))

    def action_edit(self) -> None:
        table = self.query_one("#desc-fields", FieldTable)
        self.app.set_focus(table.table)  # at once: the edit box takes the focus next
        table.action_edit()

    def action_switch(self) -> None:
        table = self.query_one("#desc-fields", FieldTable).table
        (self.hex_input if table.has_focus else table).focus()

    def focus_main(self) -> None:
        self.query_one("#desc-fields", FieldTable).table.focus()
