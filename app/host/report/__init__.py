"""The run report: `python -m app.report RUN_DIR` (see app/host/report/cli.py)."""
