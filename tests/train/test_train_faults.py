"""Test-only faults stay off the trainer's production path: APP_TRAIN_FAULT is read once, when the run is
assembled, into the one registry (app/common/faults.py); the production code only passes inert fault points."""

from __future__ import annotations

import inspect
import signal

import pytest

from app.common import faults as registry
from app.train import faults
from app.train.optimizer_step import OptimizerStep


@pytest.fixture
def usr1_received():
    received: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: received.append(signum))
    yield received
    signal.signal(signal.SIGUSR1, previous)
    faults.install({}, 0, "node7")


def test_an_unarmed_fault_point_does_nothing_and_passes_its_value_through(usr1_received):
    faults.install({}, 0, "node7")
    assert registry.fault_point("train.step", step=3) is None
    assert registry.fault_point("check.contribution", [1, 2]) == [1, 2]
    assert usr1_received == []


def test_the_variable_is_read_once_at_install_and_arms_only_the_named_step(usr1_received, monkeypatch):
    environment = {"APP_TRAIN_FAULT": "usr1@rank0:step3"}
    assert faults.install(environment, 0, "node7") == faults.Fault("usr1", 0, 3)
    environment.clear()  # read once: a later change is not seen until the next run installs again
    monkeypatch.delenv("APP_TRAIN_FAULT", raising=False)
    registry.fault_point("train.step", step=2)
    registry.fault_point("train.snapshot", step=3)
    assert usr1_received == []
    registry.fault_point("train.step", step=3)
    assert usr1_received == [signal.SIGUSR1]
    faults.install({"APP_TRAIN_FAULT": "usr1@rank1:step3"}, 0, "node7")  # another rank's: this one disarmed
    registry.fault_point("train.step", step=3)
    assert usr1_received == [signal.SIGUSR1]


def test_the_optimizer_step_takes_no_fault():
    assert "fault" not in inspect.signature(OptimizerStep).parameters
