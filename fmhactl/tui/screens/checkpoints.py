"""Checkpoints: open a dump written by `fmhactl dump ... --out FILE`: kernel vs expected side by side,
|error| as a heatmap over (lane, column) or (row, k), the first mismatch, and a jump to that cell
in the TMEM or SMEM screen with the layout applied."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from fmhactl.tui.views import mapping as mapping_views
from fmhactl.tui.views import smem as smem_views
from fmhactl.tui.screens.base import Page
from fmhactl.tui.widgets.cellgrid import CellGrid

WINDOW = 4  # values shown around the cursor, each side


class CheckpointsPage(Page):
    NAME = "checkpoints"
    TITLE = "Checkpoints"
    HELP = "a dump file: kernel vs expected, |error| heatmap, first mismatch, jump to the layout"

    BINDINGS = [
        Binding("o", "open", "open dump"),
        Binding("f", "first", "first mismatch"),
        Binding("j", "jump", "jump to layout"),
    ]

    DEFAULT_CSS = """
    #ckpt-body { height: 1fr; }
    #ckpt-values { width: 46; }
    """

    def __init__(self, options: dict | None = None) -> None:
        super().__init__({"dump": None, **(options or {})})
        self.view: mapping_views.DumpView | None = None

    def compose(self) -> ComposeResult:
        yield Static("no dump open: press o and give the file from `fmhactl dump ... --out FILE`", id="ckpt-lines")
        with Horizontal(id="ckpt-body"):
            yield CellGrid(id="ckpt-heat")
            yield Static("", id="ckpt-values")
        yield Static("", classes="info", id="ckpt-cell")
        yield from self.compose_message()

    def first_show(self) -> None:
        if self.options.get("dump"):
            self.update_view()

    @property
    def grid(self) -> CellGrid:
        return self.query_one("#ckpt-heat", CellGrid)

    def refresh_view(self) -> None:
        path = self.options.get("dump")
        if not path:
            return
        view = mapping_views.load_dump_view(path)
        self.view = view
        self.query_one("#ckpt-lines", Static).update(Text("\n".join(view.lines)))
        self.grid.show(view.heat, keep_cursor=False)
        if view.first:
            self.grid.move_to(*view.first)
        self.say(f"opened {Path(path).name}", "ok")

    def on_cell_grid_cursor_moved(self, event: CellGrid.CursorMoved) -> None:
        if self.view is None:
            return
        cell = self.view.heat.cell(event.row, event.col)
        self.query_one("#ckpt-cell", Static).update(Text(cell.detail if cell else ""))
        self.query_one("#ckpt-values", Static).update(self._window(event.row, event.col))

    def _window(self, row: int, col: int) -> Table:
        """Kernel | expected values around the cursor (no arithmetic: the numbers as stored)."""
        assert self.view is not None
        v = self.view
        cols = range(max(0, col - 1), min(len(v.got[0]), col + 2))
        table = Table(title=f"kernel | expected around ({row}, {col})", show_header=True, header_style="bold",
                      padding=(0, 1), pad_edge=False)
        table.add_column("")
        for c in cols:
            table.add_column(f"{c}", justify="right")
        for r in range(max(0, row - WINDOW), min(len(v.got), row + WINDOW + 1)):
            cells = []
            for c in cols:
                bad = v.heat.cell(r, c)
                style = "bold red" if bad is not None and bad.flag else ""
                if (r, c) == (row, col):
                    style += " reverse"
                cells.append(Text(f"{v.got[r][c]:.4g}|{v.want[r][c]:.4g}", style=style.strip()))
            table.add_row(str(r), *cells)
        return table

    def action_open(self) -> None:
        self.ask("dump file (JSON from `fmhactl dump ... --out FILE`)", str(self.options.get("dump") or ""),
                 lambda text: self.set_options(dump=text.strip()))

    def action_first(self) -> None:
        if self.view is None or self.view.first is None:
            self.say("no mismatch to go to" if self.view else "no dump open", "error")
            return
        self.grid.move_to(*self.view.first)

    def action_jump(self) -> None:
        """Open the cell under the cursor in the TMEM screen (S/P/O) or the SMEM screen (Q/K/V)."""
        key = self.grid.cursor_key()
        if self.view is None or key is None:
            self.say("no dump open", "error")
            return
        row, col = key
        app = self.app
        if self.view.space == "tmem":
            page = app.show_page("tmem")  # type: ignore[attr-defined]
            page.thread = None
            page.set_options(**mapping_views.tmem_jump_options(row, col))
            page.grid.move_to(row, col)
        else:
            page = app.show_page("smem")  # type: ignore[attr-defined]
            page.set_options(**mapping_views.smem_jump_options(self.view.smem_layout, len(self.view.got),
                                                         len(self.view.got[0]), row, col))
            page.guard(lambda: page.grid.move_to(*smem_views.smem_element_cell(page.view, row, col)))

    def focus_main(self) -> None:
        self.grid.focus()
