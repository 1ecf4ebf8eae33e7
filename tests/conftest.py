"""Shared test setup. Fixture plugins for Apptainer and Slurm live in tests/fixtures/.

A test that asks for a machine-wide resource (the Slurm cluster, an image) gets that resource's markers here,
from the fixtures it uses: `make check` (nox -s fast) leaves it out without a marker written by hand.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

pytest_plugins = [
    # Images: `smoke_image`, `run_in_image`, `user_dir` for tests that run the smoke SIF.
    "tests.fixtures.apptainer",
    # Job scripts: `slurm_cluster`, the three-node Slurm test cluster (tests/slurm/up.sh).
    "tests.fixtures.slurm",
]

#: The markers (pyproject.toml) a test gets from each fixture it uses, directly or through another fixture
MARKERS_OF_FIXTURE = {
    "slurm_cluster": ("slurm", "root"),  # slurmd in network namespaces, jobs submitted as another user
    "smoke_image": ("apptainer",),  # built as root; run as the test user where it is already built
    "run_in_image": ("apptainer",),
    "twin_image": ("apptainer", "root"),  # built with debootstrap and --fakeroot
}


def markers_for(fixtures: Iterable[str]) -> set[str]:
    return {marker for fixture in fixtures for marker in MARKERS_OF_FIXTURE.get(fixture, ())}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for marker in sorted(markers_for(getattr(item, "fixturenames", ()))):
            item.add_marker(marker)
