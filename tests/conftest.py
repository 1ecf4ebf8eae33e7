"""Shared test setup. Fixture plugins for Apptainer and Slurm live in tests/fixtures/.

A test that asks for a machine-wide resource (the Slurm cluster, an image) gets that resource's markers here,
from the fixtures it uses: `make check` (nox -s fast) leaves it out without a marker written by hand.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable

import pytest

pytest_plugins = [
    # Images: `smoke_image`, `run_in_image`, `user_dir` for tests that run the smoke SIF.
    "tests.fixtures.apptainer",
    # Job scripts: `slurm_cluster`, the three-node Slurm test cluster (tests/slurm/up.sh).
    "tests.fixtures.slurm",
    # The registry route: `oci_registry` (a registry on loopback), `keyring`, `tiny_sif`.
    "tests.fixtures.registry",
    # `extended_image`: the smoke image plus a user's wheel and Accelerate, built once for every test that needs it.
    "tests.fixtures.extended_image",
    # Another user (`ddpuser` through runuser): `shared_tmp` (a 1777 /tmp), `group_project` (a 2775 project directory
    # of the other user's group), where that user carries out the attacks a shared cluster allows.
    "tests.fixtures.other_user",
]

#: The markers (pyproject.toml) a test gets from each fixture it uses, directly or through another fixture
MARKERS_OF_FIXTURE = {
    "slurm_cluster": ("slurm", "root"),  # slurmd in network namespaces, jobs submitted as another user
    "smoke_image": ("apptainer",),  # built as root; run as the test user where it is already built
    "run_in_image": ("apptainer",),
    "extended_image": ("apptainer",),
    "twin_image": ("apptainer", "root"),  # built with debootstrap and --fakeroot
    "oci_registry": ("apptainer",),  # a registry on a loopback port, one a machine
    "keyring": ("apptainer",),
    "tiny_sif": ("apptainer",),
}


#: A test with any of these uses something the machine has once (the cluster, the build directory, root's
#: namespaces and mounts): `--machine-wide=only` runs these, one at a time; `--machine-wide=skip` the rest, which
#: pytest-xdist may spread over a worker a core (noxfile.py's `tests` session runs both)
MACHINE_WIDE = ("slurm", "apptainer", "root")


def markers_for(fixtures: Iterable[str]) -> set[str]:
    return {marker for fixture in fixtures for marker in MARKERS_OF_FIXTURE.get(fixture, ())}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--machine-wide", choices=("all", "only", "skip"), default="all",
                     help="run the tests marked slurm, apptainer or root: with the others (all), alone (only), "
                          "or not (skip)")


def is_machine_wide(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(marker) is not None for marker in MACHINE_WIDE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for marker in sorted(markers_for(getattr(item, "fixturenames", ()))):
            item.add_marker(marker)
    wanted = config.getoption("machine_wide")
    if wanted == "all":
        return
    kept: list[pytest.Item] = []
    left: list[pytest.Item] = []
    for item in items:
        (kept if is_machine_wide(item) == (wanted == "only") else left).append(item)
    config.hook.pytest_deselected(items=left)
    items[:] = kept


def pytest_configure(config: pytest.Config) -> None:
    """A pytest-xdist worker (a worker a core) trains in one thread, as torchrun gives each rank
    (OMP_NUM_THREADS=1): torch's default, a thread a core, put two spinning OpenMP teams on each core, and a tiny
    GPT's step in tests/train/test_resume.py took a second instead of milliseconds on 2 busy cores. The processes
    the tests start keep their own thread counts."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch  # here, not at the top: `pytest --collect-only` of one module need not load it

        torch.set_num_threads(1)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported (torch, hypothesis, every test module: some 300,000 objects) lives as long as the
    session: frozen out of the garbage collector's reach, the full collections during the tests (automatic ones,
    and the trainer's shutdown at the end of every in-process run) scan only what the tests create. On 2 cores
    that took the collector's share of the fast tier in tests/train, common, properties, diagnose and report from
    13 s to 5 s."""
    gc.collect()
    gc.freeze()


#: What the trainer and the check set in their own process's environment before compiling
#: (app/common/compile_cache.py): a test that runs them in this process must not hand its values to the next
#: test's subprocesses, whose user and temporary directory may differ.
_PROCESS_PLACES = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TMPDIR")


@pytest.fixture(autouse=True)
def _compile_places_restored() -> Iterable[None]:
    before = {name: os.environ.get(name) for name in _PROCESS_PLACES}
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
