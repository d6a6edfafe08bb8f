"""What every command shares: consoles, the error guard and JSON output."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console

from fmhactl.errors import ExitCode, FmhactlError

err_console = Console(stderr=True, highlight=False)
out_console = Console(highlight=False)

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
            fail("interrupted", ExitCode.VERIFY_FAILED)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except Exception as exc:  # a bug: still one line unless asked for the traceback
            if os.environ.get("FMHACTL_DEBUG"):
                raise
            fail(f"internal error: {type(exc).__name__}: {exc} (FMHACTL_DEBUG=1 shows the traceback)",
                 ExitCode.VERIFY_FAILED)

    return wrapper  # type: ignore[return-value]


def fail(message: str, code: ExitCode = ExitCode.BAD_INPUT) -> None:
    print(f"fmhactl: error: {message}", file=sys.stderr)
    raise typer.Exit(int(code))


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")


EMULATION_HELP = ("SM100 variants emulated on Hopper: strict (default) completes tcgen05/TMA work only "
                  "through commit, mbarrier and wait, and reports broken synchronisation by rule; fast "
                  "completes everything at issue.")


def use_emulation(mode: str) -> None:
    """Make every build this command plans use the chosen emulator (fmhactl.runtime.modes reads it)."""
    from fmhactl.errors import BadInput
    from fmhactl.runtime.modes import EMULATION_ENV, EMULATION_MODES

    if mode not in EMULATION_MODES:
        raise BadInput(f"--emulation {mode!r}: choose strict or fast")
    os.environ[EMULATION_ENV] = mode
