"""`python -m app.train.export SNAPSHOT OUT.pt` when OUT's file system refuses the write: one line naming OUT,
the cause and the remedy, and the storage exit code (not 2, which says the snapshot is not one)."""

from __future__ import annotations

import errno
import os

from app.host.common import exitcodes
from app.train.snapshot import export
from tests.trainer_runs import REPO

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
