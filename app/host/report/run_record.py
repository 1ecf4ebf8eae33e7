"""A run directory read back, finished or still training: metrics, attempts, requeues, the summary.

Only what the trainer and the job scripts write (metrics.jsonl, history.jsonl, summary.json); a line
still being written (the last one, while the run trains), cut short or damaged, or whose fields are not of the
types those writers write, is skipped, not an error.
"""

import json
import math
from collections import deque
from pathlib import Path
from typing import Any, Deque, Dict, Iterable, List, Optional

from app.host.common.access import READ_REMEDY, owner_and_mode, why_unreadable_directory
from app.host.common.errors import UsageError
from app.host.common.jsonl import each_json_object, json_objects
from app.host.common.regular_files import MAX_SUMMARY_BYTES, FileTooLarge, read_regular

#: The numbers a metrics line may carry besides its step (app/train/step_reports.py writes them); the losses may
#: be NaN or infinite (a run that diverged), the times, rates and counts are finite.
LOSSES = ("loss", "val_loss", "grad_norm")
FINITE_NUMBERS = ("time", "step_time_s", "eval_time_s", "tokens_per_s", "samples_per_s", "tokens", "samples",
                  "peak_memory_gib")
#: Throughput and ETA are medians over the latest steps: a snapshot or an evaluation step is one slow outlier.
RECENT_STEPS = 50
#: The most points a curve keeps: more than a picture's width in pixels, and memory that does not grow with
#: the run (a million steps of metrics.jsonl read whole took 2.5 GB).
MAX_POINTS = 4096


class Curve:
    """Every `stride`-th record added, at most MAX_POINTS of them: when full, every other one goes and the
    stride doubles, so the kept ones stay evenly spread over the whole run."""

    def __init__(self) -> None:
        self.points: List[Dict[str, Any]] = []
        self.stride, self.seen = 1, 0

    def add(self, record: Dict[str, Any]) -> None:
        if self.seen % self.stride == 0:
            self.points.append(record)
            if len(self.points) > MAX_POINTS:
                self.points = self.points[::2]
                self.stride *= 2
        self.seen += 1


class StepLog:
    """What the report needs of metrics.jsonl, read one line at a time: the first and the last step, the latest
    RECENT_STEPS, the latest and the best validation, the peak memory, and the curves, thinned (`Curve`)."""

    def __init__(self, records: Iterable[Dict[str, Any]] = ()) -> None:
        self.count = 0
        self.first: Optional[Dict[str, Any]] = None
        self.last: Optional[Dict[str, Any]] = None
        self.recent: Deque[Dict[str, Any]] = deque(maxlen=RECENT_STEPS)
        self.last_validation: Optional[Dict[str, Any]] = None
        self.best_validation: Optional[Dict[str, Any]] = None
        self.peak_memory_gib: Optional[float] = None
        self.all_have_tokens_per_s = True
        self.curve, self.validations = Curve(), Curve()
        for record in records:
            self.add(record)

    def add(self, record: Dict[str, Any]) -> None:
        self.count += 1
        if self.first is None:
            self.first = record
        self.last = record
        self.recent.append(record)
        self.curve.add(record)
        if "val_loss" in record:
            self.last_validation = record
            self.validations.add(record)
            if self.best_validation is None or record["val_loss"] < self.best_validation["val_loss"]:
                self.best_validation = record  # the first of equals, as min() keeps it
        if "peak_memory_gib" in record:
            self.peak_memory_gib = max(self.peak_memory_gib or 0, record["peak_memory_gib"])
        self.all_have_tokens_per_s = self.all_have_tokens_per_s and "tokens_per_s" in record

    def __len__(self) -> int:
        return self.count


class Restart:
    """An attempt after the first: where it resumed, and whether a job script requeued it for bad nodes.
    (Plain classes here: dataclasses are 3.7+, and app.report runs on login nodes with 3.6.)"""

    def __init__(self, step: int, attempt: int) -> None:
        self.step, self.attempt = step, attempt
        self.requeued_without: List[str] = []
        self.reason = ""


class RunRecord:
    """What a run directory holds: its steps, its attempts and restarts, and its summary when written."""

    def __init__(self, run_dir: Path, steps: StepLog, attempts: List[Dict[str, Any]],
                 restarts: List[Restart], gave_up: Optional[str], summary: Optional[Dict[str, Any]]) -> None:
        self.run_dir, self.steps, self.attempts, self.restarts = run_dir, steps, attempts, restarts
        self.gave_up, self.summary = gave_up, summary

    @property
    def total_steps(self) -> Optional[int]:
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
    unreadable = why_unreadable_directory(str(run_dir))
    if unreadable is not None:
        raise UsageError(f"cannot read the run directory {run_dir}: {unreadable}; {READ_REMEDY}")
    metrics = run_dir / "metrics.jsonl"
    if not metrics.exists():
        raise UsageError(f"{run_dir} holds no metrics.jsonl: not a run directory, or its run has not reached "
                         f"step 1 yet (run.dir of the trainer, e.g. runs/demo)")
    try:
        steps = StepLog(r for r in each_json_object(metrics) if _is_step(r))
        lines = [line for line in json_objects(run_dir / "history.jsonl") if _is_history_line(line)]
        summary = _summary(run_dir / "summary.json")
    except PermissionError as err:  # a file in it its owner keeps to themselves (mode 600)
        path = str(err.filename or run_dir)
        raise UsageError(f"cannot read {path}: permission denied ({owner_and_mode(path)}); {READ_REMEDY}") from None
    except OSError as err:
        raise UsageError(f"cannot read {run_dir}: {err}; give a run directory the trainer wrote "
                         f"(e.g. python -m app.report runs/demo)") from None
    attempts = [line for line in lines if "attempt" in line]
    restarts, pending_requeue, gave_up = [], None, None
    for line in lines:
        if line.get("event") == "requeue":
            pending_requeue = line
        elif line.get("event") == "gave-up":
            gave_up = printable(line.get("reason", ""))
        elif "attempt" in line and line["attempt"] > 1:
            restart = Restart(step=line.get("start_step", 0), attempt=line["attempt"])
            if pending_requeue is not None:
                restart.requeued_without = [printable(name) for name in pending_requeue.get("excluded", [])]
                restart.reason = printable(pending_requeue.get("reason", ""))
            restarts.append(restart)
            pending_requeue = None
    return RunRecord(run_dir, steps, attempts, restarts, gave_up, summary)


def printable(text: str) -> str:
    """`text` with its control characters escaped (`\\n`, `\\x1b`): words from a file stay on their line and
    never reach the terminal as commands."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_step(record: Dict[str, Any]) -> bool:
    """A metrics line as the trainer writes it: a step, its loss, time and speed, and numbers only."""
    return (_is_count(record.get("step")) and all(key in record for key in ("loss", "step_time_s", "samples_per_s"))
            and all(_is_number(record[key]) for key in LOSSES if key in record)
            and all(_is_number(record[key]) and math.isfinite(record[key]) for key in FINITE_NUMBERS if key in record))


def _is_history_line(line: Dict[str, Any]) -> bool:
    """An attempt's line (app.host.common.history's append_attempt) or a job script's event, with their types (a line
    with the keys of both is checked as both)."""
    if "attempt" not in line and "event" not in line:
        return False
    if "attempt" in line and not (
            _is_count(line["attempt"]) and line["attempt"] >= 1 and _is_count(line.get("start_step", 0))
            and (line.get("total_steps") is None or _is_count(line["total_steps"]))
            and _is_number(line.get("started_unix", 0)) and math.isfinite(line.get("started_unix", 0))):
        return False
    excluded = line.get("excluded", [])
    return "event" not in line or (
        isinstance(line["event"], str) and isinstance(line.get("reason", ""), str)
        and isinstance(excluded, list) and all(isinstance(name, str) for name in excluded))


def _summary(path: Path) -> Optional[Dict[str, Any]]:
    """summary.json when it is one the trainer wrote (a status and a step), else None."""
    try:
        data = json.loads(read_regular(path, MAX_SUMMARY_BYTES).decode())
    except (FileNotFoundError, FileTooLarge):
        return None
    except (ValueError, RecursionError):  # cut short, not UTF-8, or nested past the parser's depth
        return None
    if isinstance(data, dict) and isinstance(data.get("status"), str) and _is_count(data.get("step")):
        return data
    return None
