"""The test tiers. A test that asks for the Slurm cluster or an image carries that marker by itself
(tests/conftest.py), and `make check` (nox -s fast) leaves out every test so marked, and the slow ones."""

from __future__ import annotations

import pytest

from tests.conftest import markers_for


@pytest.mark.parametrize(("fixtures", "markers"), [
    (["tmp_path", "monkeypatch"], set()),
    (["slurm_cluster", "tmp_path"], {"slurm", "root"}),
    (["run_in_image", "user_dir"], {"apptainer"}),
    (["smoke_image"], {"apptainer"}),
    (["twin_image", "slurm_cluster"], {"apptainer", "root", "slurm"}),
])
def test_a_test_that_asks_for_the_cluster_or_an_image_carries_its_marker(fixtures, markers):
    assert markers_for(fixtures) == markers

