"""A run directory read back, finished or still training: metrics, attempts, requeues, the summary.

Only what the trainer and the job scripts write (metrics.jsonl, history.jsonl, summary.json); a line
still being written (the last one, while the run trains) is skipped, not an error.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.common.errors import UsageError


@dataclass
class Restart:
    """An attempt after the first: where it resumed, and whether a job script requeued it for bad nodes."""

    step: int
    attempt: int
    requeued_without: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class RunRecord:
    run_dir: Path
    steps: list[dict[str, Any]]
    attempts: list[dict[str, Any]]
    restarts: list[Restart]
    gave_up: str | None
    summary: dict[str, Any] | None

    @property
    def total_steps(self) -> int | None:
        for attempt in reversed(self.attempts):
            if attempt.get("total_steps"):
                return int(attempt["total_steps"])
        return None

    @property
    def finished(self) -> bool:
        return self.summary is not None and self.summary.get("status") in ("completed", "preempted", "hung") \
            and self.summary_is_current

    @property
    def summary_is_current(self) -> bool:
        """The summary was written by the latest attempt (an earlier attempt's is stale while one trains)."""
        if self.summary is None or not self.attempts:
            return self.summary is not None
        return (self.run_dir / "summary.json").stat().st_mtime >= self.attempts[-1].get("started_unix", 0)


def read_run(run_dir: Path) -> RunRecord:
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir} is not a directory; give a run directory (the trainer's run.dir), "
                         f"e.g. python -m app.report runs/demo")
    metrics = run_dir / "metrics.jsonl"
    if not metrics.exists():
        raise UsageError(f"{run_dir} holds no metrics.jsonl: not a run directory, or its run has not reached "
                         f"step 1 yet (run.dir of the trainer, e.g. runs/demo)")
    steps = _json_lines(metrics)
    lines = _json_lines(run_dir / "history.jsonl")
    attempts = [line for line in lines if "attempt" in line]
    restarts, pending_requeue, gave_up = [], None, None
    for line in lines:
        if line.get("event") == "requeue":
            pending_requeue = line
        elif line.get("event") == "gave-up":
            gave_up = line.get("reason", "")
        elif "attempt" in line and line["attempt"] > 1:
            restart = Restart(step=int(line.get("start_step", 0)), attempt=int(line["attempt"]))
            if pending_requeue is not None:
                restart.requeued_without = list(pending_requeue.get("excluded", []))
                restart.reason = pending_requeue.get("reason", "")
            restarts.append(restart)
            pending_requeue = None
    summary = None
    with contextlib.suppress(OSError, ValueError):
        summary = json.loads((run_dir / "summary.json").read_text())
    return RunRecord(run_dir, steps, attempts, restarts, gave_up, summary)


def _json_lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # the line being written right now
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
