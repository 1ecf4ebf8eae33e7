"""Fixtures for the app.check tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.check.check_helpers import DATA


@pytest.fixture
def tree(tmp_path):
    """A writable copy of a fake node tree from tests/data/check."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(DATA / name, target)
        return target

    return copy
