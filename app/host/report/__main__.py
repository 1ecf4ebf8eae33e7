"""`python -m app.report`: see app/host/report/cli.py."""

from app.host.report.cli import command

command()
