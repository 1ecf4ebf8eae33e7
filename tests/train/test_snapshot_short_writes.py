"""A snapshot that the file system cuts short, part-way through the file, as a disk filling up during the write
does: the run stops with the storage exit code and one line naming the file system's own error, for both writers.

torch.save turns the OSError of a write cut short into a RuntimeError ("unexpected pos"), and DCP hands each
rank's failure to the others pickled, without the OSError it came from. The kernel's own refusal comes here from
a file size limit (EFBIG at RLIMIT_FSIZE, as a full disk gives ENOSPC at its last block): no root, no mount."""

from __future__ import annotations

import resource
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from app.host.common import exitcodes
from tests.trainer_runs import TIMEOUT_S, clean_env, free_port, launcher_env, train_command

#: Larger than every run file the first steps write, smaller than the demo's first snapshot (about 1.6 MB)
FILE_SIZE_LIMIT = 256 * 1024


def limited_file_size(limit: int = FILE_SIZE_LIMIT) -> Callable[[], None]:
    """What a child runs before it starts: a write past `limit` bytes then fails with EFBIG instead of killing it."""
    def limit_it() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limit_it


def ranks(n: int, strategy: str, run_dir: Path) -> list[subprocess.Popen]:
    """`n` trainer ranks on this host, started as a launcher starts them, each under the file size limit."""
    port = str(free_port())
    return [subprocess.Popen(train_command("--config", "demo", f"run.dir={run_dir}", f"dist.strategy={strategy}",
                                           "train.max_steps=4", "snapshot.every=2"),
                             env=clean_env(**launcher_env("env", rank, n, run_dir.parent), MASTER_ADDR="127.0.0.1",
                                           MASTER_PORT=port),
                             cwd=run_dir.parent, preexec_fn=limited_file_size(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
            for rank in range(n)]


@pytest.mark.parametrize("n, strategy", [(1, "ddp"), (2, "fsdp")], ids=["one file", "sharded, two ranks"])
def test_a_snapshot_cut_short_by_the_file_system_stops_every_rank_with_the_storage_exit_code_and_its_error(
        tmp_path, n, strategy):
    run_dir = tmp_path / "run"
    started = ranks(n, strategy, run_dir)
    outputs = [rank.communicate(timeout=TIMEOUT_S)[0] for rank in started]
    for rank, output in zip(started, outputs, strict=True):
        assert rank.returncode == exitcodes.STORAGE, output[-3000:]
        assert "Traceback" not in output and "unexpected pos" not in output, output[-3000:]
    errors = [line for line in outputs[0].splitlines() if "could not be written" in line]
    assert errors, outputs[0][-3000:]
    assert f"the file system of {run_dir / 'snapshots'} failed the write (File too large, EFBIG)" in errors[0]
