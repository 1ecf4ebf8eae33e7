"""`python3 -m app.launch`: the command users and site scripts type; the job's program lives in
app/host/launch (what runs outside the image: app/host/__init__.py). This package only runs it, on the same
Python 3.6+ and standard library."""
