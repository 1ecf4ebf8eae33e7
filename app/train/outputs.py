"""Rank 0's record of a run in `run.dir`, opened and closed in one place.

At the start: `manifest.json`, `config.yaml` and a line in `history.jsonl`; `metrics.jsonl` cut back to
the step the run resumes from (later records are about to be run again). Every step: one metrics line
and the progress display. The assembly opens it before the loop and closes it after; the loop only reports steps to it.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from app.common.atomic import write_text_atomic
from app.common.distributed import DistContext
from app.host.common.errors import UsageError
from app.host.common.history import append_attempt
from app.host.common.jsonl import json_object
from app.host.common.regular_files import NotARegularFile, open_regular
from app.train.manifest import build_manifest
from app.train.metrics import JsonLines, ProgressDisplay
from app.train.sinks import MetricsSink
from app.train.snapshot.write_failures import FILE_SYSTEM_FAILED, storage_error
from app.train.step_record import StepRecord

log = logging.getLogger(__name__)


@contextmanager
def run_files_written(run_dir: Path) -> Iterator[None]:
    """A write of the run's own files that the file system refused (full, over quota, failing) as one line with
    the remedy and the storage exit code, as a snapshot write says it; any other error passes unchanged."""
    try:
        yield
    except OSError as err:
        if err.errno not in FILE_SYSTEM_FAILED:
            raise
        raise storage_error("the run's records (metrics.jsonl, config.yaml, summary.json)", run_dir, err,
                            elsewhere="give another run.dir, on a file system with room (e.g. "
                                      "run.dir=$SCRATCH/runs/1)") from None


class RunOutputs:
    """Run files, per-step metrics and the progress display of rank 0."""

    def __init__(self, run_dir: Path, metrics: JsonLines, progress: ProgressDisplay, log_every: int,
                 sinks: list[MetricsSink] | None = None) -> None:
        self.run_dir, self.metrics, self.progress, self.log_every = run_dir, metrics, progress, log_every
        self.sinks = sinks or []

    @classmethod
    def open(cls, run_dir: Path, config: dict[str, Any], hostnames: list[str], ctx: DistContext, *, start_step: int,
             total_steps: int, epochs: int, log_every: int, progress_mode: str,
             sinks: list[MetricsSink] | None = None) -> RunOutputs:
        manifest = build_manifest(config, hostnames, ctx.launcher, ctx.backend)
        try:
            with run_files_written(run_dir):
                write_text_atomic(run_dir / "manifest.json", json.dumps(manifest, indent=2) + "\n")
                write_text_atomic(run_dir / "config.yaml", yaml.safe_dump(config, sort_keys=False))
                metrics = JsonLines(_metrics_truncated_to(run_dir / "metrics.jsonl", start_step))
                append_attempt(run_dir, start_step=start_step, hosts=hostnames, launcher=ctx.launcher,
                               env=os.environ, total_steps=total_steps)
        except NotARegularFile as err:
            raise UsageError(f"run.dir {run_dir}: {err.filename}: {err.strerror}; remove it (the run writes its own) "
                             f"or give another run.dir") from None
        progress = ProgressDisplay(total_steps, log_every, progress_mode, start_step=start_step, epochs=epochs)
        return cls(run_dir, metrics, progress, log_every, sinks)

    def step(self, record: StepRecord) -> None:
        line = record.as_json()
        with run_files_written(self.run_dir):
            self.metrics.write(line)
            if record.step % self.log_every == 0:
                self.metrics.flush()
        for sink in self.sinks:
            sink.write(line)
        self.progress.update(line)

    def flush(self) -> None:
        with run_files_written(self.run_dir):
            self.metrics.flush()

    def close(self) -> None:
        self.progress.close()
        with run_files_written(self.run_dir):
            self.metrics.close()
        for sink in self.sinks:
            sink.close()


def _metrics_truncated_to(path: Path, step: int) -> Path:
    """Drop records of steps after the snapshot we resume from: they are about to be run again. A line that
    is not a step's record (cut short by a lost node or a full disk, or damaged) is dropped too, and counted."""
    if path.exists():
        kept, damaged = [], 0
        with open_regular(path) as file:  # a FIFO left there would hold the start
            lines = file.read().splitlines()
        for line in lines:
            step_of_line = _record_step(line)
            if step_of_line is None:
                damaged += line.strip() != b""
            elif step_of_line <= step:
                kept.append(line.decode())
        if damaged:
            log.warning("%s: dropped %d line(s) that are not a step's record (cut short or damaged)", path, damaged)
        write_text_atomic(path, "".join(line + "\n" for line in kept))
    return path


def _record_step(line: bytes) -> int | None:
    """The step of a metrics line, or None when the line is not a whole JSON record with an integer step."""
    step = (json_object(line) or {}).get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None
