"""`python -m app.diagnose LOG...`: the command users type; the diagnosis lives in app/host/diagnose (what
runs outside the image: app/host/__init__.py). This package only runs it, on the same Python 3.6+ and
standard library."""
