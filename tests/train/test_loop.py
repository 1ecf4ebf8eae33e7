"""The training loop in this process at world size one (tests/train/in_process.py): resume exactness,
a stop signal, evaluation and snapshot order, epochs rolling over. Seconds each, no subprocess."""

from __future__ import annotations

import json
import sys
from collections import Counter

import pytest

from app.train.snapshot import SnapshotManager, layout
from tests.train.in_process import metrics, params, train_here

# The demo GPT with dropout: a resumed run must also draw the random numbers the uninterrupted one drew.
DEMO = ["train.max_steps=16", "model.dropout=0.1", "train.eval_every=0"]


@pytest.mark.slow  # three runs of the demo GPT
def test_a_run_stopped_at_a_snapshot_and_resumed_ends_bit_identical_with_every_step_once(tmp_path):
    train_here(tmp_path / "reference", *DEMO, config="demo")
    first = train_here(tmp_path / "resumed", *DEMO[1:], "train.max_steps=6", "snapshot.every=3", config="demo")
    assert first.status == "completed" and first.position.step == 6
    then = train_here(tmp_path / "resumed", *DEMO, "snapshot.every=3", config="demo")
    assert then.steps_run == 10
    assert params(tmp_path / "resumed") == params(tmp_path / "reference")
    assert [r["step"] for r in metrics(tmp_path / "resumed")] == list(range(1, 17))


@pytest.mark.slow  # three runs of the demo GPT a case
@pytest.mark.parametrize(("signal_at", "snapshot_every", "stops_after"), [
    (5, 100, 6),  # arrives before the step's statistics leave: read with them one step later
    (5, 4, 6),  # the first step after a snapshot: no extra delay
    (4, 4, 4),  # at a snapshot step: that step's own snapshot
])
def test_a_stop_signal_ends_the_run_within_the_step_after_it_with_a_snapshot_and_the_rerun_matches(
        tmp_path, monkeypatch, signal_at, snapshot_every, stops_after):
    train_here(tmp_path / "reference", *DEMO, config="demo")
    monkeypatch.setenv("APP_TRAIN_FAULT", f"usr1@rank0:step{signal_at}")  # SIGUSR1 to this process then
    stopped = train_here(tmp_path / "stopped", *DEMO, f"snapshot.every={snapshot_every}", config="demo")
    assert (stopped.status, stopped.signal_name, stopped.position.step) == ("preempted", "SIGUSR1", stops_after)
    assert layout.listing(tmp_path / "stopped" / "snapshots")[0].name == f"step-{stops_after:08d}.pt"
    monkeypatch.delenv("APP_TRAIN_FAULT")
    finished = train_here(tmp_path / "stopped", *DEMO, f"snapshot.every={snapshot_every}", config="demo")
    assert finished.status == "completed" and finished.steps_run == 16 - stops_after
    assert params(tmp_path / "stopped") == params(tmp_path / "reference")
    assert [r["step"] for r in metrics(tmp_path / "stopped")] == list(range(1, 17))


def test_evaluation_and_snapshots_come_when_due_each_after_its_steps_line(tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    on_disk_at_snapshot = {}
    save = SnapshotManager.save

    def noting_the_last_line(self, state, step, last=False):  # type: ignore[no-untyped-def]
        if self.due(step, last):
            on_disk_at_snapshot[step] = metrics(run_dir)[-1]["step"]
        return save(self, state, step, last)

    monkeypatch.setattr(SnapshotManager, "save", noting_the_last_line)
    train_here(run_dir, "train.max_steps=10", "train.eval_every=4", "snapshot.every=5", config="demo")
    assert [r["step"] for r in metrics(run_dir) if "val_loss" in r] == [4, 8, 10]  # every 4 steps and the last
    assert [p.name for p in layout.listing(run_dir / "snapshots")] == ["step-00000010.pt", "step-00000005.pt"]
    # Each snapshot after its step's metrics line is on disk: a kill right after it leaves no hole.
    assert on_disk_at_snapshot == {5: 5, 10: 10}


def test_the_loop_asks_once_a_step_whether_a_snapshot_is_due_and_once_at_the_end(tmp_path, monkeypatch):
    """The manager decides; the loop asks it once and acts on the answer (evaluation steps included)."""
    asked: Counter[tuple[int, bool]] = Counter()
    due = SnapshotManager.due

    def counting(self, step, last=False):  # type: ignore[no-untyped-def]
        if sys._getframe(1).f_globals["__name__"] == "app.train.loop":
            asked[step, last] += 1
        return due(self, step, last)

    monkeypatch.setattr(SnapshotManager, "due", counting)
    train_here(tmp_path / "run", "train.max_steps=10", "train.eval_every=4", "snapshot.every=5")
    assert asked == Counter({**{(step, False): 1 for step in range(1, 11)}, (10, True): 1})
    assert [p.name for p in layout.listing(tmp_path / "run" / "snapshots")] == ["step-00000010.pt", "step-00000005.pt"]


@pytest.mark.parametrize("stop_at", [64, 70])  # the last step of epoch 0, and one in epoch 1
def test_a_run_resumed_at_or_across_an_epoch_boundary_sees_each_sample_once_per_epoch(tmp_path, stop_at):
    """regression: 2048 samples, batch 32: 64 steps an epoch at world size one."""
    train_here(tmp_path / "reference", "train.max_steps=100")
    train_here(tmp_path / "resumed", f"train.max_steps={stop_at}")
    resumed = train_here(tmp_path / "resumed", "train.max_steps=100")
    assert resumed.position.epoch == 1 and resumed.steps_run == 100 - stop_at
    assert params(tmp_path / "resumed") == params(tmp_path / "reference")
    epochs = [r["epoch"] for r in metrics(tmp_path / "resumed")]
    assert epochs == [0] * 64 + [1] * 36
    samples = [r["samples"] for r in metrics(tmp_path / "resumed")]
    assert samples[63] == 2048 and samples[-1] == 2048 + 36 * 32  # epoch 1 starts at its first sample


def test_rerunning_a_finished_run_in_process_changes_nothing(tmp_path):
    train_here(tmp_path, "train.max_steps=5")
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    again = train_here(tmp_path, "train.max_steps=5")
    assert (again.status, again.steps_run, again.position.step) == ("completed", 0, 5)
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()} == before
    assert json.loads((tmp_path / "summary.json").read_text())["step"] == 5
