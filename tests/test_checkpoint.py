"""Snapshots: atomic, verified, pruned, loaded without pickle's code execution."""

from __future__ import annotations

import logging
import os

import torch

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
