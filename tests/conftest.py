"""Shared test setup. Fixture plugins for Apptainer and Slurm live in tests/fixtures/."""

# Images (issue 4): `smoke_image`, `run_in_image`, `user_dir` for tests that run the smoke SIF.
pytest_plugins = ["tests.fixtures.apptainer"]
