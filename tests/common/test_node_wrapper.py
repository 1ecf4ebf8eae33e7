"""app/common/node_wrapper.sh around a real torchrun on this host, as the job scripts start it on each node: what the
job's exit code says, and what the workers import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.host.common import exitcodes
from tests.trainer_runs import REPO, clean_env, free_port

#: Each test starts a real torchrun and its workers (two interpreters loading torch: seconds each on 2 cores)
pytestmark = pytest.mark.slow

WRAPPER = REPO / "app" / "common" / "node_wrapper.sh"
TORCHRUN = Path(sys.executable).parent / "torchrun"

EXITS_WITH = """
import sys
sys.exit(int(sys.argv[1]))
"""


def wrapped_torchrun(tmp_path: Path, program: list[str], nproc: int = 1, cwd: Path | None = None,
                     **env: str) -> subprocess.CompletedProcess:
    """PROGRAM under torchrun (one node, static rendezvous, as app/host/launch/plan.py builds it) under the node
    wrapper."""
    argv = [str(TORCHRUN), "--nnodes=1", f"--nproc-per-node={nproc}", "--rdzv-backend=static",
            f"--rdzv-endpoint=127.0.0.1:{free_port()}", "--rdzv-id=42", "--rdzv-conf=timeout=60", *program]
    return subprocess.run(["sh", str(WRAPPER), str(tmp_path / "stop"), "", "", *argv],
                          env=clean_env(SLURM_NODEID="0", OMP_NUM_THREADS="1", **env), cwd=cwd or tmp_path,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("code", [exitcodes.STORE, exitcodes.TIMEOUT, exitcodes.PREEMPTED])
def test_the_node_ends_with_the_workers_documented_exit_code_not_torchruns_generic_one(tmp_path: Path,
                                                                                      code: int) -> None:
    """torchrun ends 1 whatever its workers' codes; the job scripts branch on the codes (75: requeue, 10: the store
    was tampered with, never a bad node), so the wrapper hands the node the first failed worker's own."""
    worker = tmp_path / "worker.py"
    worker.write_text(EXITS_WITH)
    result = wrapped_torchrun(tmp_path, [str(worker), str(code)])
    assert result.returncode == code, result.stderr[-3000:]
    assert f"exitcode  : {code}" in result.stderr  # torchrun's own summary is still printed
    assert "Traceback" not in result.stderr


def test_a_worker_killed_by_a_signal_ends_the_node_as_the_shell_reports_one(tmp_path: Path) -> None:
    worker = tmp_path / "worker.py"
    worker.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    result = wrapped_torchrun(tmp_path, [str(worker)])
    assert result.returncode == 128 + 9, result.stderr[-3000:]


def test_workers_that_succeed_end_the_node_with_0(tmp_path: Path) -> None:
    worker = tmp_path / "worker.py"
    worker.write_text(EXITS_WITH)
    result = wrapped_torchrun(tmp_path, [str(worker), "0"], nproc=2)
    assert result.returncode == 0, result.stderr[-3000:]
