"""The one broken-pipe policy of every command: a reader that goes away early (`| head`, `| less`
quit, `| grep -m1`) ends the command quietly with exit 0, as git and rg do.

Python ignores SIGPIPE, so a closed reader surfaces as BrokenPipeError on a write or on the flush at
interpreter exit. Both end here: stdout is pointed at /dev/null (so the final flush cannot raise
again, as the Python docs on SIGPIPE advise) and the process exits 0.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import NoReturn


def is_closed_pipe(exc: BaseException) -> bool:
    """True for the error a write raises when the reading end of stdout was closed."""
    return isinstance(exc, BrokenPipeError) or (isinstance(exc, OSError) and exc.errno == errno.EPIPE)


def silence_stdout() -> None:
    """Point stdout's file descriptor at /dev/null so nothing buffered can fail to flush later."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (a test capture)
        pass


def end_quietly() -> NoReturn:
    """The reader went away: exit 0 without a message."""
    silence_stdout()
    raise SystemExit(0)


def exit_with(code: int) -> NoReturn:
    """End the command with `code` after flushing stdout; a reader that left before the last
    flush is not an error and does not change the code."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        if not is_closed_pipe(exc):
            raise
        silence_stdout()
    raise SystemExit(code)
