"""Accumulator: where tcgen05.mma leaves D[m][n] in TMEM, and which thread reads it back."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from fmhactl.tui import backend
from fmhactl.tui.views import tmem as tmem_views
from fmhactl.tui.screens.base import Page, cycle, parse_pair
from fmhactl.tui.widgets.cellgrid import CellGrid


class AccumPage(Page):
    NAME = "accum"
    TITLE = "Accumulator"
    HELP = "D of an M x N MMA laid out in TMEM lanes x columns"

    BINDINGS = [
        Binding("m", "m(1)", "M"),
        Binding("n", "n(8)", "N+8"),
        Binding("N", "n(-8)", "N-8"),
        Binding("e", "set_n", "N="),
        Binding("a", "cta_group", "cta_group"),
        Binding("c", "column", "d-tmem col"),
        Binding("t", "row", "row"),
        Binding("f", "find", "find m,n"),
    ]

    def __init__(self, options: dict | None = None) -> None:
        super().__init__({"m": 128, "n": 64, "cta_group": 1, "col": 0, **(options or {})})
        self.view: tmem_views.AccumView | None = None
        self.row: int | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="controls", id="accum-controls")
        yield Static("", classes="info", id="accum-lines")
        yield CellGrid(id="accum-grid")
        yield Static("", classes="info", id="accum-cell")
        yield from self.compose_message()

    def first_show(self) -> None:
        self.update_view()

    @property
    def grid(self) -> CellGrid:
        return self.query_one("#accum-grid", CellGrid)

    def refresh_view(self) -> None:
        o = self.options
        self.query_one("#accum-controls", Static).update(
            f"M [b]{o['m']}[/] (m)  N [b]{o['n']}[/] (n/N/e)  cta_group::[b]{o['cta_group']}[/] (a)  "
            f"d-tmem column [b]{o['col']}[/] (c)  t: highlight row  f: find D[m][n]")
        view = tmem_views.accum_view(o["m"], o["n"], o["cta_group"], o["col"])
        self.view = view
        self.query_one("#accum-lines", Static).update(Text("\n".join(view.lines)))
        self.grid.show(view.grid)
        self.grid.set_group(self.row)
        warn = [f"{p.code}: {p.message}" for p in view.problems]
        self.say("; ".join(warn) if warn else view.title)

    def on_cell_grid_cursor_moved(self, event: CellGrid.CursorMoved) -> None:
        cell = self.view.grid.cell(event.row, event.col) if self.view else None
        self.query_one("#accum-cell", Static).update(
            Text(cell.detail if cell else f"lane {event.row}, column {event.col}: holds no element of D"))

    def action_m(self, step: int) -> None:
        m = cycle((64, 128, 256), self.options["m"], step)
        self.set_options(m=m, cta_group=2 if m == 256 else 1)  # M=256 exists only as a CTA pair

    def action_n(self, step: int) -> None:
        self.set_options(n=self.options["n"] + step)

    def action_set_n(self) -> None:
        self.ask("N (8..256, steps of 8)", str(self.options["n"]),
                 lambda text: self.set_options(n=backend.parse_int(text, "N")))

    def action_cta_group(self) -> None:
        self.set_options(cta_group=3 - self.options["cta_group"])  # the service names what does not exist

    def action_column(self) -> None:
        self.ask("d-tmem column", str(self.options["col"]),
                 lambda text: self.set_options(col=backend.parse_int(text, "d-tmem column")))

    def action_row(self) -> None:
        key = self.grid.cursor_key()
        cell = self.view.grid.cell(*key) if self.view and key else None
        self.row = None if cell is None or self.row == cell.group else cell.group
        self.grid.set_group(self.row)

    def action_find(self) -> None:
        def go(text: str) -> None:
            m, n = parse_pair(text, "m,n")
            assert self.view is not None
            self.grid.move_to(*tmem_views.accum_cell(self.view, m, n))

        self.ask("find D[m][n]: m,n", "0,0", go)
