"""User-facing errors: one line saying what is wrong and how to fix it, and an exit code.

Entry points catch `UserFacingError`, print `error: <message>` to stderr and exit with `.exit_code`;
no traceback, because the traceback is about our code while the fix is in the user's input.
"""

import os
import sys
from functools import wraps
from typing import Callable, NoReturn, TypeVar

from app.host.common import exitcodes


class UserFacingError(Exception):
    """An error whose message is the whole story: cause and remedy, on one line."""

    exit_code = exitcodes.USAGE


class UsageError(UserFacingError):
    """Bad configuration, command line, environment variable or file."""


class RendezvousError(UserFacingError):
    """The ranks could not meet (rendezvous or process-group init failed or timed out)."""

    exit_code = exitcodes.RENDEZVOUS


class CollectiveTimeout(UserFacingError):
    """A collective did not complete within its timeout (a hung or vanished rank, or the network)."""

    exit_code = exitcodes.TIMEOUT


class StorageError(UserFacingError):
    """A file could not be written: its file system is full, over quota or failing. Not the user's input, and
    retrying as it is fails again: free space or write elsewhere, then run again."""

    exit_code = exitcodes.STORAGE


F = TypeVar("F", bound=Callable[..., int])


def exits_cleanly(main: F) -> F:
    """Turn `UserFacingError` into `error: ...` on stderr and its exit code; let bugs show tracebacks."""

    @wraps(main)
    def wrapper(*args, **kwargs) -> int:
        try:
            return main(*args, **kwargs)
        except UserFacingError as err:
            print(f"error: {err}", file=sys.stderr, flush=True)
            return err.exit_code
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr, flush=True)
            return exitcodes.INTERRUPTED

    return wrapper  # type: ignore[return-value]


#: What a shell reports for a program that its reader stopped reading (128 + SIGPIPE), as `grep ... | head` does
CLOSED_PIPE = 128 + 13


def exit_with(main: Callable[[], int]) -> NoReturn:
    """sys.exit(main()), quietly when whatever read stdout stopped reading (`python3 -m app.diagnose --list | head`):
    Python raises BrokenPipeError there, and again as it flushes at exit. The Python documentation's recipe
    (signal module, "Note on SIGPIPE"): point stdout at /dev/null and exit."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = CLOSED_PIPE
    sys.exit(code)
