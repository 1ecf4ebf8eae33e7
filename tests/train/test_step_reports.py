"""The step a hang summary names: the last one whose figures came back from the device, which on a GPU
can be one behind the step the host has queued (seen on an H200: the host had queued step 7 when the
other rank froze, step 7's all-reduce never finished, and the summary said 7 while metrics.jsonl ended at 6)."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from app.train.metrics import StepClock
from app.train.plan import Position
from app.train.step_reports import StepReports, StepResult


class DeviceBehind(StepClock):
    """A CPU clock that says, as a GPU's events would, that the device has not yet reached `behind`."""

    def __init__(self) -> None:
        super().__init__(torch.device("cpu"))
        self.behind: float | None = None

    def reached(self, end) -> bool:
        return end != self.behind


def result(reports: StepReports, step: int) -> StepResult:
    return StepResult(torch.tensor([2.0 * step, 0.0]), torch.tensor(1.0), reports.clock.mark(), step=step,
                      position=Position(step, 0, 2 * step), lr=0.1, global_samples=2)


def test_the_completed_step_is_the_last_reported_one_and_the_attempts_start_before_any():
    plan = SimpleNamespace(tokens_per_sample=0, dataset_size=100)
    reports = StepReports(plan, torch.device("cpu"), None, start_step=20)
    reports.clock = clock = DeviceBehind()
    clock.restart()
    assert reports.completed_step == 20  # a resumed attempt that hangs in its first step
    reports.hold(result(reports, 21))
    assert reports.completed_step == 20  # held: its figures are read when the next step is queued
    queued = result(reports, 22)
    reports.hold(queued)
    assert reports.completed_step == 21
    clock.behind = queued.end  # the device is still in step 22 when a hang stops the run
    reports.write_finished()
    assert reports.completed_step == 21 and not queued.reported
    clock.behind = None  # step 22 finished, its successor hangs
    reports.write_finished()
    assert reports.completed_step == 22 and queued.reported
