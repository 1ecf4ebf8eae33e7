"""The training loop, top to bottom: for each step the run has left, run it, report the one before, then
evaluate and snapshot where due; at the end (or at a stop signal, agreed by every rank) the last snapshot.

It receives everything it uses and reads no environment variables and no files of its own: the steps
(app/train/steps.py), one optimizer step (optimizer_step.py), the reports (step_reports.py), the
evaluator and the snapshot manager, which each decide themselves when they are due.

A step's path, in order: steps.py gives its data; optimizer_step.py runs forward/backward and the update,
its loss and stop flag riding the gradient all-reduce (stats_hook.py); step_reports.py reads those figures
one step later and hands them to step_record.py, which builds the metrics line, and hands the reported step
back: the loop reads its stop flag and decides. The loop asks the snapshot manager once a step whether a
snapshot is due, and once at the end for the last one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass

from app.common import injected_faults
from app.common.signals import StopFlag
from app.train.evaluation import Evaluator
from app.train.metrics import Breakdown
from app.train.optimizer_step import OptimizerStep
from app.train.plan import Position
from app.train.snapshot import SnapshotManager
from app.train.state import TrainingState
from app.train.step_record import Evaluation
from app.train.step_reports import StepReports, StepResult
from app.train.steps import Step

log = logging.getLogger(__name__)


@dataclass
class TrainResult:
    status: str  # "completed" or "preempted"
    position: Position
    final_loss: float
    elapsed_s: float
    samples: int
    steps_run: int
    signal_name: str | None = None
    breakdown: Breakdown | None = None
    val_loss: float | None = None


def asked_to_stop(reported: StepResult | None) -> bool:
    """Whether the step just reported carried a stop request from some rank (every rank reads the same sum,
    so every rank stops after the same step)."""
    return reported is not None and reported.stop_requested


class Trainer:
    """Runs the steps of one attempt of a run (from a fresh start or a snapshot) until the last or a stop."""

    def __init__(self, *, state: TrainingState, steps: Iterator[Step], optimizer_step: OptimizerStep,
                 reports: StepReports, snapshots: SnapshotManager, evaluator: Evaluator | None,
                 stop: StopFlag) -> None:
        self.state, self.steps, self.optimizer_step, self.reports = state, steps, optimizer_step, reports
        self.snapshots, self.evaluator, self.stop = snapshots, evaluator, stop
        self.progress = optimizer_step.progress
        self.last_val_loss: float | None = None

    def train(self) -> TrainResult:
        started, steps_run, samples, stopping = time.perf_counter(), 0, 0, False
        last_step = self.state.plan.total_steps
        self.reports.restart_clock()
        for step in self.steps:
            current = self.optimizer_step(step, self.reports.clock)
            steps_run, samples = steps_run + 1, samples + step.global_samples
            if asked_to_stop(self.reports.hold(current)):  # the step before this one carried a stop request
                stopping = True
                break
            evaluating = self.evaluator is not None and self.evaluator.due(step.number, last_step)
            snapshotting = self.snapshots.due(step.number)
            if evaluating:
                self._evaluate(current)
            if evaluating or snapshotting:
                # This step's line first: a snapshot published before its steps' metrics would leave a
                # hole after a kill (the resumed run starts after the snapshot).
                stopping = asked_to_stop(self.reports.report_held())
                if snapshotting:
                    self._snapshot(step.number)
                self.reports.restart_clock()  # the next step's time is its own, not the evaluation's or snapshot's
                if stopping:
                    break
        asked_at_the_end = asked_to_stop(self.reports.report_held())
        if asked_at_the_end:  # a stop request in the run's last step: not preempted
            stopping = stopping or self.state.position.step < last_step
        if stopping or asked_at_the_end:
            self.stop.agreed()  # this node's own copy of the request may still be on its way
        if self.snapshots.due(self.state.position.step, last=True):
            self._snapshot(self.state.position.step, last=True)
        self.snapshots.wait()  # the run ends with its snapshots on disk
        return TrainResult(
            status="preempted" if stopping else "completed",
            position=self.state.position,
            final_loss=self.reports.last_loss,
            elapsed_s=time.perf_counter() - started,
            samples=samples,
            steps_run=steps_run,
            signal_name=self.stop.signal_name or ("a signal to another rank" if stopping else None),
            breakdown=self.optimizer_step.finish_breakdown(steps_run),
            val_loss=self.last_val_loss,
        )

    def _evaluate(self, current: StepResult) -> None:
        """Validation loss of the model as it stands, into this step's record (every rank, same step)."""
        self.progress(current.step, "evaluation")
        evaluating = time.perf_counter()
        self.last_val_loss = self.evaluator.loss(self.state.model)  # type: ignore[union-attr]
        current.evaluation = Evaluation(self.last_val_loss, time.perf_counter() - evaluating)

    def _snapshot(self, step: int, last: bool = False) -> None:
        """The snapshot the manager said is due: every step before it on disk first."""
        self.progress(step, "snapshot")
        injected_faults.point("train.snapshot", step=step)  # test-only; inert in a real run
        self.reports.flush()  # every step up to the snapshot is on disk before the snapshot is
        self.snapshots.save(self.state, step, last)
