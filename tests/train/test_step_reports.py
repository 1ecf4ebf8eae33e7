"""The step a hang summary names: the last one whose figures came back from the device, which on a GPU
can be one behind the step the host has queued (seen on an H200: the host had queued step 7 when the
other rank froze, step 7's all-reduce never finished, and the summary said 7 while metrics.jsonl ended at 6)."""

from __future__ import annotations

import threading
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


class SlowOutputs:
    """Run outputs whose writing of one step's line can be held, as a slow file system would hold it."""

    def __init__(self) -> None:
        self.lines: list[int] = []
        self.writing, self.release = threading.Event(), threading.Event()

    def step(self, record) -> None:
        self.writing.set()
        self.release.wait(10)
        self.lines.append(record.step)


def step_one_held() -> tuple[SlowOutputs, StepReports]:
    """Reports writing to SlowOutputs, holding step 1 (its figures in: the CPU has no device to wait for)."""
    plan = SimpleNamespace(tokens_per_sample=0, dataset_size=100)
    outputs = SlowOutputs()
    reports = StepReports(plan, torch.device("cpu"), outputs, start_step=0)
    reports.hold(result(reports, 1))
    return outputs, reports


def test_the_training_thread_waits_for_the_line_the_watchdog_is_writing_and_each_line_is_written_once():
    outputs, reports = step_one_held()
    watchdog = threading.Thread(target=reports.write_finished)
    watchdog.start()  # the watchdog writes step 1 while step 2 hangs...
    assert outputs.writing.wait(10)
    answered = []
    training = threading.Thread(target=lambda: answered.append(reports.report_held()))
    training.start()  # ...and the training thread wants step 1 on disk before a snapshot
    training.join(0.5)
    assert not answered, "the training thread went on before step 1's line was written"
    outputs.release.set()
    watchdog.join(10)
    training.join(10)
    assert outputs.lines == [1] and answered[0].step == 1 and not answered[0].stop_requested


def test_the_watchdog_never_waits_for_the_training_thread():
    outputs, reports = step_one_held()
    training = threading.Thread(target=reports.report_held)
    training.start()
    assert outputs.writing.wait(10)
    watchdog = threading.Thread(target=reports.write_finished)
    watchdog.start()
    watchdog.join(2)
    assert not watchdog.is_alive(), "the watchdog waited for the training thread's write"
    outputs.release.set()
    training.join(10)
    assert outputs.lines == [1]


def test_the_reported_step_carries_the_stop_request_the_loop_reads():
    plan = SimpleNamespace(tokens_per_sample=0, dataset_size=100)
    reports = StepReports(plan, torch.device("cpu"), None, start_step=0)
    asking = StepResult(torch.tensor([2.0, 1.0]), torch.tensor(1.0), reports.clock.mark(), step=1,
                        position=Position(1, 0, 2), lr=0.1, global_samples=2)
    assert reports.hold(asking) is None  # nothing was held before step 1
    reported = reports.hold(result(reports, 2))
    assert reported is asking and reported.stop_requested
    assert reports.report_held().stop_requested is False
