"""app/common/node_wrapper.sh around a real torchrun on this host, as the job scripts start it on each node: what the
job's exit code says, what the workers import, and where torch.compile's caches go."""

from __future__ import annotations

import getpass
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


#: What torch 2.13 makes for torch.compile's caches when nothing says where: `$TMPDIR/torchinductor_<user>`
#: (cache_dir(), os.makedirs with the umask's mode)
SHOWS_THE_CACHE_DIR = """
import os, stat
from torch._inductor.runtime.cache_dir_utils import cache_dir
info = os.stat(cache_dir())
print(cache_dir(), oct(stat.S_IMODE(info.st_mode)), info.st_uid == os.geteuid())
"""


def test_your_own_script_finds_torchs_compile_cache_place_made_private_whatever_the_umask(tmp_path: Path) -> None:
    """A missing `$TMPDIR/torchinductor_$USER` is made 0700 before the command starts, as the trainer makes it: left
    to torch, it came with the umask's mode (0777 under umask 000), and another user on a shared /tmp could make it
    first meanwhile and have the script load their pickles."""
    shared_tmp = tmp_path / "tmp"
    shared_tmp.mkdir()
    shared_tmp.chmod(0o1777)  # as /tmp
    user = getpass.getuser()
    env = clean_env(TMPDIR=str(shared_tmp), LOGNAME=user)
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    result = subprocess.run(["sh", "-c", 'umask 000 && exec "$@"', "umask-000", "sh", str(WRAPPER),
                             str(tmp_path / "stop"), "", "", sys.executable, "-c", SHOWS_THE_CACHE_DIR],
                            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == [str(shared_tmp / f"torchinductor_{user}"), "0o700", "True"]
    assert "warning" not in result.stderr
