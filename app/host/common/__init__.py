"""What the job, the login tools and the trainer share that must also run on the host's python3 (3.6+,
standard library only): user-facing errors and exit codes, the fabric policy, the run's history and provenance,
the scheduler's variables, the rendezvous port, safe file reading and writing."""
