"""Exit codes and the project's error types; the CLI and TUI turn each into one line.

0 success; 1 a check ran and failed; 2 bad input; 3 the environment is wrong (no GPU, no ncu,
unwritable or corrupt home/store/cache, driver errors). docs/exit-codes.md is the user's copy.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    CHECK_FAILED = 1
    BAD_INPUT = 2
    ENVIRONMENT = 3
    # Older names, kept so callers need not change.
    VERIFY_FAILED = 1
    MISSING_ENV = 3


EXIT_CODE_HELP = ("Exit codes: 0 success; 1 a check ran and failed (verify FAIL/CRASH/HANG, status --check); "
                  "2 bad input (options, shapes, files, names); 3 environment (no GPU, no ncu, unwritable or "
                  "corrupt home/store/cache, driver errors).")


class FmhactlError(Exception):
    """An expected failure: shown as one line on stderr, never as a traceback."""

    def __init__(self, message: str, code: ExitCode = ExitCode.BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


class BadInput(FmhactlError):
    """The user asked for something invalid: an option value, a shape, a file, a name (exit 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.BAD_INPUT)


class MissingEnvironment(FmhactlError):
    """The machine cannot do it: no GPU, no ncu, an unusable home, store or cache (exit 3)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.ENVIRONMENT)


EnvironmentProblem = MissingEnvironment


class CheckFailed(FmhactlError):
    """A check ran and its verdict is negative (exit 1)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.CHECK_FAILED)


class Cancelled(FmhactlError):
    """The caller's cancel token was set; work stopped between two units (exit 1)."""

    def __init__(self, message: str = "cancelled") -> None:
        super().__init__(message, ExitCode.CHECK_FAILED)


_warning_sink = None


def set_warning_sink(sink) -> None:
    """Where warn() sends its lines (the TUI shows them in its log); None restores stderr."""
    global _warning_sink
    _warning_sink = sink


def warn(message: str) -> None:
    """One line for something fmhactl repaired on its own (e.g. a corrupt cache entry rebuilt)."""
    if _warning_sink is not None:
        _warning_sink(message)
        return
    import sys

    print(f"fmhactl: warning: {message}", file=sys.stderr)
