"""`python -m app.train.export SNAPSHOT OUT.pt`: see app/train/snapshot/export.py."""

from app.train.snapshot.export import command

if __name__ == "__main__":  # a module of the package, not its __main__: importing it runs nothing
    command()
