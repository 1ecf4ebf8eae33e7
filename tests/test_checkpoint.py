"""Snapshots: atomic, verified, pruned, loaded without pickle's code execution."""

from __future__ import annotations

import logging
import os

import pytest
import torch

from app.common.errors import UsageError
from app.train.checkpoint import Checkpointer


def state(step: int) -> dict:
    return {"model": {"w": torch.full((4,), float(step))}, "position": {"step": step}}


def test_saved_snapshot_loads_back_with_a_checksum_sha256sum_can_verify(tmp_path):
    checkpointer = Checkpointer(tmp_path, keep=3)
    path = checkpointer.save(state(5), step=5)
    assert path.name == "step-00000005.pt"
    digest, name = (tmp_path / "step-00000005.pt.sha256").read_text().split()
    assert name == path.name and len(digest) == 64
    loaded, loaded_path = checkpointer.load_latest()
    assert loaded_path == path and torch.equal(loaded["model"]["w"], torch.full((4,), 5.0))


def test_only_the_newest_k_snapshots_are_kept(tmp_path):
    checkpointer = Checkpointer(tmp_path, keep=2)
    for step in (10, 20, 30):
        checkpointer.save(state(step), step)
    assert [p.name for p in checkpointer.snapshots()] == ["step-00000030.pt", "step-00000020.pt"]
    assert sorted(p.name for p in tmp_path.glob("*.sha256")) == ["step-00000020.pt.sha256", "step-00000030.pt.sha256"]


def test_a_truncated_newest_snapshot_falls_back_to_the_previous_with_a_warning(tmp_path, caplog):
    checkpointer = Checkpointer(tmp_path, keep=3)
    checkpointer.save(state(10), 10)
    newest = checkpointer.save(state(20), 20)
    with newest.open("r+b") as file:
        file.truncate(newest.stat().st_size // 2)
    with caplog.at_level(logging.WARNING):
        loaded, _ = checkpointer.load_latest()
    assert loaded["position"]["step"] == 10
    assert "step-00000020.pt is unusable" in caplog.text and "truncated or corrupted" in caplog.text


def test_a_snapshot_whose_write_did_not_finish_is_not_used(tmp_path, caplog):
    checkpointer = Checkpointer(tmp_path, keep=3)
    checkpointer.save(state(10), 10)
    unfinished = checkpointer.save(state(20), 20)
    (tmp_path / (unfinished.name + ".sha256")).unlink()  # killed between the two renames
    with caplog.at_level(logging.WARNING):
        loaded, _ = checkpointer.load_latest()
    assert loaded["position"]["step"] == 10
    assert "checksum file" in caplog.text


def test_no_temporary_files_are_left_behind(tmp_path):
    Checkpointer(tmp_path, keep=1).save(state(1), 1)
    assert sorted(os.listdir(tmp_path)) == ["step-00000001.pt", "step-00000001.pt.sha256"]


class Exploit:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_a_snapshot_holding_arbitrary_python_objects_is_refused(tmp_path, caplog):
    """weights_only=True: a snapshot cannot run code on load, even with a valid checksum."""
    checkpointer = Checkpointer(tmp_path, keep=3)
    path = checkpointer.save({"model": {}, "payload": Exploit()}, 7)
    with caplog.at_level(logging.WARNING):
        assert checkpointer.load_latest() is None
    assert "does not load" in caplog.text and path.name in caplog.text


def test_a_background_snapshot_holds_the_state_at_the_call_not_what_training_does_next(tmp_path):
    live = {"model": {"w": torch.zeros(1 << 20)}, "optimizer": {"state": {0: {"exp_avg": torch.ones(8)}},
                                                                "param_groups": [{"lr": 0.1, "params": [0]}]}}
    checkpointer = Checkpointer(tmp_path, keep=3)
    copy_s = checkpointer.save_in_background(live, step=7)
    live["model"]["w"].add_(1.0)  # the next optimizer step, while the write may still be in flight
    live["optimizer"]["state"][0]["exp_avg"].mul_(3.0)
    live["optimizer"]["param_groups"][0]["lr"] = 0.5
    checkpointer.wait()
    loaded, path = checkpointer.load_latest()
    assert path.name == "step-00000007.pt" and copy_s >= 0
    assert torch.equal(loaded["model"]["w"], torch.zeros(1 << 20))
    assert torch.equal(loaded["optimizer"]["state"][0]["exp_avg"], torch.ones(8))
    assert loaded["optimizer"]["param_groups"][0]["lr"] == 0.1


def test_a_background_write_that_fails_stops_the_run_at_the_next_snapshot_with_one_line(tmp_path):
    checkpointer = Checkpointer(tmp_path / "file-not-dir", keep=3)
    (tmp_path / "file-not-dir").write_text("")
    checkpointer.save_in_background(state(3), step=3)
    with pytest.raises(UsageError, match=r"could not be written .*give another snapshot.dir"):
        checkpointer.wait()


def test_back_to_back_background_snapshots_each_hold_their_own_step(tmp_path):
    """The second copy reuses the first copy's memory (already written): each file keeps its own values."""
    live = {"model": {"w": torch.zeros(1000)}}
    checkpointer = Checkpointer(tmp_path, keep=3)
    checkpointer.save_in_background(live, step=1)
    first_copy = checkpointer._copy["model"]["w"]
    live["model"]["w"].fill_(2.0)
    checkpointer.save_in_background(live, step=2)
    assert checkpointer._copy["model"]["w"].data_ptr() == first_copy.data_ptr()
    live["model"]["w"].fill_(3.0)
    checkpointer.wait()
    by_step = {p.name: torch.load(p, weights_only=True)["model"]["w"] for p in checkpointer.snapshots()}
    assert torch.equal(by_step["step-00000001.pt"], torch.zeros(1000))
    assert torch.equal(by_step["step-00000002.pt"], torch.full((1000,), 2.0))
