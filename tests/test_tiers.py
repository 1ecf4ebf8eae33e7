"""The test tiers. A test that asks for the Slurm cluster or an image carries that marker by itself
(tests/conftest.py), and `make check` (nox -s fast) leaves out every test so marked, and the slow ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import markers_for

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("fixtures", "markers"), [
    (["tmp_path", "monkeypatch"], set()),
    (["slurm_cluster", "tmp_path"], {"slurm", "root"}),
    (["run_in_image", "user_dir"], {"apptainer"}),
    (["smoke_image"], {"apptainer"}),
    (["oci_registry", "keyring", "tiny_sif"], {"apptainer"}),  # a registry on loopback: one a machine
    (["twin_image", "slurm_cluster"], {"apptainer", "root", "slurm"}),
])
def test_a_test_that_asks_for_the_cluster_or_an_image_carries_its_marker(fixtures, markers):
    assert markers_for(fixtures) == markers



def _collected(*args: str) -> set[str]:
    # Without the property suite's plugin: these two modules use none of it, and loading it is most of a collection.
    # Not as a worker of this run (pytest-xdist's variables): a worker's pytest_configure imports torch, 4 of the
    # 5 CPU seconds each of these collections took.
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_XDIST_")}
    result = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                             "-p", "no:hypothesispytest", *args,
                             "tests/test_tiers.py", "tests/jobscripts/test_jobscripts_slurm.py"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return {line for line in result.stdout.splitlines() if "::" in line}


def test_the_suite_splits_into_the_machine_wide_tests_and_the_others_with_none_lost():
    """`make test` runs the tests that use the cluster, an image or root alone, and the others a worker a core."""
    everything, alone, spread = _collected(), _collected("--machine-wide=only"), _collected("--machine-wide=skip")
    assert alone and spread and not alone & spread and alone | spread == everything
    assert all("test_jobscripts_slurm.py" in test for test in alone)
    assert all("test_tiers.py" in test for test in spread)
