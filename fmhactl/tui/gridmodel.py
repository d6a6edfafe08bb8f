"""What a grid widget shows, as plain data (no Textual import): built by `backend`, drawn by
`widgets.cellgrid`.

A grid is rows x columns of cells. Each cell has a short label, a colour key (a thread, a bank,
a reading warp), a `group` (cells with the same group are highlighted together: one thread's
cells, one warp's rows) and a one-line detail shown when the cursor is on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class GridCell:
    label: str
    key: int = 0
    group: int = -1
    detail: str = ""
    heat: float | None = None  # 0..1: drawn as a heat colour instead of the key colour
    flag: bool = False  # drawn in red: a problem at this cell (a mismatch, a conflict)


@dataclass
class GridModel:
    title: str
    rows: list[int]
    cols: list[int]
    cells: dict[tuple[int, int], GridCell]
    row_label: Callable[[int], str] = str
    col_label: Callable[[int], str] = str
    n_keys: int = 32
    corner: str = ""
    marked: set[tuple[int, int]] = field(default_factory=set)  # extra highlight (e.g. addressed elements)

    def cell(self, row: int, col: int) -> GridCell | None:
        return self.cells.get((row, col))

    def index_of(self, row: int, col: int) -> tuple[int, int] | None:
        """(row index, column index) of a (row, col) key, None when the grid does not show it."""
        try:
            return self.rows.index(row), self.cols.index(col)
        except ValueError:
            return None
