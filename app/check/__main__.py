"""`python -m app.check`: see app/check/cli.py."""

import sys

from app.check.cli import main

sys.exit(main())
