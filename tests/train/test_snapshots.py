"""Snapshots: atomic, verified, pruned, loaded without pickle's code execution; the manager decides when
one is due, which one a run resumes from, and refuses one that does not fit."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
import torch

from app.common.typedconfig import load_config
from app.host.common.errors import UsageError
from app.train.config import Config
from app.train.plan import Position, RunPlan
from app.train.snapshot import SnapshotManager, layout
from app.train.snapshot.writers import SingleFileWriter
from app.train.state import TrainingState
from tests.bounded import within


def state(step: int) -> dict:
    return {"model": {"w": torch.full((4,), float(step))}, "position": {"step": step}}


class FileSnapshots:
    """A single-file writer pruning to `keep`, as the manager has it, and the layout's reading: the parts
    these tests exercise, without a training state."""

    def __init__(self, directory: Path, keep: int) -> None:
        self.directory = directory
        self.writer = SingleFileWriter(directory, lambda written: SnapshotManager(directory, keep=keep)._prune(written))
        self.save, self.save_in_background, self.wait = self.writer.write, self.writer.start, self.writer.wait

    def listing(self) -> list[Path]:
        return layout.listing(self.directory)

    def load_latest(self):  # type: ignore[no-untyped-def]
        found = layout.read_newest(self.directory)
        return None if found is None else (found.contents, found.path)


def test_saved_snapshot_loads_back_with_a_checksum_sha256sum_can_verify(tmp_path):
    snapshots = FileSnapshots(tmp_path, keep=3)
    path = snapshots.save(state(5), step=5)
    assert path.name == "step-00000005.pt"
    digest, name = (tmp_path / "step-00000005.pt.sha256").read_text().split()
    assert name == path.name and len(digest) == 64
    loaded, loaded_path = snapshots.load_latest()
    assert loaded_path == path and torch.equal(loaded["model"]["w"], torch.full((4,), 5.0))


def test_only_the_newest_k_snapshots_are_kept(tmp_path):
    snapshots = FileSnapshots(tmp_path, keep=2)
    for step in (10, 20, 30):
        snapshots.save(state(step), step)
    assert [p.name for p in snapshots.listing()] == ["step-00000030.pt", "step-00000020.pt"]
    assert sorted(p.name for p in tmp_path.glob("*.sha256")) == ["step-00000020.pt.sha256", "step-00000030.pt.sha256"]


def test_a_truncated_newest_snapshot_falls_back_to_the_previous_with_a_warning(tmp_path, caplog):
    snapshots = FileSnapshots(tmp_path, keep=3)
    snapshots.save(state(10), 10)
    newest = snapshots.save(state(20), 20)
    with newest.open("r+b") as file:
        file.truncate(newest.stat().st_size // 2)
    with caplog.at_level(logging.WARNING):
        loaded, _ = snapshots.load_latest()
    assert loaded["position"]["step"] == 10
    assert "step-00000020.pt is unusable" in caplog.text and "truncated or corrupted" in caplog.text


def test_a_snapshot_whose_write_did_not_finish_is_not_used(tmp_path, caplog):
    snapshots = FileSnapshots(tmp_path, keep=3)
    snapshots.save(state(10), 10)
    unfinished = snapshots.save(state(20), 20)
    (tmp_path / (unfinished.name + ".sha256")).unlink()  # killed between the two renames
    with caplog.at_level(logging.WARNING):
        loaded, _ = snapshots.load_latest()
    assert loaded["position"]["step"] == 10
    assert "checksum file" in caplog.text


def test_no_temporary_files_are_left_behind(tmp_path):
    FileSnapshots(tmp_path, keep=1).save(state(1), 1)
    assert sorted(os.listdir(tmp_path)) == ["step-00000001.pt", "step-00000001.pt.sha256"]


class Exploit:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_a_snapshot_holding_arbitrary_python_objects_is_refused(tmp_path, caplog):
    """weights_only=True: a snapshot cannot run code on load, even with a valid checksum."""
    snapshots = FileSnapshots(tmp_path, keep=3)
    path = snapshots.save({"model": {}, "payload": Exploit()}, 7)
    with caplog.at_level(logging.WARNING):
        assert snapshots.load_latest() is None
    assert "does not load" in caplog.text and path.name in caplog.text


def test_a_background_snapshot_holds_the_state_at_the_call_not_what_training_does_next(tmp_path):
    live = {"model": {"w": torch.zeros(1 << 20)}, "optimizer": {"state": {0: {"exp_avg": torch.ones(8)}},
                                                                "param_groups": [{"lr": 0.1, "params": [0]}]}}
    snapshots = FileSnapshots(tmp_path, keep=3)
    copy_s = snapshots.save_in_background(live, step=7)
    live["model"]["w"].add_(1.0)  # the next optimizer step, while the write may still be in flight
    live["optimizer"]["state"][0]["exp_avg"].mul_(3.0)
    live["optimizer"]["param_groups"][0]["lr"] = 0.5
    snapshots.wait()
    loaded, path = snapshots.load_latest()
    assert path.name == "step-00000007.pt" and copy_s >= 0
    assert torch.equal(loaded["model"]["w"], torch.zeros(1 << 20))
    assert torch.equal(loaded["optimizer"]["state"][0]["exp_avg"], torch.ones(8))
    assert loaded["optimizer"]["param_groups"][0]["lr"] == 0.1


def test_a_background_write_that_fails_stops_the_run_at_the_next_snapshot_with_one_line(tmp_path):
    snapshots = FileSnapshots(tmp_path / "file-not-dir", keep=3)
    (tmp_path / "file-not-dir").write_text("")
    snapshots.save_in_background(state(3), step=3)
    with pytest.raises(UsageError, match=r"could not be written .*give another snapshot.dir"):
        snapshots.wait()


def test_back_to_back_background_snapshots_each_hold_their_own_step(tmp_path):
    """The second copy reuses the first copy's memory (already written): each file keeps its own values."""
    live = {"model": {"w": torch.zeros(1000)}}
    snapshots = FileSnapshots(tmp_path, keep=3)
    snapshots.save_in_background(live, step=1)
    first_copy = snapshots.writer._copy["model"]["w"]
    live["model"]["w"].fill_(2.0)
    snapshots.save_in_background(live, step=2)
    assert snapshots.writer._copy["model"]["w"].data_ptr() == first_copy.data_ptr()
    live["model"]["w"].fill_(3.0)
    snapshots.wait()
    by_step = {p.name: torch.load(p, weights_only=True)["model"]["w"] for p in snapshots.listing()}
    assert torch.equal(by_step["step-00000001.pt"], torch.zeros(1000))
    assert torch.equal(by_step["step-00000002.pt"], torch.full((1000,), 2.0))


def training_state(width: int = 4) -> TrainingState:
    config = load_config(Config, None, ["workload.name=regression"])
    model = torch.nn.Linear(width, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return TrainingState(model=model, optimizer=optimizer,
                         scheduler=torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0),
                         scaler=torch.amp.GradScaler("cpu", enabled=False),
                         plan=RunPlan.build(config, 64, 1, torch.device("cpu"), Position()), config={})


def test_the_manager_snapshots_every_n_steps_and_at_the_end_but_never_twice_at_one_step(tmp_path):
    manager = SnapshotManager(tmp_path, keep=10, every=4, background=False)
    live = training_state()
    written = [step for step in range(1, 11) if manager.save(live, step)]
    assert written == [4, 8]
    assert manager.save(live, 10, last=True) and not manager.save(live, 10, last=True)
    assert [layout.step_of(p) for p in layout.listing(tmp_path)] == [10, 8, 4]


def test_pruning_keeps_the_newest_of_either_kind(tmp_path):
    """A run that switched dist.strategy keeps `snapshot.keep` snapshots in all, not per kind."""
    for step in (1, 3):
        (layout.sharded_path(tmp_path, step)).mkdir()
    manager = SnapshotManager(tmp_path, keep=2, every=1, background=False)
    manager.save(training_state(), 2)
    manager.save(training_state(), 4)
    assert [p.name for p in layout.listing(tmp_path)] == ["step-00000004.pt", "step-00000003"]


def test_resume_never_refuses_a_directory_with_snapshots_and_required_one_without(tmp_path):
    SnapshotManager(tmp_path / "some", keep=2, background=False).save(training_state(), 7, last=True)
    with pytest.raises(UsageError, match=r"snapshot.resume=never but .* step-00000007.pt.*give another run.dir"):
        SnapshotManager(tmp_path / "some", keep=2).to_resume("never")
    with pytest.raises(UsageError, match=r"snapshot.resume=required but .* holds no valid snapshot"):
        SnapshotManager(tmp_path / "none", keep=2).to_resume("required")
    assert SnapshotManager(tmp_path / "none", keep=2).to_resume("auto") is None


def test_a_snapshot_restores_model_optimizer_and_position_and_one_of_another_model_is_one_line(tmp_path):
    written = training_state()
    with torch.no_grad():
        written.model.weight.fill_(0.5)
    written.position = Position(7, 0, 224)
    SnapshotManager(tmp_path, keep=2, background=False).save(written, 7, last=True)
    manager = SnapshotManager(tmp_path, keep=2)
    resumed = training_state()
    manager.restore(resumed, manager.to_resume("auto"))
    assert resumed.position == Position(7, 0, 224) and torch.equal(resumed.model.weight, written.model.weight)
    assert manager.last_step == 7 and not manager.due(7, last=True)  # a stop right away writes nothing new
    with pytest.raises(UsageError, match=r"step-00000007.pt does not fit this model/optimizer \(.*size mismatch"):
        manager.restore(training_state(width=8), manager.to_resume("auto"))


def sharded_snapshot(directory: Path, step: int, manifest: object, files: dict[str, bytes] | None = None) -> Path:
    """A sharded snapshot's directory as someone else may have left it: these files and this manifest."""
    path = layout.sharded_path(directory, step)
    path.mkdir()
    for name, data in {layout.EXTRAS: b'{"position": {"step": %d}}' % step, **(files or {})}.items():
        (path / name).write_bytes(data)
    (path / layout.MANIFEST).write_text(json.dumps(manifest))
    return path


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


OUTSIDE_OR_ENDLESS = {
    "a device": lambda snapshot: {"/dev/zero": "0" * 64},
    "a name above the snapshot": lambda snapshot: {"../step-00000010.pt": layout.sha256_of(
        snapshot.parent / "step-00000010.pt")},
    "a link out of the snapshot": lambda snapshot: {
        "weights": layout.sha256_of(snapshot.parent / "step-00000010.pt"),
        "_link": (snapshot / "weights").symlink_to(snapshot.parent / "step-00000010.pt")},
    "a FIFO": lambda snapshot: {"weights": "0" * 64, "_fifo": fifo(snapshot / "weights")},
    "a list, not a mapping": lambda snapshot: [],
    "a digest that is not a string": lambda snapshot: {layout.EXTRAS: 5},
    "a name no file system can hold": lambda snapshot: {"\ud800": "0" * 64},
}


@pytest.mark.parametrize("manifest", OUTSIDE_OR_ENDLESS.values(), ids=OUTSIDE_OR_ENDLESS.keys())
def test_a_sharded_snapshot_whose_manifest_reaches_outside_it_or_never_ends_is_skipped(tmp_path, caplog, manifest):
    """The manifest names files of the snapshot: plain files inside its directory, nothing else is read."""
    FileSnapshots(tmp_path, keep=3).save(state(10), 10)
    snapshot = sharded_snapshot(tmp_path, 20, {})
    recorded = manifest(snapshot)
    if isinstance(recorded, dict):
        recorded = {name: digest for name, digest in recorded.items() if not name.startswith("_")}
    (snapshot / layout.MANIFEST).write_text(json.dumps(recorded))
    with caplog.at_level(logging.WARNING), within(5):
        found = layout.read_newest(tmp_path)
    assert found is not None and found.path.name == "step-00000010.pt"
    assert "step-00000020 is unusable" in caplog.text


CHECKSUMS = {"not UTF-8": lambda path: path.write_bytes(b"\xff\xfe" * 40 + b"  step-00000020.pt\n"),
             "a FIFO": fifo}


@pytest.mark.parametrize("checksum", CHECKSUMS.values(), ids=CHECKSUMS.keys())
def test_a_checksum_file_that_is_not_text_or_not_a_file_falls_back_to_the_previous_snapshot(tmp_path, caplog,
                                                                                             checksum):
    snapshots = FileSnapshots(tmp_path, keep=3)
    snapshots.save(state(10), 10)
    newest = snapshots.save(state(20), 20)
    layout.checksum_path(newest).unlink()
    checksum(layout.checksum_path(newest))
    with caplog.at_level(logging.WARNING), within(5):
        loaded, _ = snapshots.load_latest()
    assert loaded["position"]["step"] == 10
    assert "step-00000020.pt is unusable" in caplog.text


def test_a_manifest_name_is_quoted_in_the_warning_so_it_cannot_write_log_lines_of_its_own(tmp_path, caplog):
    FileSnapshots(tmp_path, keep=3).save(state(10), 10)
    sharded_snapshot(tmp_path, 20, {"w\n12:00:00 INFO resuming from step-00000020 at step 20": "0" * 64})
    with caplog.at_level(logging.WARNING):
        found = layout.read_newest(tmp_path)
    assert found is not None and found.path.name == "step-00000010.pt"
    (warning,) = [r.getMessage() for r in caplog.records if "step-00000020" in r.getMessage()]
    assert "\n" not in warning and "'w\\n12:00:00 INFO resuming" in warning


def test_the_resume_line_counts_epochs_from_1_as_the_progress_lines_do(tmp_path, caplog):
    manager = SnapshotManager(tmp_path, keep=2, every=1, background=False)
    written = training_state()
    written.position = Position(step=3, epoch=0, offset=24)  # three steps into the first epoch
    manager.save(written, 3)
    resumed = training_state()
    with caplog.at_level(logging.INFO):
        manager.restore(resumed, manager.to_resume("required"))
    assert "at step 3 (epoch 1, sample 24)" in caplog.text, caplog.text
