"""Map: where each S value (TMEM, read by warps 0-3) lands as P (shared memory for SMEM-P, or TMEM
for the TS form). The two ends are linked: the cursor on one side shows its partner on the other,
and `t` highlights one thread's values on both."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from fmhactl.tui import backend
from fmhactl.tui.views import mapping as mapping_views
from fmhactl.tui.views import tmem as tmem_views
from fmhactl.tui.screens.base import Page, cycle, parse_pair
from fmhactl.tui.widgets.cellgrid import CellGrid


class MapPage(Page):
    NAME = "map"
    TITLE = "Map"
    HELP = "S in TMEM -> P in shared memory (SMEM-P) or TMEM (TS): both ends linked"

    BINDINGS = [
        Binding("s", "shape(1)", "ld shape"),
        Binding("plus,equals_sign", "num(1)", ".num+"),
        Binding("minus", "num(-1)", ".num-"),
        Binding("m", "major", "P major"),
        Binding("w", "swizzle(1)", "P swizzle"),
        Binding("T", "dest", "smem/tmem"),
        Binding("t", "thread", "thread"),
        Binding("f", "find", "find m,n"),
        Binding("tab", "switch", "other side"),
    ]

    DEFAULT_CSS = """
    #map-body { height: 1fr; }
    #map-src, #map-dst { width: 1fr; }
    """

    def __init__(self, options: dict | None = None) -> None:
        defaults = {"shape": "32x32b", "num": 8, "major": "K", "swizzle": "128B", "m": 128, "n": 128,
                    "dtype": "bf16", "to_tmem": False}
        super().__init__({**defaults, **(options or {})})
        self.view: mapping_views.MapView | None = None
        self.thread: int | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="controls", id="map-controls")
        with Horizontal(id="map-body"):
            yield CellGrid(id="map-src")
            yield CellGrid(id="map-dst")
        yield Static("", classes="info", id="map-info")
        yield from self.compose_message()

    def first_show(self) -> None:
        self.update_view()

    @property
    def src(self) -> CellGrid:
        return self.query_one("#map-src", CellGrid)

    @property
    def dst(self) -> CellGrid:
        return self.query_one("#map-dst", CellGrid)

    def refresh_view(self) -> None:
        o = self.options
        view = mapping_views.map_view(o["shape"], o["num"], o["major"], o["swizzle"], o["m"], o["n"], o["dtype"],
                                o["to_tmem"])
        self.view = view
        dest = "TMEM (TS)" if o["to_tmem"] else f"smem {o['major']}-major {o['swizzle']}"
        self.query_one("#map-controls", Static).update(
            f"read S with [b]{o['shape']}.x{o['num']}[/] (s, +/-)  P to [b]{dest}[/] (m, w, T)  "
            f"S {o['m']}x{o['n']}  t: thread  f: find  tab: other side")
        self.src.show(view.tmem_grid)
        self.dst.show(view.dest_grid)
        self.src.set_group(self.thread)
        self.dst.set_group(self.thread)
        problems = [f"{p.code}: {p.message}" for p in view.problems]
        self.say("; ".join(problems) if problems else view.header)
        self._info()

    def _info(self) -> None:
        if self.view is None:
            return
        key = self.src.cursor_key()
        cell = self.view.tmem_grid.cell(*key) if key else None
        lines = [("S side: " + cell.detail) if cell else "S side: -",
                 mapping_views.map_p_side(self.view, key) if key else "P side: -"]
        if self.thread is not None:
            lines.append(f"thread {self.thread} highlighted on both sides")
        lines += self.view.store_lines[:3]
        self.query_one("#map-info", Static).update(Text("\n".join(lines)))

    def on_cell_grid_cursor_moved(self, event: CellGrid.CursorMoved) -> None:
        """The focused side leads; the other side follows (its own events are then ignored)."""
        if self.view is None:
            return
        leader = self.dst if self.dst.has_focus else self.src
        if event.grid is not leader:
            return
        if leader is self.src:
            partner = self.view.tmem_to_dest.get((event.row, event.col))
            if partner:
                self.dst.move_to(*partner)
        else:
            partner = self.view.dest_to_tmem.get((event.row, event.col))
            if partner:
                self.src.move_to(*partner)
        self._info()

    def action_shape(self, step: int) -> None:
        self.set_options(shape=cycle(backend.TMEM_SHAPES, self.options["shape"], step))

    def action_num(self, step: int) -> None:
        self.set_options(num=cycle(backend.TMEM_NUMS, self.options["num"], step))

    def action_major(self) -> None:
        self.set_options(major=cycle(backend.MAJORS, self.options["major"]))

    def action_swizzle(self, step: int) -> None:
        self.set_options(swizzle=cycle(backend.SWIZZLES, self.options["swizzle"], step))

    def action_dest(self) -> None:
        self.set_options(to_tmem=not self.options["to_tmem"])

    def action_thread(self) -> None:
        grid = self.src if self.src.has_focus or not self.dst.has_focus else self.dst
        key = grid.cursor_key()
        cell = grid.model.cell(*key) if grid.model and key else None
        self.thread = None if cell is None or self.thread == cell.group else cell.group
        self.src.set_group(self.thread)
        self.dst.set_group(self.thread)
        self._info()

    def action_find(self) -> None:
        def go(text: str) -> None:
            m, n = parse_pair(text, "m,n")
            self.src.move_to(*tmem_views.s_cell(self.options["m"], m, n))

        self.ask("find S[m][n]: m,n", "0,0", go)

    def action_switch(self) -> None:
        (self.dst if self.src.has_focus else self.src).focus()

    def focus_main(self) -> None:
        self.src.focus()
