"""Each step's figures, read one step late and written once: the host never waits for the device to say
how a step went, and every completed step reaches metrics.jsonl even when a hang stops the run.

A step's summed [loss x samples, stop flag] and its gradient norm are copied off the device without
waiting (`StepResult`); they are read when the next step has been queued (`hold`), or at once where the
record must be on disk before what follows (`report_held`: before a snapshot, an evaluation line, the
end). Both hand back the step they reported, whose `stop_requested` the loop reads: the loop decides when
to stop, this module only reports. The hang watchdog's thread writes the one step that finished while its
successor hangs (`write_finished`); one lock makes each step's line written once, and the training thread
waits for a line the watchdog is writing (a snapshot must never be published before its steps' lines), while
the watchdog never waits for the training thread (it must go on watching). `completed_step` is the last step
whose figures came back: what a hang summary names, since on a GPU the host runs up to a step ahead of the
device. It and `last_loss` are read across threads under a second lock, held only to copy them, so the
watchdog reads them even while the training thread waits for the device under the first. A third lock makes
the run's files one writer's at a time (a line, a flush: never a wait for the device), so the watchdog's
flush before it ends the run waits for the line being written and never interleaves with it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import torch

from app.train.metrics import StepClock, peak_memory_gib
from app.train.outputs import RunOutputs
from app.train.plan import Position, RunPlan
from app.train.step_record import Evaluation, build_step_record


@dataclass
class StepResult:
    """One step's figures, possibly still on their way from the device."""

    stats: torch.Tensor  # summed over ranks: [loss * samples, stop flag]
    grad_norm: torch.Tensor
    end: Any  # StepClock.mark() after the step's update
    step: int
    position: Position  # where the step left the run
    lr: float
    global_samples: int  # this step's samples across ranks
    evaluation: Evaluation | None = None  # set by the loop when it evaluates after this step
    reported: bool = False
    stop_requested: bool = False  # some rank asked to stop in this step (known once reported)


class StepReports:
    def __init__(self, plan: RunPlan, device: torch.device, outputs: RunOutputs | None, start_step: int) -> None:
        self.plan, self.device, self.outputs = plan, device, outputs
        self.clock = StepClock(device)
        self._last_loss = float("nan")
        self._completed_step = start_step  # the attempt's start until a step of its own comes back
        self._held: StepResult | None = None
        self._lock = threading.Lock()  # the held step, its writing and the clock: the training and watchdog threads
        self._figures = threading.Lock()  # the two figures above, never held while waiting
        self._writing = threading.Lock()  # the run's files (outputs), held only while writing to them

    @property
    def completed_step(self) -> int:
        """The last step whose figures came back (the attempt's start before any)."""
        with self._figures:
            return self._completed_step

    @property
    def last_loss(self) -> float:
        with self._figures:
            return self._last_loss

    def restart_clock(self) -> None:
        """The next step's time starts now (at the attempt's start, after an evaluation or a snapshot)."""
        with self._lock:
            self.clock.restart()

    def hold(self, result: StepResult) -> StepResult | None:
        """Report the step held before (its figures are in by now) and hold this one; the step reported."""
        reported = self.report_held()
        with self._lock:
            self._held = result
        return reported

    def report_held(self) -> StepResult | None:
        """Report the held step now (waiting for its figures, or for the watchdog writing it); the step."""
        with self._lock:
            held, self._held = self._held, None
            if held is not None:
                self._report(held)
            return held

    def write_finished(self) -> None:
        """From the hang watchdog's thread, while this rank waits in the next step's collective: write the
        held step if its figures are in, so every completed step is in metrics.jsonl. Never waits: while the
        training thread is reporting, that step is being written already."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            held = self._held
            if held is not None and self.clock.reached(held.end):
                self._report(held)
        finally:
            self._lock.release()

    def flush(self) -> None:
        """Every line written so far on disk, each whole (before a snapshot, and from the watchdog before the
        run ends as hung): waits for a line being written, never for the device."""
        if self.outputs is not None:
            with self._writing:
                self.outputs.flush()

    def _report(self, result: StepResult) -> None:
        """Under the lock: read the step's figures and write its line, once."""
        if result.reported:  # written by the watchdog's thread already
            return
        step_time = self.clock.seconds_to(result.end)  # also waits for the step's figures
        loss_sum, stop = result.stats.tolist()
        record = build_step_record(self.plan, step=result.step, position=result.position, lr=result.lr,
                                   global_samples=result.global_samples, loss_sum=loss_sum,
                                   grad_norm=float(result.grad_norm), step_time_s=step_time,
                                   peak_memory_gib=peak_memory_gib(self.device), wall_time=time.time(),
                                   evaluation=result.evaluation)
        if self.outputs is not None:
            with self._writing:
                self.outputs.step(record)
        with self._figures:
            self._last_loss, self._completed_step = record.loss, record.step
        result.stop_requested, result.reported = stop > 0, True
