"""`python3 -m app.launch`: runs `python3 -m app.host.launch` (see __init__.py)."""

from app.host.launch.cli import main

raise SystemExit(main())
