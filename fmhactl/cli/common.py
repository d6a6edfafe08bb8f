"""The CLI's one output stack: the error guard and error line, the JSON envelope, the table renderer
and plain lines, each fit for a terminal (rich) and for a pipe.

When stdout is not a terminal nothing is wrapped or coloured: text lines go out whole and tables
become tab-separated values (a header row, one row per line; a layout table starts with a `# title`
line). Writing to a reader that went away (`| head`) raises BrokenPipeError, which the top-level
group turns into a quiet exit 0 (fmhactl/cli/pipes.py).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import typer

from fmhactl.cli import pipes
from fmhactl.errors import ExitCode, FmhactlError


class _LazyConsole:
    """A rich Console made on first use, so `fmhactl --help` does not pay for importing rich."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._console = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False)
        return getattr(self._console, name)


err_console: Any = _LazyConsole(stderr=True)
out_console: Any = _LazyConsole(stderr=False)

F = TypeVar("F", bound=Callable[..., Any])


def guarded(fn: F) -> F:
    """Turn expected failures into one stderr line and a documented exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except FmhactlError as exc:
            fail(str(exc), exc.code)
        except KeyboardInterrupt:
            fail("interrupted", ExitCode.CHECK_FAILED)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except OSError as exc:
            if pipes.is_closed_pipe(exc):  # the reader left early: the group ends quietly
                raise
            _internal_error(exc)
        except typer.BadParameter as exc:
            fail(str(exc), ExitCode.BAD_INPUT)
        except MemoryError:
            fail("out of memory", ExitCode.ENVIRONMENT)
        except Exception as exc:  # a bug: still one line unless asked for the traceback
            _internal_error(exc)

    return wrapper  # type: ignore[return-value]


def _internal_error(exc: Exception) -> None:
    if os.environ.get("FMHACTL_DEBUG"):
        raise exc
    fail(f"internal error: {type(exc).__name__}: {_one_line(str(exc))} (FMHACTL_DEBUG=1 shows the traceback)",
         ExitCode.CHECK_FAILED)


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def path_arg(text: str) -> Path:
    """The parser of every path option and argument: the empty string (an unset shell variable in
    `--out "$DIR"`) is refused while it is still visible; made a Path it would be ".", the working
    directory, written into or read from in silence."""
    if not text:
        raise typer.BadParameter("an empty string is not a path")
    return Path(text)


def error_line(message: str) -> None:
    """The one error printer: `fmhactl: error: ...` on stderr, whitespace folded into one line."""
    print(f"fmhactl: error: {_one_line(message, 1000)}", file=sys.stderr)


def fail(message: str, code: ExitCode = ExitCode.BAD_INPUT) -> None:
    error_line(message)
    raise typer.Exit(int(code))


def _with_schema(data: Any) -> Any:
    from fmhactl.records import RECORD_SCHEMA

    if isinstance(data, dict):
        return {"schema_version": RECORD_SCHEMA, **data}
    if isinstance(data, list):
        return [_with_schema(d) if isinstance(d, dict) else d for d in data]
    return data


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def print_json(data: Any) -> None:
    """The one JSON envelope on stdout: every object (or every object of a list) carries
    schema_version (a document that names its own, such as a layout document, keeps it)."""
    _write(json.dumps(_with_schema(data), indent=2, sort_keys=True, default=str) + "\n")


def print_json_line(data: dict[str, Any]) -> None:
    """One compact JSON object per line, flushed as it lands (a streaming sweep), in the same envelope."""
    _write(json.dumps(_with_schema(data), sort_keys=True, default=str) + "\n")


def records(text: str) -> None:
    """A JSON document already rendered (fmhactl.present.render.json_document: one record per line)."""
    _write(text)


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def is_terminal() -> bool:
    """What rich thinks of stdout (FORCE_COLOR/TTY_COMPATIBLE honoured): decides the layout output."""
    return bool(out_console.is_terminal)


def _tsv_cell(text: str) -> str:
    return " ".join(text.replace("\t", " ").split())


def render_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]], *, terminal: bool,
                 right: Sequence[str] = (), style: Callable[[int, int, str], str] | None = None,
                 compact: bool = False, titled_tsv: bool = False) -> None:
    """The one table renderer. On a terminal a rich table (`style(row, column, cell)` -> a rich style;
    compact: never wrapped, no edge padding, as the layout grids need); in a pipe TSV, one row per line,
    with a `# title` line first when titled_tsv."""
    cells = [["" if c is None else str(c) for c in row] for row in rows]
    if not terminal:
        head = [f"# {title}"] if titled_tsv and title else []
        lines = head + ["\t".join(_tsv_cell(c) for c in columns)] + ["\t".join(_tsv_cell(c) for c in row)
                                                                    for row in cells]
        _write("\n".join(lines) + "\n")
        return
    from rich.table import Table
    from rich.text import Text

    if compact:
        t = Table(title=title or None, header_style="bold", pad_edge=False, padding=(0, 1))
    else:
        t = Table(title=title)
    for col in columns:
        if compact:
            t.add_column(col, no_wrap=True)
        else:
            t.add_column(col, justify="right" if col in right else "left", overflow="fold")
    for i, row in enumerate(cells):
        t.add_row(*(Text(c, style=(style(i, j, c) if style else "") or "") for j, c in enumerate(row)))
    out_console.print(t)


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]], *,
          right: Sequence[str] = (), styles: dict[int, Callable[[str], str]] | None = None) -> None:
    """A command's result table: rich on a terminal, plain TSV (header + one line per row, never
    wrapped) in a pipe. styles maps a column index to a cell -> rich style."""
    style = (lambda _i, j, c: styles.get(j, lambda _: "")(c)) if styles else None
    render_table(title, columns, rows, terminal=stdout_is_terminal(), right=right, style=style)


def text_table(t: Any, colours: dict[tuple[int, int], str] | None = None) -> None:
    """A fmhactl.present.render.TextTable (layout and tma commands); `colours` maps (row, column) of the
    body to a background colour."""
    def style(i: int, j: int, cell: str) -> str:
        bg = (colours or {}).get((i, j))
        return f"black on {bg}" if bg and cell else ""

    render_table(t.title, t.headers, t.rows, terminal=is_terminal(), style=style if colours else None,
                 compact=True, titled_tsv=True)


def grid(g: Any, max_rows: int = 64, max_cols: int = 24) -> None:
    """A fmhactl.present.views.Grid, clipped to what a screen can show (the JSON and SVG outputs have all)."""
    from fmhactl.present.render import colour

    shown, hidden = g.clipped(max_rows, max_cols)
    colours = {}
    for i, r in enumerate(shown.rows):
        for j, c in enumerate(shown.cols):
            cell = shown.cells.get((r, c))
            if cell is not None:
                colours[(i, j + 1)] = colour(cell.key, shown.n_keys)
    text_table(shown.to_table(), colours)
    if hidden:
        say(hidden if is_terminal() else f"# {hidden}", "dim")


def say(text: str, style: str | None = None) -> None:
    """One line of a result on stdout (layout and tma commands)."""
    if is_terminal():
        out_console.print(text, markup=False, style=style, highlight=False)
    else:
        _write(text + "\n")


def problems(items: Iterable[Any]) -> None:
    """Validator findings (fmhactl.layout.common.Problem): coloured on a terminal, TSV in a pipe."""
    for p in items:
        if is_terminal():
            from rich.markup import escape

            colour = {"error": "red", "warning": "yellow"}.get(p.severity, "cyan")
            out_console.print(f"[{colour}]{p.severity}[/] [bold]{p.code}[/]: {escape(p.message)}")
        else:
            _write(f"{p.severity}\t{p.code}\t{p.message}\n")


def note(message: str) -> None:
    """One informational line on stderr (never mixed into stdout tables or JSON)."""
    err_console.print(message, markup=False, highlight=False, soft_wrap=True)


EMULATION_HELP = ("SM100 variants emulated on Hopper: strict (default) completes tcgen05/TMA work only "
                  "through commit, mbarrier and wait, and reports broken synchronisation by rule; fast "
                  "completes everything at issue.")


def use_emulation(mode: str) -> None:
    """Make every build this command plans use the chosen emulator (fmhactl.runtime.modes reads it)."""
    from fmhactl.errors import BadInput
    from fmhactl.services.modes import EMULATION_ENV, EMULATION_MODES
    from fmhactl.schemas import shown

    if mode not in EMULATION_MODES:
        raise BadInput(f"--emulation {shown(mode)}: choose strict or fast")
    os.environ[EMULATION_ENV] = mode
