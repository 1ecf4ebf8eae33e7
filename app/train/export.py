"""`python -m app.train.export SNAPSHOT OUT.pt`: a snapshot's model as one plain state dict
(app/train/snapshot/export.py)."""

import sys

from app.train.snapshot.export import main

if __name__ == "__main__":
    sys.exit(main())
