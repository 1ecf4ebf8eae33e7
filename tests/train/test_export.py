"""`python -m app.train.export SNAPSHOT OUT.pt` when OUT's file system refuses the write: one line naming OUT,
the cause and the remedy, and the storage exit code (not 2, which says the snapshot is not one)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

from app.host.common import exitcodes
from app.train.snapshot import SnapshotManager, export, layout
from tests.train.test_snapshot_short_writes import limited_file_size
from tests.train.test_snapshots import training_state
from tests.trainer_runs import REPO, TIMEOUT_S, clean_env

FIXTURE = REPO / "tests" / "data" / "snapshots" / "fsdp-format1" / "step-00000005"


def test_an_export_that_finds_no_space_says_so_in_one_line_with_the_storage_exit_code(tmp_path, monkeypatch, capsys):
    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_space)
    out = tmp_path / "model.pt"
    assert export.main([str(FIXTURE), str(out)]) == exitcodes.STORAGE
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error, error
    assert f"error: {out} could not be written: no space left on the file system of {tmp_path}" in error, error
    assert "free space there, or write it to another file system" in error, error
    assert not out.exists()


def test_an_export_cut_short_by_the_file_system_names_its_error_not_torchs(tmp_path):
    """The kernel cuts the write short part-way (here at a file size limit, as a full disk does at its last block):
    torch.save raises that as a RuntimeError whose context is the OSError, and the OSError is what is named."""
    SnapshotManager(tmp_path, keep=1, every=1, background=False).save(training_state(width=100_000), 1)
    snapshot, out = layout.single_file_path(tmp_path, 1), tmp_path / "model.pt"  # 400 kB of weights
    done = subprocess.run([sys.executable, "-m", "app.train.export", str(snapshot), str(out)], env=clean_env(),
                          preexec_fn=limited_file_size(64 * 1024), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == exitcodes.STORAGE, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{out} could not be written: the file system of {tmp_path} failed the write (File too large, EFBIG)" \
        in done.stderr, done.stderr


def test_a_run_directory_given_for_a_snapshot_is_told_which_snapshot_to_give(tmp_path, capsys):
    run_dir = tmp_path / "run"
    SnapshotManager(run_dir / "snapshots", keep=2, every=1, background=False).save(training_state(), 3)
    for given in (run_dir, run_dir / "snapshots"):
        assert export.main([str(given), str(tmp_path / "model.pt")]) == exitcodes.USAGE
        error = capsys.readouterr().err
        assert error == (f"error: {given} is not a snapshot but holds snapshots; give one of them, e.g. the newest: "
                         f"python -m app.train.export {run_dir}/snapshots/step-00000003.pt model.pt\n"), error
