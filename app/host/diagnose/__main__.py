"""`python -m app.diagnose`: see app/host/diagnose/__init__.py."""

from app.host.diagnose.cli import command

command()
