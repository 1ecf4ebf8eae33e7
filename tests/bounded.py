"""A bound on how long a call may take, for readers of files someone else may have made endless (a FIFO that
no one writes, /dev/zero): past the bound the call is interrupted with `Overran` and the test fails, instead
of the suite waiting forever."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


class Overran(BaseException):
    """Not an OSError nor an Exception (TimeoutError is an OSError): no handler in the code under test takes it."""


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Interrupt the body (main thread only; a blocking open or read too) after `seconds`."""

    def interrupt(signum, frame):  # type: ignore[no-untyped-def]
        raise Overran(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
