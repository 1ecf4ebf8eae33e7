"""Shared test setup. Fixture plugins for Apptainer and Slurm live in tests/fixtures/."""
