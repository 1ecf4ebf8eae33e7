"""What the trainer writes (the model's weights in snapshots, config.yaml, manifest.json) is readable by its owner
alone whatever the umask (022 makes new files world-readable), or by the group too where the directory lets its
group read (a run directory made with RUN_DIR_MODE=750)."""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path

import pytest

from app.common.atomic import write_text_atomic
from app.train.snapshot import SnapshotManager
from tests.train.test_snapshots import training_state


@pytest.fixture(autouse=True)
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def modes(directory: Path) -> dict[str, int]:
    return {str(p.relative_to(directory)): stat.S_IMODE(p.stat().st_mode) for p in directory.rglob("*")}


@pytest.mark.parametrize(("directory_mode", "file_mode"), [(0o700, 0o600), (0o750, 0o640)])
def test_run_files_take_the_owner_or_group_read_of_their_directory_never_others(tmp_path, directory_mode, file_mode):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    run_dir.chmod(directory_mode)
    write_text_atomic(run_dir / "config.yaml", "run: {}\n")
    assert stat.S_IMODE((run_dir / "config.yaml").stat().st_mode) == file_mode


def test_a_single_file_snapshot_and_its_checksum_are_private(tmp_path):
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir(mode=0o700)
    SnapshotManager(snapshots, keep=2, background=False).save(training_state(), 3, last=True)
    assert modes(snapshots) == {"step-00000003.pt": 0o600, "step-00000003.pt.sha256": 0o600}


def test_a_sharded_snapshot_is_private(tmp_path):
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir(mode=0o700)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # DCP without a process group says so
        SnapshotManager(snapshots, keep=2, background=False, sharded=True).save(training_state(), 3, last=True)
    found = modes(snapshots)
    assert found.pop("step-00000003") == 0o700
    assert found and set(found.values()) == {0o600}, found
