"""The Slurm test cluster's driver (bench/slurm_cluster.py) on a machine that cannot run it: it says what is missing
before it starts anything, and the tests' fixture turns that into a skip with the reason (a failure under CI)."""

from __future__ import annotations

import pytest

from bench import slurm_cluster
from bench.slurm_cluster import ClusterUnavailable, running_cluster
from tests.fixtures import slurm


def test_the_cluster_names_what_it_lacks_before_it_starts_anything(monkeypatch, tmp_path):
    monkeypatch.setattr(slurm_cluster.os, "geteuid", lambda: 1000)
    with pytest.raises(ClusterUnavailable, match="needs root"):
        next(running_cluster(tmp_path))
    assert not (tmp_path / "build").exists()  # no job environment built


def _unavailable(repo, release):
    raise ClusterUnavailable("slurmd is not installed (tests/provision/provision-slurm.sh installs it)")
    yield  # a generator, as running_cluster is


@pytest.mark.parametrize(("ci", "outcome"), [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_a_machine_without_the_cluster_skips_its_tests_and_ci_fails_them(monkeypatch, ci, outcome):
    monkeypatch.setenv("CI", ci)
    monkeypatch.setattr(slurm, "running_cluster", _unavailable)
    clusters = slurm.Clusters()
    with pytest.raises(outcome, match="slurmd is not installed"):
        clusters.get("current")
    assert clusters.running is None and clusters.cluster is None
