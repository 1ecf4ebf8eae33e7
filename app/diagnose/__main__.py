"""`python -m app.diagnose`: runs `python -m app.host.diagnose` (see __init__.py)."""

from app.host.diagnose.cli import command

command()
