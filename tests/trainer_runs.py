"""Start the trainer the way users do (plain python, torchrun, srun-/mpiexec-style env) and read its run dir."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: Generous bounds: 2 shared cores; these only stop a hung test, they do not measure speed.
TIMEOUT_S = 240


def clean_env(**extra: str) -> dict[str, str]:
    """The current environment without launcher variables, fabric settings or fault switches (a test may
    itself run under a launcher, or on a host with NCCL_* set), this checkout first on the path."""
    drop = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID")
    prefixes = ("SLURM_", "PMI_", "PBS_", "TORCHELASTIC_", "NCCL_", "GLOO_", "FI_", "APP_CHECK_", "APP_TRAIN_")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith(prefixes)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env["PYTHONUNBUFFERED"] = "1"
    # The runs these tests describe are CPU runs (gloo, bit-identical resume): on a GPU host they would
    # otherwise pick NCCL, and two ranks would ask for two GPUs. tests/gpu/ passes CUDA_VISIBLE_DEVICES.
    env["CUDA_VISIBLE_DEVICES"] = ""
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launcher_env(launcher: str, rank: int, n: int, tmp: Path) -> dict[str, str]:
    """The variables each launcher gives rank `rank` of `n` on this one host: torchrun-style by hand (env),
    srun (slurm), PBS/PALS mpiexec (pbs; its node file is written into `tmp`)."""
    if launcher == "slurm":
        return {
            "SLURM_PROCID": str(rank),
            "SLURM_LOCALID": str(rank),
            "SLURM_STEP_NUM_TASKS": str(n),
            "SLURM_STEP_NODELIST": "localhost",
            "SLURM_JOB_ID": "4242",
            "SLURM_NODEID": "0",
            "SLURM_STEP_TASKS_PER_NODE": str(n),
            "SLURM_STEP_NUM_NODES": "1",
        }
    if launcher == "pbs":
        nodefile = tmp / "nodefile"
        nodefile.write_text("localhost\n" * n)
        return {"PMI_RANK": str(rank), "PMI_SIZE": str(n), "PMI_LOCAL_RANK": str(rank), "PMI_LOCAL_SIZE": str(n),
                "PBS_NODEFILE": str(nodefile), "PBS_JOBID": "77.pbs"}
    return {"RANK": str(rank), "WORLD_SIZE": str(n), "LOCAL_RANK": str(rank)}


def train_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "app.train", *args]


def torchrun_command(nproc: int, *args: str, max_restarts: int = 0) -> list[str]:
    return [
        sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
        f"--max-restarts={max_restarts}", "-m", "app.train", *args,
    ]


def emulated_nodes(n: int, module: str, *args: str, env: dict[str, str],
                   max_restarts: int = 0) -> list[subprocess.Popen]:
    """`n` torchrun agents on this host, each standing for a node of one rank (as `srun --ntasks-per-node=1
    torchrun` starts them), joined by a c10d rendezvous (a failed rank restarts every agent's workers).

    Each agent gets its own NCCL_HOSTID: NCCL takes ranks whose host ids differ for separate hosts and joins
    them through its network transport, so `n` ranks can share one GPU (on one host NCCL refuses two ranks
    on one device, "Duplicate GPU detected"). On CPU (gloo) the variable is unused."""
    endpoint = f"127.0.0.1:{free_port()}"
    return [
        start([sys.executable, "-m", "torch.distributed.run", f"--nnodes={n}", "--nproc-per-node=1",
               "--rdzv-backend=c10d", f"--rdzv-endpoint={endpoint}", f"--rdzv-id=emulated-{endpoint}",
               f"--max-restarts={max_restarts}", "-m", module, *args],
              env={**env, "NCCL_HOSTID": f"emulated-node-{node}"})
        for node in range(n)
    ]


def output_so_far(process: subprocess.Popen) -> str:
    """What a process started by `start` has written so far (read without moving its write position)."""
    fd = process.log.fileno()  # type: ignore[attr-defined]
    return os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")


def finish_all(agents: list[subprocess.Popen], timeout: float = TIMEOUT_S) -> list[str]:
    """Wait for every agent; their outputs, in order (all of them, killed, in the error when one hangs)."""
    deadline = time.monotonic() + timeout
    try:
        for agent in agents:
            agent.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        for agent in agents:
            agent.kill()
        logs = "\n---\n".join(finish(agent)[-6000:] for agent in agents)
        raise AssertionError(f"agents still running after {timeout:.0f} s:\n{logs}") from None
    return [finish(agent) for agent in agents]


def run(
    command: list[str], env: dict[str, str] | None = None, timeout: float = TIMEOUT_S, cwd: Path | str = REPO
) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, env=env or clean_env(), cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


def summary(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "summary.json").read_text())


def metrics(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def final_state(run_dir: Path) -> dict[str, Any]:
    import torch

    newest = sorted((run_dir / "snapshots").glob("step-*.pt"))[-1]
    return torch.load(newest, weights_only=True)


def assert_step_times_account_for_the_run(run_dir, log: str) -> None:
    """Per-step times plus evaluations and snapshot writes add up to the run's wall clock; no step is a timing
    artefact."""
    steps = metrics(run_dir)
    snapshots = sum(float(s) for s in re.findall(r"snapshot written: .* \(step \d+, ([\d.]+)s\)", log))
    elapsed = summary(run_dir)["elapsed_s"]
    accounted = sum(r["step_time_s"] + r.get("eval_time_s", 0.0) for r in steps) + snapshots
    # 5% over: the log rounds snapshot seconds to 0.1 s
    assert 0.9 * elapsed <= accounted <= 1.05 * elapsed, (accounted, elapsed)
    # A timing artefact reads as about nothing (an intermediate version timed the last step at 0.1 ms); real steps
    # on a loaded machine spread wide (13 ms to 0.4 s around an 80 ms median in one CI run)
    times = sorted(r["step_time_s"] for r in steps)
    assert times[0] > times[len(times) // 2] / 50, times


def start(command: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start in the background; output goes to a temporary file (a full pipe would block the trainer)."""
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed with the process, in finish())
    process = subprocess.Popen(command, env=env or clean_env(), cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                               text=True)
    process.log = log  # type: ignore[attr-defined]
    return process


def finish(process: subprocess.Popen) -> str:
    """Wait for the process; return its output."""
    process.wait(timeout=TIMEOUT_S)
    process.log.seek(0)  # type: ignore[attr-defined]
    return process.log.read()  # type: ignore[attr-defined]


def wait_for_step(run_dir: Path, step: int, process: subprocess.Popen, timeout: float = TIMEOUT_S) -> None:
    """Poll metrics.jsonl (flushed every step with run.log_every=1) until a step is reached."""
    deadline = time.monotonic() + timeout
    path = run_dir / "metrics.jsonl"
    while time.monotonic() < deadline:
        if path.exists() and any(f'"step":{s},' in path.read_text() for s in range(step, step + 50)):
            return
        if process.poll() is not None:
            raise AssertionError(f"exited early with {process.returncode}: {finish(process)}")
        time.sleep(0.02)
    raise AssertionError(f"step {step} not reached")


def children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def workers(agent_pid: int) -> list[int]:
    """The trainer processes a torchrun agent started, oldest first: not any other child it may have (a helper
    process of its own), which a kill meant for a worker would hit instead."""
    def runs_the_trainer(pid: int) -> bool:
        try:
            return b"app.train" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # ended meanwhile
            return False

    return [pid for pid in children(agent_pid) if runs_the_trainer(pid)]


def wait_for_path(path: Path, process: subprocess.Popen, timeout: float = TIMEOUT_S) -> None:
    """Until `path` exists (a snapshot published in the background), or the process ends."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"exited early with {process.returncode}: {finish(process)}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear")
        time.sleep(0.02)
