"""The connectivity check: `python -m app.check` (see app/check/cli.py)."""
