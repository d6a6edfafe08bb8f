"""The top-level command group: usage errors (unknown option, bad value, missing argument) become
one `fmhactl: error:` line on stderr with exit 2, like every other bad input; a reader that closes
stdout early ends every command quietly with exit 0 (fmhactl/cli/pipes.py)."""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 vendors click as typer._click; older typer uses click itself
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exceptions

from fmhactl.cli import pipes
from fmhactl.cli.common import error_line
from fmhactl.errors import ExitCode

# typer.Abort is the class the installed typer raises whether it vendors click (typer.exceptions.Abort,
# absent from typer._click.exceptions) or re-exports click's own (click.exceptions.Abort).
_ABORT: type[BaseException] = getattr(click_exceptions, "Abort", typer.Abort)


class OneLineErrorGroup(TyperGroup):
    def invoke(self, ctx: Any) -> Any:
        # Caught here, inside typer's own handler, which would otherwise turn EPIPE into exit 1.
        try:
            return super().invoke(ctx)
        except OSError as exc:
            if not pipes.is_closed_pipe(exc):
                raise
            pipes.end_quietly()

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click_exceptions.NoArgsIsHelpError as exc:
            exc.show()
            pipes.exit_with(int(ExitCode.BAD_INPUT))
        except click_exceptions.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "fmhactl"
            message = " ".join(exc.format_message().split())
            error_line(f"{where}: {message}")
            sys.exit(int(ExitCode.BAD_INPUT))
        except click_exceptions.ClickException as exc:
            error_line(exc.format_message())
            sys.exit(exc.exit_code)
        except _ABORT:
            error_line("aborted")
            sys.exit(int(ExitCode.CHECK_FAILED))
        except OSError as exc:  # a closed pipe while printing help or a usage line
            if not pipes.is_closed_pipe(exc):
                raise
            pipes.end_quietly()
        except SystemExit as exc:  # a command that called sys.exit itself
            pipes.exit_with(exc.code if isinstance(exc.code, int) else int(ExitCode.CHECK_FAILED))
        pipes.exit_with(rv if isinstance(rv, int) else 0)
