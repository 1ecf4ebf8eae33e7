"""Helpers for the app.check tests: where the fake node trees are, and real multi-process launches."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests import launch
from tests.launch import REPO, free_port, launcher_env

__all__ = ["DATA", "PROCESS_TIMEOUT_S", "REPO", "Ranks", "clean_env", "free_port", "launcher_env"]

DATA = REPO / "tests" / "data" / "check"
#: Every process test is bounded: a hang fails the test instead of blocking CI.
PROCESS_TIMEOUT_S = 120


@dataclass
class Ranks:
    codes: list[int]
    outputs: list[str]
    seconds: float

    @property
    def report(self) -> str:
        return self.outputs[0]


def clean_env(**extra: str) -> dict[str, str]:
    """tests/launch.py's, with one thread per rank (as torchrun sets it): check ranks started by hand."""
    return launch.clean_env(**{"OMP_NUM_THREADS": "1", **extra})


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
    outputs = []
    try:
        for proc in procs:
            outputs.append(proc.communicate(timeout=PROCESS_TIMEOUT_S)[0])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    return Ranks([p.returncode for p in procs], outputs, time.monotonic() - start)
