"""Benchmarks: run with `nox -s bench` (all) or `python -m bench.<name>` (one); results in BENCHMARKS.md."""
