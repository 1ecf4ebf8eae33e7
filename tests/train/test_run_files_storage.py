"""The run's own files (metrics.jsonl, config.yaml, manifest.json, summary.json) on a file system that refuses a
write: one line with the cause and the remedy and the storage exit code, as a snapshot write says, not a traceback."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
import torch

from app.common.distributed import DistContext
from app.host.common import exitcodes
from app.host.common.errors import StorageError
from app.train.outputs import RunOutputs, run_files_written
from app.train.step_record import StepRecord

CTX = DistContext(rank=0, local_rank=0, world_size=1, device=torch.device("cpu"), backend="gloo", launcher="none")


def record(step: int) -> StepRecord:
    return StepRecord(step=step, epoch=0, lr=0.1, samples=8 * step, tokens=None, val_loss=None, eval_time_s=None,
                      loss=1.0, grad_norm=1.0, step_time_s=0.1, samples_per_s=80.0, tokens_per_s=None,
                      peak_memory_gib=0.1, time=0.0)


def outputs(run_dir: Path) -> RunOutputs:
    return RunOutputs.open(run_dir, {"run": {}}, ["node1"], CTX, start_step=0, total_steps=10, epochs=1, log_every=1,
                           progress_mode="lines")


def test_a_full_disk_under_metrics_jsonl_stops_the_run_with_the_storage_exit_code_and_the_remedy(tmp_path):
    run = outputs(tmp_path)
    run.metrics.file.close()
    run.metrics.file = open("/dev/full", "w")  # noqa: SIM115 (closed by the run) the kernel's own ENOSPC on a flush
    with pytest.raises(StorageError) as stopped:
        run.step(record(1))
    message = str(stopped.value)
    assert stopped.value.exit_code == exitcodes.STORAGE
    assert "\n" not in message and message.startswith("the run's records"), message
    assert f"no space left on the file system of {tmp_path}" in message, message
    assert "give another run.dir" in message, message


def test_a_config_or_summary_write_refused_for_quota_says_so(tmp_path, monkeypatch):
    def over_quota(fd: int) -> None:
        raise OSError(errno.EDQUOT, os.strerror(errno.EDQUOT))

    monkeypatch.setattr(os, "fsync", over_quota)
    with pytest.raises(StorageError, match="disk quota exceeded"):
        outputs(tmp_path)


def test_a_bug_is_not_taken_for_a_full_disk(tmp_path):
    with pytest.raises(PermissionError), run_files_written(tmp_path):
        raise PermissionError(errno.EACCES, "Permission denied")
