"""Writing a snapshot when the disk fails: a full file system, a quota, an I/O error stop the run with the
storage exit code and one line naming the directory and the remedy, never as bad input (exit 2)."""

from __future__ import annotations

import errno
import os
import warnings

import pytest

from app.host.common import exitcodes
from app.host.common.errors import StorageError, UsageError
from app.train.snapshot import SnapshotManager
from tests.train.test_snapshots import training_state

_KINDS = {  # (sharded, background): every way a snapshot is written in a world of one
    "one file": (False, False),
    "one file, in the background": (False, True),
    "sharded": (True, False),
    "sharded, in the background": (True, True),
}


def _fsync_failing_with(code: int):
    def fsync(fd: int) -> None:
        raise OSError(code, os.strerror(code))

    return fsync


def _save_and_wait(tmp_path, sharded: bool, background: bool) -> None:
    manager = SnapshotManager(tmp_path / "snapshots", keep=2, every=1, background=background, sharded=sharded)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DCP without a process group says so
        manager.save(training_state(), 1)
        manager.wait()


@pytest.mark.parametrize(("sharded", "background"), _KINDS.values(), ids=_KINDS.keys())
def test_a_full_file_system_stops_the_run_with_the_storage_exit_code_and_the_remedy(tmp_path, monkeypatch,
                                                                                    sharded, background):
    monkeypatch.setattr(os, "fsync", _fsync_failing_with(errno.ENOSPC))
    with pytest.raises(StorageError) as stopped:
        _save_and_wait(tmp_path, sharded, background)
    assert not isinstance(stopped.value, UsageError)
    assert stopped.value.exit_code == exitcodes.STORAGE != exitcodes.USAGE
    message = str(stopped.value)
    assert "\n" not in message and "Traceback" not in message, message
    assert f"no space left on the file system of {tmp_path / 'snapshots'}" in message, message
    assert "free space there, or give another snapshot.dir, on a file system with room" in message, message


@pytest.mark.parametrize(("code", "said"), [
    (errno.EDQUOT, "disk quota exceeded"),
    (errno.EIO, "Input/output error"),
])
def test_a_quota_or_an_io_error_names_its_cause(tmp_path, monkeypatch, code, said):
    monkeypatch.setattr(os, "fsync", _fsync_failing_with(code))
    with pytest.raises(StorageError, match=said) as stopped:
        _save_and_wait(tmp_path, sharded=False, background=False)
    assert stopped.value.exit_code == exitcodes.STORAGE


@pytest.mark.parametrize(("sharded", "background"), _KINDS.values(), ids=_KINDS.keys())
def test_a_published_snapshot_survives_a_power_loss_its_directory_is_fsynced_after_the_rename(tmp_path, monkeypatch,
                                                                                           sharded, background):
    """A rename is durable only once the directory holding the new name is fsynced (rename(2), fsync(2)): a
    node that loses power after the rename alone may come back without the snapshot, or with its old name."""
    events: list[tuple[str, str]] = []
    real_fsync, real_rename, real_replace = os.fsync, os.rename, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def renaming(real):
        def rename(source, target, **kwargs) -> None:
            real(source, target, **kwargs)
            events.append(("rename", str(target)))
        return rename

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", renaming(real_rename))
    monkeypatch.setattr(os, "replace", renaming(real_replace))
    _save_and_wait(tmp_path, sharded, background)
    directory = tmp_path / "snapshots"
    published = str(directory / ("step-00000001" if sharded else "step-00000001.pt"))
    renamed = events.index(("rename", published))
    assert ("fsync", str(directory)) in events[renamed:], events


def _publish_on_a_full_disk(rank: int, directory: str, store_path: str, results: str, sharded: bool) -> None:
    """One rank of two (gloo): write a snapshot whose publish, rank 0's alone, finds no space: sharded, or one file
    that rank 0 writes in the background while rank 1 trains on."""
    import datetime
    from pathlib import Path

    import torch.distributed as dist

    from app.train.snapshot import writers

    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=60))
    if rank == 0:
        def no_space(path, text):  # type: ignore[no-untyped-def]
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        writers.write_text_atomic = no_space
    writer = writers.writer_for(Path(directory), lambda path: None, sharded=sharded, is_main=rank == 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            writer.save(training_state(), 1, background=not sharded)
            writer.wait()
        outcome = "written"
    except Exception as err:
        outcome = f"{type(err).__name__} {getattr(err, 'exit_code', '')}: {str(err).splitlines()[0]}"
    Path(results, str(rank)).write_text(outcome)
    dist.destroy_process_group()


@pytest.mark.slow  # two processes, each starting torch
@pytest.mark.parametrize("sharded", [True, False], ids=["sharded", "one file, in the background"])
def test_when_rank_0_cannot_publish_a_snapshot_every_rank_stops_with_the_storage_exit_code(tmp_path, sharded):
    """Rank 0 alone publishes: without a word from it the other ranks would wait in the next collective until
    its timeout, or end as if the network had failed (exit 4), and name rank 0's node as the one to leave out."""
    import multiprocessing
    import time

    results = tmp_path / "results"
    results.mkdir()
    spawn = multiprocessing.get_context("spawn")
    ranks = [spawn.Process(target=_publish_on_a_full_disk,
                           args=(rank, str(tmp_path / "snapshots"), str(tmp_path / "store"), str(results), sharded))
             for rank in range(2)]
    started = time.monotonic()
    for process in ranks:
        process.start()
    for process in ranks:
        process.join(timeout=120)
    outcomes = {path.name: path.read_text() for path in results.iterdir()}
    assert sorted(outcomes) == ["0", "1"], outcomes
    for rank, outcome in outcomes.items():
        assert outcome.startswith(f"StorageError {exitcodes.STORAGE}: "), (rank, outcome)
    assert "no space left on the file system" in outcomes["0"]
    assert "rank 0" in outcomes["1"], outcomes["1"]
    assert time.monotonic() - started < 50, "rank 1 waited for a timeout"
