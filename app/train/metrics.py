"""Building blocks of what the trainer reports: JSON lines, a progress bar or plain lines, a step-time breakdown."""

from __future__ import annotations

import json
import logging
import os
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import torch

from app.host.common.private_dir import PRIVATE_FILE, group_readable_mode
from app.host.common.rates import format_rate

#: A batch log's progress lines go through the log, so they carry its time and host:rank like every other line.
progress_log = logging.getLogger("app.train.progress")


class JsonLines:
    """Appends one JSON object per line; flushed at every progress line and on close."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Private like every run file (the group may read where the run directory lets it), whatever the umask.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                     group_readable_mode(path.parent, PRIVATE_FILE))
        self.file = os.fdopen(fd, "a", buffering=1 << 16)

    def write(self, record: dict[str, Any]) -> None:
        self.file.write(json.dumps(record, separators=(",", ":")) + "\n")

    def flush(self) -> None:
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class ProgressDisplay:
    """A tqdm bar on a terminal (fits its width, shows the ETA; log lines are printed above it, never glued
    to it), plain periodic lines in a batch log, each with this attempt's ETA."""

    def __init__(self, total_steps: int, every: int, mode: str, stream: TextIO = sys.stderr,
                 start_step: int = 0, epochs: int = 1, clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.every, self.epochs, self.clock = total_steps, every, epochs, clock
        self.bar: Any = None
        self._redirect: Any = None
        #: The pace is taken from the attempt's first step on: that step pays for compilation and warm-up.
        self._pace_from: tuple[int, float] | None = None
        if mode == "bar" or (mode == "auto" and stream.isatty()):
            from tqdm import tqdm  # only where a bar is drawn: batch jobs never import it
            from tqdm.contrib.logging import logging_redirect_tqdm

            self.bar = tqdm(total=total_steps, initial=start_step, file=stream, dynamic_ncols=True, unit="step",
                            smoothing=0.1, mininterval=0.2)
            # Log records go through tqdm.write while the bar is up: printed above it, the bar redrawn below.
            self._redirect = logging_redirect_tqdm()
            self._redirect.__enter__()

    def update(self, record: dict[str, Any]) -> None:
        step = record["step"]
        if self._pace_from is None:
            self._pace_from = (step, self.clock())
        if self.bar is not None:
            self.bar.set_postfix_str(_short_text(record), refresh=False)
            self.bar.update(step - self.bar.n)
            if "val_loss" in record:
                self.bar.write(self.line(record))
            return
        if step % self.every and step != self.total and "val_loss" not in record:
            return
        progress_log.info("%s", self.line(record))

    def line(self, record: dict[str, Any]) -> str:
        """A batch log's progress line: every figure of the step, then the time this attempt needs to finish."""
        text = _line(record, self.total, self.epochs)
        eta = self._eta_s(record["step"])
        return text if eta is None else f"{text} | ETA {_clock_text(eta)}"

    def _eta_s(self, step: int) -> float | None:
        if self._pace_from is None or step <= self._pace_from[0]:
            return None
        first_step, first_time = self._pace_from
        return (self.total - step) * (self.clock() - first_time) / (step - first_step)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self._redirect.__exit__(None, None, None)
            self.bar = None


def _clock_text(seconds: float) -> str:
    """H:MM:SS, as tqdm writes a long ETA."""
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _line(record: dict[str, Any], total: int, epochs: int) -> str:
    """Every figure of the step; the epoch counted from 1, of those planned."""
    text = f"step {record['step']}/{total} | epoch {record['epoch'] + 1}/{epochs} | loss {record['loss']:.4f}"
    if "val_loss" in record:
        text += f" | val_loss {record['val_loss']:.4f}"
    text += f" | lr {record['lr']:.2e}"
    if "grad_norm" in record:
        text += f" | grad_norm {record['grad_norm']:.3f}"
    text += f" | {format_rate(record['samples_per_s'])} samples/s"
    if record.get("tokens_per_s"):
        text += f" | {format_rate(record['tokens_per_s'])} tokens/s"
    return text + f" | {record['step_time_s'] * 1e3:.1f} ms/step"


def _short_text(record: dict[str, Any]) -> str:
    """The bar's postfix: the figures worth watching, short enough to leave the bar room on 80 columns (the
    step rate and ETA are the bar's own)."""
    rate = record.get("tokens_per_s") or record["samples_per_s"]
    unit = "tok/s" if record.get("tokens_per_s") else "samples/s"
    return f"loss {record['loss']:.3f}, {format_rate(rate)} {unit}"


def peak_memory_gib(device: torch.device) -> float:
    """This process's peak memory in GiB: the CUDA allocator's high-water mark on GPU, the peak resident set
    on CPU."""
    if device.type == "cuda":
        peak = torch.cuda.max_memory_allocated(device)
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    return round(peak / 2**30, 3)


PHASES = ("data", "compute", "comm_wait", "optimizer")


@dataclass
class Breakdown:
    """Seconds spent per phase, summed over steps: where does a step's time go?"""

    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    steps: int = 0

    def add(self, **phases: float) -> None:
        for name, value in phases.items():
            self.seconds[name] += value

    def per_step_ms(self) -> dict[str, float]:
        return {name: 1e3 * value / max(1, self.steps) for name, value in self.seconds.items()}

    def summary_line(self) -> str:
        per_step = self.per_step_ms()
        total = sum(per_step.values()) or 1.0
        parts = [f"{name} {ms:.2f} ms ({100 * ms / total:.0f}%)" for name, ms in per_step.items()]
        return "time per step: " + ", ".join(parts) + f" -> {_verdict(per_step)}"


def _verdict(per_step: dict[str, float]) -> str:
    biggest = max(per_step, key=per_step.get)  # type: ignore[arg-type]
    return {
        "data": "data-bound: add data.workers, move data to fast storage",
        "compute": "compute-bound",
        "comm_wait": "network-bound: check the fabric with python -m app.check",
        "optimizer": "optimizer-bound",
    }[biggest]


class Stopwatch:
    """perf_counter laps; `sync` makes GPU work finish first so laps measure it (only when asked)."""

    def __init__(self, sync: Any = None) -> None:
        self.sync = sync
        self.last = time.perf_counter()

    def lap(self) -> float:
        if self.sync is not None:
            self.sync()
        now = time.perf_counter()
        elapsed, self.last = now - self.last, now
        return elapsed


class StepClock:
    """When steps end, on the device's own timeline.

    On a GPU the host only queues a step and runs ahead: host time around `_step` measures the queueing.
    An event recorded after each step's optimizer update marks its end where the GPU is; a step's time is
    the interval from the previous end (or `restart()`, after a snapshot) to its own. On CPU the host's
    clock is the device's.
    """

    def __init__(self, device: torch.device) -> None:
        self.cuda = device.type == "cuda"
        self.last: Any = self.mark()

    def mark(self) -> Any:
        if not self.cuda:
            return time.perf_counter()
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def restart(self) -> None:
        self.last = self.mark()

    def reached(self, end: Any) -> bool:
        """Whether the device has passed `end` (never waits)."""
        return end.query() if self.cuda else True

    def seconds_to(self, end: Any) -> float:
        """Time from the previous end to `end` (waits for `end` to be reached on the GPU)."""
        if self.cuda:
            end.synchronize()
            seconds = self.last.elapsed_time(end) / 1e3
        else:
            seconds = end - self.last
        self.last = end
        return seconds
