"""The top-level command group: usage errors (unknown option, bad value, missing argument) become
one `fmhactl: error:` line on stderr with exit 2, like every other bad input."""

from __future__ import annotations

import sys
from typing import Any

from typer.core import TyperGroup

try:  # typer >= 0.20 vendors click as typer._click; older typer uses click itself
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exceptions

from fmhactl.errors import ExitCode


class OneLineErrorGroup(TyperGroup):
    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click_exceptions.NoArgsIsHelpError as exc:
            exc.show()
            sys.exit(int(ExitCode.BAD_INPUT))
        except click_exceptions.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "fmhactl"
            message = " ".join(exc.format_message().split())
            print(f"fmhactl: error: {where}: {message}", file=sys.stderr)
            sys.exit(int(ExitCode.BAD_INPUT))
        except click_exceptions.ClickException as exc:
            print(f"fmhactl: error: {' '.join(exc.format_message().split())}", file=sys.stderr)
            sys.exit(exc.exit_code)
        except click_exceptions.Abort:
            print("fmhactl: error: aborted", file=sys.stderr)
            sys.exit(int(ExitCode.CHECK_FAILED))
        sys.exit(rv if isinstance(rv, int) else 0)
