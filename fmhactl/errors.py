"""Exit codes and the one exception type the CLI turns into a one-line message."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    VERIFY_FAILED = 1
    BAD_INPUT = 2
    MISSING_ENV = 3


class FmhactlError(Exception):
    """An expected failure: shown as one line on stderr, never as a traceback."""

    def __init__(self, message: str, code: ExitCode = ExitCode.BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


class BadInput(FmhactlError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.BAD_INPUT)


class MissingEnvironment(FmhactlError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.MISSING_ENV)
