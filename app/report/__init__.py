"""`python -m app.report RUN_DIR`: the command users type; the report lives in app/host/report (what runs
outside the image: app/host/__init__.py). This package only runs it, on the same Python 3.6+ and standard
library."""
