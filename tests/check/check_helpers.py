"""Helpers for the app.check tests: where the fake node trees are, and real multi-process launches."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tests import trainer_runs
from tests.trainer_runs import REPO, free_port, launcher_env

__all__ = ["DATA", "PROCESS_TIMEOUT_S", "REPO", "Ranks", "clean_env", "free_port", "launcher_env"]

DATA = REPO / "tests" / "data" / "check"
#: Every process test is bounded: a hang fails the test instead of blocking CI.
PROCESS_TIMEOUT_S = 120


@dataclass
class Ranks:
    codes: list[int]
    outputs: list[str]
    seconds: float
    #: The longest any rank ran after its first line of output: its life without the interpreter's start-up and
    #: imports, which a loaded 2-core machine stretches by tens of seconds and no deadline of app.check covers.
    seconds_after_first_line: float

    @property
    def report(self) -> str:
        return self.outputs[0]


def clean_env(**extra: str) -> dict[str, str]:
    """tests/trainer_runs.py's, with one thread per rank (as torchrun sets it): check ranks started by hand."""
    return trainer_runs.clean_env(**{"OMP_NUM_THREADS": "1", **extra})


def spawn_ranks(n: int, args: list[str], master_addr: str = "127.0.0.1", launcher: str = "env", **extra: str) -> Ranks:
    """Start n ranks of `python -m app.check` as srun/mpiexec would: one process each, the launcher's
    variables set (`env`: RANK/WORLD_SIZE; `slurm`: SLURM_PROCID...; `pbs`: PMI_RANK...)."""
    port = str(free_port())
    start = time.monotonic()
    procs = []
    tmp = Path(tempfile.mkdtemp(prefix="app-check-test-"))
    for rank in range(n):
        address = {} if launcher != "env" and master_addr == "127.0.0.1" else {"MASTER_ADDR": master_addr}
        env = clean_env(MASTER_PORT=port, **address, **launcher_env(launcher, rank, n, tmp), **extra)
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "app.check", *args],
                env=env,
                cwd=REPO,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
    readers = [_OutputReader(proc) for proc in procs]
    try:
        for reader in readers:
            reader.join(PROCESS_TIMEOUT_S)
        for proc in procs:
            proc.wait(timeout=PROCESS_TIMEOUT_S)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return Ranks(
        [p.returncode for p in procs],
        ["".join(reader.lines) for reader in readers],
        time.monotonic() - start,
        max(reader.seconds_after_first_line for reader in readers),
    )


class _OutputReader(threading.Thread):
    """Collects one rank's output and notes when its first line came and when the output ended (the exit)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.lines: list[str] = []
        self.first_line_at: float | None = None
        self.ended_at: float | None = None
        self.start()

    def run(self) -> None:
        for line in self.proc.stdout:
            if self.first_line_at is None:
                self.first_line_at = time.monotonic()
            self.lines.append(line)
        self.ended_at = time.monotonic()

    @property
    def seconds_after_first_line(self) -> float:
        if self.first_line_at is None or self.ended_at is None:
            return float("inf")  # a rank that printed nothing or never ended met no deadline
        return self.ended_at - self.first_line_at
