"""Shared test setup. Fixture plugins for Apptainer and Slurm live in tests/fixtures/."""

pytest_plugins = [
    # Images: `smoke_image`, `run_in_image`, `user_dir` for tests that run the smoke SIF.
    "tests.fixtures.apptainer",
    # Job scripts: `slurm_cluster`, the three-node Slurm test cluster (tests/slurm/up.sh).
    "tests.fixtures.slurm",
]
