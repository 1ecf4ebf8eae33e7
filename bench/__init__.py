"""Benchmarks: `nox -s bench` runs them and records the results in BENCHMARKS.md."""
