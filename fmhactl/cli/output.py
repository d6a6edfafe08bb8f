"""Printing for the layout and tma commands: rich on a terminal, plain lines and TSV in a pipe.

When stdout is not a terminal nothing is wrapped or coloured: text lines go out whole and tables
become tab-separated values (a `# title` line, a header row, one row per line).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from fmhactl.cli.common import err_console, out_console


def is_terminal() -> bool:
    return out_console.is_terminal


def _write(text: str) -> None:
    """stdout; a reader that went away (`| head`) raises BrokenPipeError, which the top-level
    group turns into a quiet exit 0 (fmhactl/cli/pipes.py)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def say(text: str, style: str | None = None) -> None:
    if is_terminal():
        out_console.print(text, markup=False, style=style, highlight=False)
    else:
        _write(text + "\n")


def note(text: str) -> None:
    """A side message (files written): stderr, so stdout stays data."""
    err_console.print(text, markup=False, highlight=False)


def problems(items: Iterable[Any]) -> None:
    for p in items:
        colour = {"error": "red", "warning": "yellow"}.get(p.severity, "cyan")
        if is_terminal():
            from rich.markup import escape

            out_console.print(f"[{colour}]{p.severity}[/] [bold]{p.code}[/]: {escape(p.message)}")
        else:
            _write(f"{p.severity}\t{p.code}\t{p.message}\n")


def table(t: Any, colours: dict[tuple[int, int], str] | None = None) -> None:
    """Print a render.TextTable; `colours` maps (row, column) of the body to a background colour."""
    if not is_terminal():
        _write(t.tsv())
        return
    from rich.table import Table
    from rich.text import Text

    rt = Table(title=t.title or None, header_style="bold", pad_edge=False, padding=(0, 1))
    for h in t.headers:
        rt.add_column(h, no_wrap=True)
    for i, row in enumerate(t.rows):
        cells = []
        for j, c in enumerate(row):
            bg = (colours or {}).get((i, j))
            cells.append(Text(c, style=f"black on {bg}") if bg and c else Text(c))
        rt.add_row(*cells)
    out_console.print(rt)


def grid(g: Any, max_rows: int = 64, max_cols: int = 24) -> None:
    """A views.Grid, clipped to what a screen can show (the JSON and SVG outputs have all of it)."""
    from fmhactl.services.layout_views import colour

    shown, hidden = g.clipped(max_rows, max_cols)
    t = shown.to_table()
    colours = {}
    for i, r in enumerate(shown.rows):
        for j, c in enumerate(shown.cols):
            cell = shown.cells.get((r, c))
            if cell is not None:
                colours[(i, j + 1)] = colour(cell.key, shown.n_keys)
    table(t, colours)
    if hidden:
        say(hidden if is_terminal() else f"# {hidden}", "dim")


def json_out(data: Any) -> None:
    import json

    _write(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


def records(text: str) -> None:
    _write(text)
