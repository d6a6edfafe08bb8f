"""TMEM: which thread and register holds each cell of one warp's tcgen05.ld/st (and the lane-quarter
rule), or, in plan mode, a variant's TMEM column plan."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from fmhactl.tui import backend
from fmhactl.tui.views import tmem as tmem_views
from fmhactl.tui.screens.base import Page, cycle, parse_pair
from fmhactl.tui.widgets.cellgrid import CellGrid

PLAN_COLOURS = {"S": "#87afff", "P": "#ffaf5f", "O": "#87d787", "-": "#d0d0d0"}


def plan_text(lines: tuple[str, ...], ruler: str) -> Text:
    """The lines of `fmhactl layout plan` as they are, the column ruler coloured by region."""
    out = Text()
    for i, line in enumerate(lines):
        if ruler and line == f"|{ruler}|":
            out.append("|")
            for ch in ruler:
                colour = PLAN_COLOURS.get(ch.upper())
                out.append(ch, style=f"bold black on {colour}" if colour else "")
            out.append("|")
        else:
            out.append(line, style="bold" if i == 0 or line.startswith("UNSUPPORTED") else "")
        out.append("\n" if i < len(lines) - 1 else "")
    return out


class TmemPage(Page):
    NAME = "tmem"
    TITLE = "TMEM"
    HELP = "which thread/register holds each TMEM cell of a tcgen05.ld/st; the column plan"

    # The footer shows the keys an 80-column terminal has room for (p among them); the controls line
    # above the grid names every key.
    BINDINGS = [
        Binding("s", "shape(1)", "shape"),
        Binding("plus,equals_sign", "num(1)", ".num+"),
        Binding("minus", "num(-1)", ".num-", show=False),
        Binding("w", "warp(1)", "warp+"),
        Binding("W", "warp(-1)", "warp-", show=False),
        Binding("g", "goto", "goto"),
        Binding("p", "plan", "plan"),
        Binding("t", "thread", "thread"),
        Binding("c", "column", "col base", show=False),
        Binding("l", "lanes", "lane base", show=False),
        Binding("k", "pack", "pack", show=False),
        Binding("v", "variant(1)", "variant"),
        Binding("d", "head_dim", "head dim"),
    ]

    PLAN_ACTIONS = frozenset({"plan", "variant", "head_dim"})

    DEFAULT_CSS = """
    #tmem-plan { height: 1fr; overflow-y: auto; }
    """

    def __init__(self, options: dict | None = None) -> None:
        defaults = {"shape": "32x32b", "num": 1, "warp": 0, "lane_base": None, "col_base": 0, "pack": False,
                    "plan": False, "variant": "sm100_tma_s2_tmem", "head_dim": 128, "cell": None}
        super().__init__({**defaults, **(options or {})})
        self.view: tmem_views.TmemView | None = None
        self.thread: int | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="controls", id="tmem-controls")
        yield CellGrid(id="tmem-grid")
        yield Static("", id="tmem-plan")
        yield Static("", classes="info", id="tmem-info")
        yield from self.compose_message()

    def first_show(self) -> None:
        self.update_view()
        cell = self.options.pop("cell", None)
        if cell is not None and not self.grid.move_to(*cell):
            self.say(f"cell lane {cell[0]}, column {cell[1]} is not in this view (columns "
                     f"{self.view.grid.cols[0]}..{self.view.grid.cols[-1]})" if self.view else "", "error")

    @property
    def grid(self) -> CellGrid:
        return self.query_one("#tmem-grid", CellGrid)

    def refresh_view(self) -> None:
        o = self.options
        plan_mode = bool(o["plan"])
        self.grid.display = not plan_mode
        self.query_one("#tmem-info").display = not plan_mode  # no stale ld/st cell report beside a plan
        self.query_one("#tmem-plan").display = plan_mode
        self.refresh_bindings()  # the footer shows the keys of the mode on screen
        if plan_mode:
            self._show_plan()
            return
        view = tmem_views.tmem_view(o["shape"], o["num"], o["warp"], o["lane_base"], o["col_base"], o["pack"])
        self.view = view
        lane_base = view.taddr >> 16
        self.query_one("#tmem-controls", Static).update(
            f"shape [b]{o['shape']}[/] (s)  .num [b]x{o['num']}[/] (+/-)  warp [b]{o['warp']}[/] (w/W)  "
            f"lane base [b]{lane_base}[/] (l)  col base [b]{o['col_base']}[/] (c)  pack [b]{'on' if o['pack'] else 'off'}"
            f"[/] (k)  t: thread  g: goto L,C  p: plan")
        self.grid.show(view.grid)
        key = self.grid.cursor_key()
        if key is None or view.grid.cell(*key) is None:  # the cursor follows the access when it moves away
            self.grid.move_to(*view.first_cell)
        self.grid.set_group(self.thread)
        problems = "; ".join(f"{p.code}: {p.message}" for p in view.problems)
        if problems:
            self.say(problems, "error")
        else:
            self.say(view.summary)
        self._show_cell()

    def _show_plan(self) -> None:
        o = self.options
        report = tmem_views.tmem_plan(o["variant"], o["head_dim"])
        self.query_one("#tmem-controls", Static).update(
            f"plan of [b]{o['variant']}[/] (v) at head dim [b]{o['head_dim']}[/] (d)   p: back to ld/st")
        self.query_one("#tmem-plan", Static).update(plan_text(report.lines, report.ruler))
        self.say(report.verdict, "ok" if report.supported else "error")

    def _show_cell(self) -> None:
        key = self.grid.cursor_key()
        if self.view is None or key is None:
            return
        lines = tmem_views.tmem_cell_report(self.view, *key)
        if self.thread is not None:
            cells = tmem_views.thread_cells(self.view, self.thread)
            lines.append(f"thread {32 * self.view.warp + self.thread} (t{self.thread}) holds {len(cells)} cell(s), "
                         "highlighted in blue")
        info = Text()
        for line in lines:
            info.append(line + "\n", style="bold red" if line.startswith("VIOLATED") else "")
        self.query_one("#tmem-info", Static).update(info)

    def on_cell_grid_cursor_moved(self, event: CellGrid.CursorMoved) -> None:
        self._show_cell()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Plan mode and ld/st mode each show (and take) only their own keys."""
        if not super().check_action(action, parameters):
            return False
        own = {name for b in self.BINDINGS if isinstance(b, Binding) for name in [b.action.split("(")[0]]}
        if action not in own or action == "plan":
            return True
        return (action in self.PLAN_ACTIONS) == bool(self.options["plan"])

    # ---- actions ----------------------------------------------------------------------------
    def action_shape(self, step: int) -> None:
        self.set_options(shape=cycle(backend.TMEM_SHAPES, self.options["shape"], step))

    def action_num(self, step: int) -> None:
        self.set_options(num=cycle(backend.TMEM_NUMS, self.options["num"], step))

    def action_warp(self, step: int) -> None:
        self.set_options(warp=(self.options["warp"] + step) % 8, lane_base=None)

    def action_pack(self) -> None:
        self.set_options(pack=not self.options["pack"])

    def action_plan(self) -> None:
        self.set_options(plan=not self.options["plan"])
        self.focus_main()

    def action_variant(self, step: int) -> None:
        self.guard(lambda: self.set_options(variant=cycle(tmem_views.sm100_variants(), self.options["variant"], step)))

    def action_head_dim(self) -> None:
        self.ask("head dim", str(self.options["head_dim"]),
                 lambda text: self.set_options(head_dim=backend.parse_int(text, "head dim")))

    def action_column(self) -> None:
        self.ask("column base (0..511)", str(self.options["col_base"]),
                 lambda text: self.set_options(col_base=backend.parse_int(text, "column base")))

    def action_lanes(self) -> None:
        self.ask("lane base (0..127; the lane-quarter rule applies)", str(self.options["lane_base"] or ""),
                 lambda text: self.set_options(lane_base=backend.parse_int(text, "lane base") if text.strip()
                                                  else None))

    def action_thread(self) -> None:
        key = self.grid.cursor_key()
        cell = self.view.grid.cell(*key) if self.view and key else None
        if cell is None:
            self.thread = None
            self.say("no thread holds this cell: highlight cleared")
        else:
            self.thread = None if self.thread == cell.group else cell.group
        self.grid.set_group(self.thread)
        self._show_cell()

    def action_goto(self) -> None:
        key = self.grid.cursor_key() or (0, 0)

        def go(text: str) -> None:
            lane, col = parse_pair(text, "lane,column")
            if not self.grid.move_to(lane, col):
                raise backend.BadInput(f"lane {lane}, column {col} is not in this view (lanes 0..127, columns "
                                       f"{self.view.grid.cols[0]}..{self.view.grid.cols[-1]})")

        self.ask("go to lane,column", f"{key[0]},{key[1]}", go)
