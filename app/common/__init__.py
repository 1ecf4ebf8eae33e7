"""What the trainer (`app.train`) and the check (`app.check`) share: who launched us (`cluster`), the
process group (`distributed`), stop signals, user-facing errors and exit codes, logging, the typed
config loader, and which image and versions we run (`provenance`)."""
