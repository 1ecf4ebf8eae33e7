"""The job's plan, computed from the scheduler's environment and the knobs (standard library only)."""
