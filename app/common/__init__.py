"""What the trainer (`app.train`) and the check (`app.check`) share: who launched us (`cluster`), the
process group (`distributed`), stop signals, logging, the typed config loader and the software versions. What
they share with the job and the login tools (user-facing errors and exit codes, the fabric policy, which image we
run) lives in app/host/common, which runs on the host's python3 too."""
