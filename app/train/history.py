"""`history.jsonl` in the run directory: one line per attempt of a run, for a campaign of requeued jobs.

Each start appends: attempt number, time, scheduler job id, hosts, launcher, image, the step it starts
from, and how the previous attempt ended, read from the summary.json that attempt left (completed,
preempted by a signal, hung and who held it up) or, when it left none, that it was killed or crashed.
The job scripts add their own lines between attempts (`"event": "requeue"` when they leave a bad node
out and requeue, `"gave-up"` at their limit; jobscripts/lib-heal.sh); the next attempt quotes the reason.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.common.provenance import image_provenance

JOB_ID_VARIABLES = ("SLURM_JOB_ID", "PBS_JOBID")


def previous_ending(run_dir: Path, previous: Mapping[str, Any] | None) -> str | None:
    """How the attempt recorded in `previous` ended; None for a run's first attempt."""
    if previous is None:
        return None
    if "event" in previous:  # the job scripts' line: they said why
        return f"{previous['event']}: {previous.get('reason', '')}"
    summary = run_dir / "summary.json"
    try:
        if summary.stat().st_mtime >= previous["started_unix"]:
            data = json.loads(summary.read_text())
            if data["status"] == "hung":
                return f"hung at step {data['step']}: {data['hang']['message']}"
            how = f" by {data['signal']}" if data.get("signal") else ""
            return f"{data['status']}{how} at step {data['step']}"
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return "left no summary: killed (SIGKILL, out of memory, time limit, node failure) or crashed; see its log"


def append_attempt(run_dir: Path, *, start_step: int, hosts: list[str], launcher: str,
                   env: Mapping[str, str], total_steps: int | None = None) -> dict[str, Any]:
    """Append this attempt's line (rank 0, before training) and return it."""
    path = run_dir / "history.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    previous = json.loads(lines[-1]) if lines else None
    image = image_provenance() or {}
    entry = {
        "attempt": sum('"attempt":' in line for line in lines) + 1,
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "started_unix": time.time(),
        "job_id": next((env[k] for k in JOB_ID_VARIABLES if env.get(k)), None),
        "hosts": sorted(set(hosts)),
        "launcher": launcher,
        "image": image.get("image"),
        "start_step": start_step,
        "total_steps": total_steps,
        "previous_attempt": previous_ending(run_dir, previous),
    }
    with path.open("a") as file:
        file.write(json.dumps(entry) + "\n")
        file.flush()
        os.fsync(file.fileno())
    return entry
