"""SMEM: a canonical operand tile as the hardware stores it (coloured by bank), the UMMA descriptor
that addresses one MMA's k-block of it (edit a field: the addressed elements move), and the bank
conflicts of an access pattern per phase."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from fmhactl.tui import backend
from fmhactl.tui.views import descriptors as descriptors_views
from fmhactl.tui.views import smem as smem_views
from fmhactl.tui.screens.base import Page, cycle, parse_pair, problems_text
from fmhactl.tui.widgets.cellgrid import CellGrid
from fmhactl.tui.widgets.fieldtable import FieldTable

EDITABLE = {"start", "lbo", "sbo", "layout", "base_offset"}


class SmemPage(Page):
    NAME = "smem"
    TITLE = "SMEM"
    HELP = "an operand tile in shared memory, its banks, its descriptor and access conflicts"

    BINDINGS = [
        Binding("m", "major", "major"),
        Binding("s", "swizzle(1)", "swizzle"),
        Binding("d", "dtype(1)", "dtype"),
        Binding("z", "size", "rows,cols"),
        Binding("right_square_bracket", "kb(1)", "k-block+"),
        Binding("left_square_bracket", "kb(-1)", "k-block-"),
        Binding("e", "edit", "edit desc"),
        Binding("x", "reset", "reset desc"),
        Binding("a", "pattern", "access"),
        Binding("P", "pstore", "P store", show=False),
        Binding("f", "find", "find r,k"),
        Binding("tab", "switch", "grid/fields", show=False),
    ]

    DEFAULT_CSS = """
    #smem-side { width: 40; }
    #smem-body { height: 1fr; }
    """

    def __init__(self, options: dict | None = None) -> None:
        defaults = {"major": "K", "swizzle": "128B", "dtype": "bf16", "rows": 128, "cols": 64, "base": 0,
                    "lbo": None, "sbo": None, "kb": 0, "descriptor": None, "row_expr": "t", "k_expr": "0",
                    "vec": 16, "pattern": "expr", "element": None}
        super().__init__({**defaults, **(options or {})})
        self.view: smem_views.SmemView | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="controls", id="smem-controls")
        with Horizontal(id="smem-body"):
            yield CellGrid(id="smem-grid")
            with VerticalScroll(id="smem-side"):
                yield Static("", id="smem-desc-report")
                yield FieldTable(id="smem-fields", editable=EDITABLE)
                yield Static("", id="smem-desc-problems")
                yield Static("", id="smem-pattern")
        yield Static("", classes="info", id="smem-info")
        yield from self.compose_message()

    def first_show(self) -> None:
        self.update_view()
        element = self.options.get("element")
        if element is not None and self.view is not None:
            self.guard(lambda: self.grid.move_to(*smem_views.smem_element_cell(self.view, *element)))

    @property
    def grid(self) -> CellGrid:
        return self.query_one("#smem-grid", CellGrid)

    def refresh_view(self) -> None:
        o = self.options
        view = smem_views.smem_view(o["major"], o["swizzle"], o["dtype"], o["rows"], o["cols"], o["base"], o["lbo"],
                                 o["sbo"], o["kb"], o["descriptor"], o["row_expr"], o["k_expr"], o["vec"],
                                 o["pattern"], o["element"])
        self.view = view
        self.query_one("#smem-controls", Static).update(
            f"[b]{o['major']}[/]-major (m)  swizzle [b]{o['swizzle']}[/] (s)  [b]{o['dtype']}[/] (d)  "
            f"[b]{o['rows']}x{o['cols']}[/] (z)  k-block [b]{view.kb}[/] ([ ])  e: edit descriptor  a: access")
        self.grid.show(view.grid)
        fields = descriptors_views.descriptor_view("smem", view.descriptor, view.tile.layout.major)
        self.query_one("#smem-fields", FieldTable).show(fields.fields)
        self.query_one("#smem-desc-report", Static).update(Text("\n".join(view.descriptor_report)))
        self.query_one("#smem-desc-problems", Static).update(
            problems_text(backend.problem_lines(view.descriptor_problems), "descriptor valid"))
        self.query_one("#smem-pattern", Static).update(Text("\n".join(view.pattern_report)))
        tile_problems = [f"{p.code}: {p.message}" for p in view.problems]
        self.say(view.header + ("\n" + "; ".join(tile_problems) if tile_problems else ""),
                 "error" if any(p.severity == "error" for p in view.problems) else "")

    def on_cell_grid_cursor_moved(self, event: CellGrid.CursorMoved) -> None:
        cell = self.view.grid.cell(event.row, event.col) if self.view else None
        marked = self.view is not None and (event.row, event.col) in self.view.grid.marked
        text = cell.detail if cell else f"bytes {event.row * 128 + event.col * 16:#x}..+15: no element of the tile"
        if marked:
            text += "\nread by the descriptor's MMA" + (" - from the WRONG place" if cell and cell.flag else "")
        self.query_one("#smem-info", Static).update(Text(text))

    def on_field_table_edited(self, event: FieldTable.Edited) -> None:
        assert self.view is not None
        value = self.view.descriptor
        self.guard(lambda: self.set_options(descriptor=descriptors_views.set_descriptor_field("smem", value, event.index,
                                                                                    event.text)))

    # ---- actions ----------------------------------------------------------------------------
    def action_major(self) -> None:
        self.set_options(major=cycle(backend.MAJORS, self.options["major"]), descriptor=None, kb=0, element=None)

    def action_swizzle(self, step: int) -> None:
        self.set_options(swizzle=cycle(backend.SWIZZLES, self.options["swizzle"], step), descriptor=None,
                         element=None)

    def action_dtype(self, step: int) -> None:
        self.set_options(dtype=cycle(backend.SMEM_DTYPES, self.options["dtype"], step), descriptor=None, kb=0,
                         element=None)

    def action_size(self) -> None:
        self.ask("rows,cols (rows = M or N, cols = K)", f"{self.options['rows']},{self.options['cols']}",
                 lambda text: self.set_options(**dict(zip(("rows", "cols"), parse_pair(text, "rows,cols"))),
                                               descriptor=None, kb=0, element=None))

    def action_kb(self, step: int) -> None:
        if self.view:
            self.set_options(kb=max(0, min(self.options["kb"] + step, len(self.view.slices) - 1)), descriptor=None)

    def action_edit(self) -> None:
        table = self.query_one("#smem-fields", FieldTable)
        self.app.set_focus(table.table)  # at once: the edit box takes the focus next
        table.action_edit()

    def action_reset(self) -> None:
        self.set_options(descriptor=None)

    def action_pattern(self) -> None:
        o = self.options

        def apply(text: str) -> None:
            parts = [p.strip() for p in text.split(";")]
            if len(parts) != 3:
                raise backend.BadInput("access: write ROW; K; BYTES, e.g. t; 0; 16")
            self.set_options(row_expr=parts[0], k_expr=parts[1], vec=backend.parse_int(parts[2], "bytes per lane"),
                             pattern="expr")

        self.ask("warp access: row expr; k expr; bytes per lane (t = lane)", f"{o['row_expr']}; {o['k_expr']}; "
                 f"{o['vec']}", apply)

    def action_pstore(self) -> None:
        self.set_options(pattern="expr" if self.options["pattern"] == "pstore" else "pstore")

    def action_find(self) -> None:
        def go(text: str) -> None:
            row, k = parse_pair(text, "row,k")
            self.set_options(element=(row, k))  # the header names its byte and bank
            if self.view is not None and self.options["element"] == (row, k):
                self.grid.move_to(*smem_views.smem_element_cell(self.view, row, k))

        self.ask("find element row,k", "0,0", go)

    def action_switch(self) -> None:
        table = self.query_one("#smem-fields", FieldTable).table
        (self.grid if table.has_focus else table).focus()
