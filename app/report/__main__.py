"""`python -m app.report`: runs `python -m app.host.report` (see __init__.py)."""

from app.host.report.cli import command

command()
