"""A batch log's progress lines: when each was written, how long the run has left, the epoch counted from 1."""

from __future__ import annotations

import io
import logging

import pytest

from app.train.metrics import ProgressDisplay


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(step: int, epoch: int) -> dict:
    return {"step": step, "epoch": epoch, "loss": 2.5, "lr": 1e-3, "samples_per_s": 100.0, "step_time_s": 0.5}


def lines_of(display: ProgressDisplay, clock: Clock, steps: range, epoch_of, caplog) -> list[str]:
    with caplog.at_level(logging.INFO, logger="app.train.progress"):
        for step in steps:
            clock.now += 2.0  # two seconds a step
            display.update(record(step, epoch_of(step)))
    return [r.getMessage() for r in caplog.records if r.name == "app.train.progress"]


def test_a_batch_line_goes_through_the_log_so_it_carries_the_time_host_and_rank(caplog):
    clock = Clock()
    display = ProgressDisplay(40, 10, "lines", stream=io.StringIO(), clock=clock, epochs=2)
    lines = lines_of(display, clock, range(1, 21), lambda step: 0 if step <= 20 else 1, caplog)
    assert [line.split(" |")[0] for line in lines] == ["step 10/40", "step 20/40"]


def test_the_eta_is_the_remaining_steps_at_this_attempts_pace():
    clock = Clock()
    display = ProgressDisplay(40, 10, "lines", stream=io.StringIO(), start_step=10, clock=clock, epochs=2)
    display.update(record(11, 0))  # the first step of an attempt (compilation, warm-up) sets no pace
    clock.now += 30.0
    line = display.line(record(20, 0))  # 9 steps in 30 s since step 11: 20 steps left take 66.7 s
    assert "| ETA 0:01:07 |" in line or line.endswith("| ETA 0:01:07")


def test_no_eta_before_a_pace_is_known():
    display = ProgressDisplay(40, 10, "lines", stream=io.StringIO(), clock=Clock(), epochs=1)
    assert "ETA" not in display.line(record(1, 0))


@pytest.mark.parametrize(("epoch", "shown"), [(0, "epoch 1/2"), (1, "epoch 2/2")])
def test_epochs_are_counted_from_one_of_the_planned_number(epoch, shown):
    display = ProgressDisplay(40, 10, "lines", stream=io.StringIO(), clock=Clock(), epochs=2)
    assert f"| {shown} |" in display.line(record(5, epoch))


@pytest.mark.parametrize(("epoch", "offset", "number"), [
    (0, 0, 1),     # no step yet: the first epoch
    (0, 640, 1),   # within the first epoch
    (1, 0, 1),     # the first epoch's last step done: the position points at the next epoch's start
    (1, 32, 2),
])
def test_the_summary_names_the_epoch_of_the_last_step_as_the_progress_lines_do(epoch, offset, number):
    from app.train.plan import Position

    assert Position(step=10, epoch=epoch, offset=offset).epoch_number == number
