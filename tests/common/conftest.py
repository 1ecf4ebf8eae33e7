"""Setup for the tests of app/common: a test that tampers with a store in this process leaves the next one clean."""

from __future__ import annotations

import threading

import pytest

from app.common.signed_store import forget_tampering

#: What a watchdog's thread is called (app/common/watchdog.py)
WATCHDOG_THREAD = "app watchdog"


@pytest.fixture(autouse=True)
def _no_tampering_carried_over():
    """The first tampering a process sees is remembered process-wide (it names the cause of what torch wraps):
    forgotten after each test, so a later test in the same worker does not take its hang for tampering. A stopped
    watchdog's thread may still be writing its last beat when its test ends, to a store the test's end shuts: that
    write failed as "the connection failed" during the next test and was taken for that test's tampering. So the
    threads end first, then the tampering is forgotten."""
    yield
    for thread in threading.enumerate():
        if thread.name == WATCHDOG_THREAD and thread is not threading.current_thread():
            thread.join(timeout=10)
    forget_tampering()
