"""`python -m app.train`: see app/train/cli.py."""

from app.train.cli import command

command()
