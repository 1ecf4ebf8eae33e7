"""`python -m app.report`: see app/report/cli.py."""

from app.report.cli import command

command()
