"""A rows x columns grid of labelled, coloured cells with a cursor and a highlighted group.

Used for TMEM (lanes x columns: a thread's cells highlighted together), shared-memory tiles
(128-byte lines x 16-byte chunks, coloured by bank group), maps and error heatmaps. The widget
draws only the cells that fit, keeps its own viewport (row/column labels stay put) and follows
the cursor; it posts `CursorMoved` whenever the cursor lands on a new cell.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from fmhactl.tui import backend
from fmhactl.tui.gridmodel import GridModel

CURSOR = Style.parse("bold black on #ffd700")
GROUP = Style.parse("bold white on #1f4fbf")
MARKED = Style.parse("bold underline")
FLAG = Style.parse("bold #ff2020")
FLAG_ON_HEAT = Style.parse("bold white on #c00000")  # a mismatch stands out on any heat colour
EMPTY = Style.parse("#5f5f5f")
HEADER = Style.parse("bold")


def heat_colour(x: float) -> str:
    """0 -> white, 0.5 -> yellow, 1 -> red (a readable |error| scale)."""
    x = min(1.0, max(0.0, x))
    if x < 0.5:
        return f"#ffff{int(255 * (1 - 2 * x)):02x}"
    return f"#ff{int(255 * (2 - 2 * x)):02x}00"


class CellGrid(Widget, can_focus=True):
    """A keyboard-driven grid over a `GridModel`."""

    BINDINGS = [
        Binding("up", "move(-1, 0)", "up", show=False),
        Binding("down", "move(1, 0)", "down", show=False),
        Binding("left", "move(0, -1)", "left", show=False),
        Binding("right", "move(0, 1)", "right", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "edge(0)", "first column", show=False),
        Binding("end", "edge(1)", "last column", show=False),
    ]

    DEFAULT_CSS = """
    CellGrid { height: 1fr; width: 1fr; min-height: 6; border: round $primary-darken-2; }
    CellGrid:focus { border: round $accent; }
    """

    class CursorMoved(Message):
        def __init__(self, grid: CellGrid, row: int, col: int) -> None:
            super().__init__()
            self.grid = grid
            self.row = row
            self.col = col

        @property
        def control(self) -> CellGrid:
            return self.grid

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.model: GridModel | None = None
        self.cursor = (0, 0)  # (row index, column index)
        self.top = 0
        self.left = 0
        self.group: int | None = None

    # ---- data -------------------------------------------------------------------------------
    def show(self, model: GridModel, keep_cursor: bool = True) -> None:
        old = self.cursor_key() if keep_cursor else None
        self.model = model
        self.border_title = model.title
        self.cursor = (0, 0)
        if old is not None and model.index_of(*old) is not None:
            self.cursor = model.index_of(*old)  # type: ignore[assignment]
        self._clamp()
        self.refresh()
        self._moved()

    def cursor_key(self) -> tuple[int, int] | None:
        if not self.model or not self.model.rows or not self.model.cols:
            return None
        return self.model.rows[self.cursor[0]], self.model.cols[self.cursor[1]]

    def move_to(self, row: int, col: int) -> bool:
        """Put the cursor on the cell (row, col) in model coordinates; False when not shown."""
        if self.model is None:
            return False
        index = self.model.index_of(row, col)
        if index is None:
            return False
        self.cursor = index
        self._clamp()
        self.refresh()
        self._moved()
        return True

    def set_group(self, group: int | None) -> None:
        self.group = group
        self.refresh()

    # ---- geometry ---------------------------------------------------------------------------
    @property
    def cell_width(self) -> int:
        if not self.model:
            return 3
        longest = max((len(c.label) for c in self.model.cells.values()), default=1)
        header = max((len(self.model.col_label(c)) for c in self.model.cols[:1024]), default=1)
        return max(3, min(12, max(longest, header) + 1))

    @property
    def label_width(self) -> int:
        if not self.model:
            return 4
        return max([len(self.model.corner)] + [len(self.model.row_label(r)) for r in self.model.rows[:512]]) + 1

    def _visible(self) -> tuple[int, int]:
        rows = max(1, self.content_size.height - 1)
        cols = max(1, (self.content_size.width - self.label_width) // self.cell_width)
        return rows, cols

    def _clamp(self) -> None:
        if not self.model:
            return
        r, c = self.cursor
        r = max(0, min(r, len(self.model.rows) - 1))
        c = max(0, min(c, len(self.model.cols) - 1))
        self.cursor = (r, c)
        vr, vc = self._visible()
        if r < self.top:
            self.top = r
        elif r >= self.top + vr:
            self.top = r - vr + 1
        if c < self.left:
            self.left = c
        elif c >= self.left + vc:
            self.left = c - vc + 1
        self.top = max(0, min(self.top, max(0, len(self.model.rows) - vr)))
        self.left = max(0, min(self.left, max(0, len(self.model.cols) - vc)))

    def on_resize(self, event: events.Resize) -> None:
        self._clamp()

    # ---- actions ----------------------------------------------------------------------------
    def _moved(self) -> None:
        key = self.cursor_key()
        if key is not None:
            self.post_message(self.CursorMoved(self, *key))

    def action_move(self, dr: int, dc: int) -> None:
        self.cursor = (self.cursor[0] + dr, self.cursor[1] + dc)
        self._clamp()
        self.refresh()
        self._moved()

    def action_page(self, direction: int) -> None:
        self.action_move(direction * self._visible()[0], 0)

    def action_edge(self, end: int) -> None:
        if self.model:
            self.cursor = (self.cursor[0], len(self.model.cols) - 1 if end else 0)
            self._clamp()
            self.refresh()
            self._moved()

    def on_click(self, event: events.Click) -> None:
        if not self.model:
            return
        x, y = event.x - self.gutter.left, event.y - self.gutter.top
        if y < 1 or x < self.label_width:
            return
        self.cursor = (self.top + y - 1, self.left + (x - self.label_width) // self.cell_width)
        self._clamp()
        self.refresh()
        self._moved()

    # ---- drawing ----------------------------------------------------------------------------
    def render(self) -> Text:
        m = self.model
        if m is None or not m.rows or not m.cols:
            return Text("(nothing to show)", style=EMPTY)
        self._clamp()
        vr, vc = self._visible()
        cw, lw = self.cell_width, self.label_width
        rows = m.rows[self.top:self.top + vr]
        cols = m.cols[self.left:self.left + vc]
        out = Text(no_wrap=True, overflow="crop")
        out.append(m.corner[:lw - 1].ljust(lw), HEADER)
        for c in cols:
            out.append(m.col_label(c)[:cw - 1].center(cw), HEADER)
        cur = self.cursor_key()
        for r in rows:
            out.append("\n")
            out.append(m.row_label(r)[:lw - 1].rjust(lw - 1) + " ", HEADER)
            for c in cols:
                cell = m.cells.get((r, c))
                if (r, c) == cur:
                    style = CURSOR
                elif cell is None:
                    out.append("·".center(cw), EMPTY)
                    continue
                elif self.group is not None and cell.group == self.group and cell.group >= 0:
                    style = GROUP
                elif cell.heat is not None:
                    style = Style.parse(f"black on {heat_colour(cell.heat)}")
                else:
                    style = Style.parse(f"black on {backend.key_colour(cell.key, m.n_keys)}")
                if cell is not None and cell.flag and (r, c) != cur:
                    style = style + (FLAG_ON_HEAT if cell.heat is not None else FLAG)
                if (r, c) in m.marked and (r, c) != cur:
                    style = style + MARKED
                label = cell.label if cell is not None else "·"
                out.append(label[:cw - 1].center(cw - 1) + " ", style)
        return out
