"""The run's files as a resumed run finds them (tests/train/in_process.py)."""

from __future__ import annotations

import json
import os

import pytest

from app.host.common.errors import UsageError
from tests.bounded import within
from tests.train.in_process import train_here


def test_a_metrics_file_cut_mid_line_resumes_and_drops_the_cut_record(tmp_path):
    """A node lost (or a full disk) while a metrics line was written leaves it cut short: the resumed run
    drops that one record and carries on."""
    train_here(tmp_path, "train.max_steps=10", "snapshot.every=5")
    metrics = tmp_path / "metrics.jsonl"
    lines = metrics.read_text().splitlines(keepends=True)
    metrics.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    resumed = train_here(tmp_path, "train.max_steps=15", "snapshot.every=5")
    assert resumed.steps_run == 5
    steps = [json.loads(line)["step"] for line in metrics.read_text().splitlines()]
    assert steps == [*range(1, 10), *range(11, 16)]


def fifo_instead_of(run_dir, name: str) -> None:
    (run_dir / name).unlink()
    os.mkfifo(run_dir / name)


@pytest.mark.parametrize("name", ["metrics.jsonl", "history.jsonl"])
def test_a_fifo_left_in_the_run_directory_stops_the_start_in_one_line_not_a_wait(tmp_path, name):
    train_here(tmp_path, "train.max_steps=2")
    fifo_instead_of(tmp_path, name)
    with within(20), pytest.raises(UsageError, match=f"{name}: a FIFO, where only a regular file is used"):
        train_here(tmp_path, "train.max_steps=4")


def test_a_fifo_left_as_the_summary_is_not_read_and_the_run_writes_its_own(tmp_path):
    train_here(tmp_path, "train.max_steps=2")
    fifo_instead_of(tmp_path, "summary.json")
    with within(20):
        assert train_here(tmp_path, "train.max_steps=4").steps_run == 2
    assert json.loads((tmp_path / "summary.json").read_text())["step"] == 4
