"""What every command shares: the error guard, JSON output and tables fit for terminals and pipes."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
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


def fail(message: str, code: ExitCode = ExitCode.BAD_INPUT) -> None:
    print(f"fmhactl: error: {_one_line(message, 1000)}", file=sys.stderr)
    raise typer.Exit(int(code))


def _with_schema(data: Any) -> Any:
    from fmhactl.records import RECORD_SCHEMA

    if isinstance(data, dict):
        return {"schema_version": RECORD_SCHEMA, **data}
    if isinstance(data, list):
        return [_with_schema(d) if isinstance(d, dict) else d for d in data]
    return data


def print_json(data: Any) -> None:
    """JSON on stdout; every object (or every object of a list) carries schema_version."""
    sys.stdout.write(json.dumps(_with_schema(data), indent=2, sort_keys=True, default=str) + "\n")


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]], *,
          right: Sequence[str] = (), styles: dict[int, Callable[[str], str]] | None = None) -> None:
    """A table on stdout: a rich table on a terminal; plain TSV (header + one line per row, never
    wrapped) when stdout is a pipe or a file. styles maps a column index to a cell -> rich style."""
    cells = [["" if c is None else str(c) for c in row] for row in rows]
    if not stdout_is_terminal():
        def clean(text: str) -> str:
            return " ".join(text.replace("\t", " ").split())

        sys.stdout.write("\t".join(columns) + "\n")
        for row in cells:
            sys.stdout.write("\t".join(clean(c) for c in row) + "\n")
        return
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=title)
    for col in columns:
        t.add_column(col, justify="right" if col in right else "left", overflow="fold")
    for row in cells:
        shown = []
        for i, c in enumerate(row):
            style = styles.get(i, lambda _: "")(c) if styles else ""
            shown.append(f"[{style}]{escape(c)}[/{style}]" if style else escape(c))
        t.add_row(*shown)
    out_console.print(t)


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
