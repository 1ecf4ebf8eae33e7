"""Shared test configuration."""

# Job scripts (issue 5): `slurm_cluster`, the two-node Slurm test cluster (tests/slurm/up.sh).
pytest_plugins = ["fixtures.slurm"]
