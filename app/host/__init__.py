"""What runs outside the image: on login nodes and the job's batch host, on their system python3 (3.6+,
standard library only). The job (`launch`), the login tools (`diagnose`, `report`) and what they share
(`common`). The trainer and the check may import from here; nothing here imports from above it (app.train,
app.check, app.common): tests/test_import_rules.py and tests/test_login_tools.py hold both."""
