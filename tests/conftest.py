"""Shared test configuration."""

# Images (issue 4): `smoke_image`, `run_in_image`, `user_dir` for tests that run the smoke SIF.
pytest_plugins = ["fixtures.apptainer"]
