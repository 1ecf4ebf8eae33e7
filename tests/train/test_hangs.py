"""The summary of a hang and the watchdog that writes it (naming the rank: tests/common/test_watchdog.py; the
fault switch that makes one: tests/common/test_injected_faults.py)."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from app.common.distributed import DistContext
from app.common.watchdog import Verdict
from app.train import summary
from app.train.assemble import _watch_for_hangs
from app.train.plan import Position
from app.train.step_reports import StepReports, StepResult
from app.train.summary import write_hang_summary
from tests.bounded import within


def test_the_first_hang_report_of_an_attempt_stands(tmp_path):
    """A frozen node woken by the scheduler's SIGCONT during teardown finds everyone gone and blames rank 0;
    that late report must not replace the one the survivors wrote (the job scripts leave its nodes out)."""
    attempt_started = time.time() - 60
    assert write_hang_summary(tmp_path, "hang: rank 2 (node2) stopped answering", [2], ["node2"], 236, 4,
                              attempt_started=attempt_started)
    assert not write_hang_summary(tmp_path, "hang: rank 0 stopped answering", [0], ["node1"], 236, 4,
                                  attempt_started=attempt_started)
    assert json.loads((tmp_path / "summary.json").read_text())["hang"]["hosts"] == ["node2"]
    assert (tmp_path / "nodes-to-exclude.txt").read_text() == "node2\n"
    # A later attempt's own hang is reported
    assert write_hang_summary(tmp_path, "hang: rank 1 (node3) ...", [1], ["node3"], 300, 4,
                              attempt_started=time.time() + 1)


@pytest.mark.parametrize("earlier", [b"[]", b'"hung"', b"\xff\xfe", b"[" * 100_000])
def test_a_summary_that_is_not_the_trainers_does_not_stop_the_hang_report(tmp_path, earlier):
    (tmp_path / "summary.json").write_bytes(earlier)
    assert write_hang_summary(tmp_path, "hang: rank 2 (node2) stopped answering", [2], ["node2"], 236, 4,
                              attempt_started=time.time() - 60)
    assert json.loads((tmp_path / "summary.json").read_text())["hang"]["hosts"] == ["node2"]


def test_a_fifo_left_as_the_summary_does_not_hold_the_hang_report(tmp_path):
    os.mkfifo(tmp_path / "summary.json")
    with within(5):
        assert write_hang_summary(tmp_path, "hang: rank 2 (node2) stopped answering", [2], ["node2"], 236, 4,
                                  attempt_started=time.time() - 60)
    assert json.loads((tmp_path / "summary.json").read_text())["hang"]["hosts"] == ["node2"]


def test_a_hang_whose_summary_meets_a_full_disk_says_so_in_one_line(tmp_path, monkeypatch, caplog):
    """The hang is still the run's end (exit 4 from the watchdog); the write's failure is the storage line, not a
    traceback that the process's exit would swallow."""
    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(summary, "write_text_atomic", full)
    config = SimpleNamespace(dist=SimpleNamespace(hang_timeout_s=60.0, timeout_s=120.0))
    ctx = DistContext(rank=0, local_rank=0, world_size=2, device=torch.device("cpu"), backend="gloo",
                      launcher="torchrun")
    reports = SimpleNamespace(write_finished=lambda: None, flush=lambda: None, outputs=None, completed_step=7)
    dog = _watch_for_hangs(config, ctx, dist.HashStore(), tmp_path, None, reports, ["node1", "node2"])
    try:
        dog.on_hang(Verdict([1], "rank 1 (node2) stopped answering", 0), True)
    finally:
        dog.stop()
    errors = [record.getMessage() for record in caplog.records if record.levelname == "ERROR"]
    assert errors[-1].startswith("the run's records") and f"no space left on the file system of {tmp_path}" in \
        errors[-1], errors


class WritingOutputs:
    """Run outputs whose writing of a line can be held (a slow file system), and which note a flush that came
    while a line was half written."""

    def __init__(self) -> None:
        self.lines: list[int] = []
        self.in_write, self.release = threading.Event(), threading.Event()
        self.flushed_mid_line: list[bool] = []

    def step(self, record) -> None:
        self.in_write.set()
        self.release.wait(10)
        self.lines.append(record.step)
        self.in_write.clear()

    def flush(self) -> None:
        self.flushed_mid_line.append(self.in_write.is_set())


def test_the_hang_reporters_flush_waits_for_the_line_the_training_thread_is_writing(tmp_path):
    """The training thread writes step 1's line when the watchdog finds a hang: the watchdog's flush comes after
    that line, not in the middle of it (the run's files are one thread's at a time)."""
    config = SimpleNamespace(dist=SimpleNamespace(hang_timeout_s=60.0, timeout_s=120.0))
    ctx = DistContext(rank=0, local_rank=0, world_size=2, device=torch.device("cpu"), backend="gloo",
                      launcher="torchrun")
    outputs = WritingOutputs()
    reports = StepReports(SimpleNamespace(tokens_per_sample=0, dataset_size=100), ctx.device, outputs, start_step=0)
    reports.hold(StepResult(torch.tensor([2.0, 0.0]), torch.tensor(1.0), reports.clock.mark(), step=1,
                            position=Position(1, 0, 2), lr=0.1, global_samples=2))
    training = threading.Thread(target=reports.report_held)
    training.start()
    assert outputs.in_write.wait(10)
    dog = _watch_for_hangs(config, ctx, dist.HashStore(), tmp_path, None, reports, ["node1", "node2"])
    hang = threading.Thread(target=dog.on_hang, args=(Verdict([1], "rank 1 (node2) stopped answering", 0), True))
    try:
        hang.start()
        hang.join(0.5)
        outputs.release.set()
        hang.join(10)
        training.join(10)
    finally:
        dog.stop()
    assert outputs.lines == [1] and outputs.flushed_mid_line == [False]
