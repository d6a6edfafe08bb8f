"""A bit-field table with in-place editing: the descriptor editor of the SMEM and Descriptors screens.

Rows are fields (bits, name, raw value, meaning); problems colour a row red. Enter (or `e`) on a
row opens an input under the table prefilled with the field's value; Enter there posts `Edited`,
Escape cancels. The widget does not interpret the text: the screen hands it to the backend.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Input

from fmhactl.tui.views.descriptors import FieldRow


class FieldTable(Vertical):
    DEFAULT_CSS = """
    FieldTable { height: auto; }
    FieldTable DataTable { height: auto; max-height: 18; }
    FieldTable Input { display: none; }
    FieldTable Input.editing { display: block; }
    """

    BINDINGS = [Binding("e", "edit", "edit field")]

    class Edited(Message):
        def __init__(self, table: FieldTable, index: int, text: str) -> None:
            super().__init__()
            self.table = table
            self.index = index
            self.text = text

        @property
        def control(self) -> FieldTable:
            return self.table

    def __init__(self, *, id: str | None = None, editable: set[str] | None = None) -> None:
        super().__init__(id=id)
        self.fields: list[FieldRow] = []
        self.editable = editable  # field names that may be edited (None: all)
        self._editing: int | None = None

    def compose(self) -> ComposeResult:
        table: DataTable = DataTable(cursor_type="row", zebra_stripes=True)
        table.add_columns("bits", "field", "raw", "value")
        yield table
        yield Input(placeholder="new value (Enter: apply, Esc: cancel)")

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def show(self, fields: list[FieldRow]) -> None:
        self.fields = fields
        table = self.table
        row = table.cursor_row
        table.clear()
        for f in fields:
            style = "bold red" if f.bad else ""
            bits = f"{f.lo}" if f.width == 1 else f"{f.lo}-{f.lo + f.width - 1}"
            table.add_row(Text(bits, style=style), Text(f.label, style=style), Text(str(f.raw), style=style),
                          Text(f.shown, style=style))
        if fields:
            table.move_cursor(row=min(row, len(fields) - 1))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_edit()

    def action_edit(self) -> None:
        index = self.table.cursor_row
        if not 0 <= index < len(self.fields):
            return
        f = self.fields[index]
        if self.editable is not None and f.name not in self.editable:
            self.app.notify(f"{f.label} is not editable here", severity="warning")
            return
        self._editing = index
        box = self.query_one(Input)
        box.value = f.edit_text
        box.border_title = f"{f.meaning} (bits {f.lo}..{f.lo + f.width - 1}; {f.allowed}; raw:N for raw bits)"
        box.add_class("editing")
        box.display = True  # at once, so keys typed right away land in the box
        box.cursor_position = len(box.value)
        self.app.set_focus(box)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._editing is None:
            return
        index, self._editing = self._editing, None
        event.input.remove_class("editing")
        event.input.display = False
        self.table.focus()
        self.post_message(self.Edited(self, index, event.value))

    def on_key(self, event) -> None:  # Escape inside the input cancels the edit
        if event.key == "escape" and self._editing is not None:
            event.stop()
            self._editing = None
            self.query_one(Input).remove_class("editing")
            self.query_one(Input).display = False
            self.table.focus()
