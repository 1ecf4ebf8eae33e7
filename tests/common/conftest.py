"""Setup for the tests of app/common: a test that tampers with a store in this process leaves the next one clean."""

from __future__ import annotations

import pytest

from app.common.signed_store import forget_tampering


@pytest.fixture(autouse=True)
def _no_tampering_carried_over():
    """The first tampering a process sees is remembered process-wide (it names the cause of what torch wraps):
    forgotten after each test, so a later test in the same worker does not take its hang for tampering."""
    yield
    forget_tampering()
