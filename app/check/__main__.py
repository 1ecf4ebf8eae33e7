"""`python -m app.check`: see app/check/cli.py."""

from app.check.entry import command

command()
