"""`python -m app.diagnose`: see app/diagnose/__init__.py."""

from app.diagnose.cli import command

command()
