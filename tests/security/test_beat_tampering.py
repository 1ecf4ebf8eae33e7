"""Another user who reaches the store's port cannot forge a heartbeat (every value is sealed with the job's secret),
but it can delete rank 1's beat, or write back an older sealed beat of rank 1 that it read earlier (list_keys, get,
set). Neither may get a healthy rank named as hung, and its node left out of the requeued job: the job stops with
one line naming the tampering and exit code 10 (STORE), names no rank, leaves no node to exclude, and its last
snapshot is intact (app/common/watchdog.py).

A real two-rank training run under torchrun as the job scripts start a node (gloo on CPU, the job's secret in the
environment, the hang watch on with a 4 s deadline); the attacker runs as another uid where the tests run as root.
Rank 0 hangs in its data loader at step 12 (a live process stuck: `hang@rank0:step12`), so that a verdict is
judged: on code that trusts what the store holds, that verdict names rank 1, whose beat the attacker removed or
froze."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from app.host.launch.plan import Plan
from tests.security.test_store_attacker import SECRET, TAMPERED, as_attacker
from tests.trainer_runs import REPO, clean_env, free_port, wait_for_step

pytestmark = pytest.mark.slow  # three interpreters importing torch and a short training run: about 20 s each

BEAT_ATTACKER = r"""
import sys, time
from datetime import timedelta
import torch.distributed as dist

port, mode = int(sys.argv[1]), sys.argv[2]
while True:
    try:
        store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=5))
        break
    except Exception:
        time.sleep(0.05)
print("connected", flush=True)
sys.stdin.readline()  # the test says when: after the run's first snapshot
key = None
while key is None:
    key = next((k for k in store.list_keys() if k.endswith("watchdog/beat/1")), None)
    time.sleep(0.01)
old = store.get(key)  # rank 1's sealed beat, soon an older one
print("tampering with " + key, flush=True)
while True:
    try:
        if mode == "delete":
            store.delete_key(key)
        else:  # replay: the older beat written back over every newer one
            store.set(key, old)
    except Exception as err:  # the job's store is gone
        print("stopped: " + str(err).splitlines()[0], flush=True)
        break
    # A millisecond's pause: a thousand deletions or write-backs a second, so a rank's fresh beat lives about a
    # millisecond of its beat interval (400 ms here); without one, this loop took a core of the two a CI machine
    # shares with the job (an attacker elsewhere brings its own), the store answered late and the judge took
    # rank 0's store for gone
    time.sleep(0.001)
"""


def run_tampered_training(tmp_path: Path, mode: str) -> tuple[int, str, Path]:
    """Two ranks training under torchrun on a known port, the attacker tampering with rank 1's beat from step 6:
    (torchrun's exit code, its output, the run directory)."""
    port = free_port()
    run_dir = tmp_path / "run"
    attacker = subprocess.Popen(as_attacker([sys.executable, "-c", BEAT_ATTACKER, str(port), mode]),
                                env=clean_env(), cwd="/", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    log = (tmp_path / "torchrun.log").open("w+")
    # As the job scripts start a node: the node wrapper, the plan's torchrun argv (static rendezvous, node 0 serves
    # the store on the port), the secret in the environment only
    plan = Plan(nnodes=1, nproc=2, rdzv_host="127.0.0.1", rdzv_port=port, join_timeout_s=60)
    argv = plan.torchrun_argv("42", ["-m", "app.train", "--config", "demo", "data.tokens=200000", "run.log_every=1",
                                     f"run.dir={run_dir}", "train.max_steps=400", "snapshot.every=5",
                                     "dist.timeout_s=60", "dist.hang_timeout_s=4"])
    argv[0] = str(Path(sys.executable).parent / "torchrun")
    job = subprocess.Popen(["sh", str(REPO / "app" / "common" / "node_wrapper.sh"), str(tmp_path / "stop"), "", "",
                            *argv],
                           env=clean_env(DDP_STORE_SECRET=SECRET, SLURM_NODEID="0", OMP_NUM_THREADS="1",
                                         APP_TRAIN_FAULT="hang@rank0:step12"),
                           cwd=REPO, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        assert attacker.stdout is not None and attacker.stdin is not None
        wait_for_step(run_dir, 6, job, timeout=120)
        attacker.stdin.write("go\n")
        attacker.stdin.flush()
        job.wait(timeout=120)
    finally:
        for proc in (job, attacker):
            if proc.poll() is None:
                proc.kill()
        said = attacker.communicate()[0]
    log.seek(0)
    output = log.read()
    assert "tampering with" in said, f"the attacker never found rank 1's beat: {said[-2000:]}"
    return job.returncode, output + "\nthe attacker said: " + said, run_dir


@pytest.mark.parametrize("mode", ["delete", "replay"])
def test_deleting_or_replaying_a_healthy_ranks_heartbeat_stops_the_job_for_tampering_and_names_no_rank(
        tmp_path: Path, mode: str) -> None:
    started = time.monotonic()
    code, output, run_dir = run_tampered_training(tmp_path, mode)
    took = time.monotonic() - started
    tail = output[-3000:]
    print(output[-6000:])
    problems = []  # every one found, so that a run on code without the protection shows all it allowed
    hung = [line for line in output.splitlines() if "hang:" in line]
    if hung:
        problems.append(f"a rank was named as hung: {hung[0][:300]}")
    summary = run_dir / "summary.json"
    if summary.exists() and json.loads(summary.read_text()).get("status") == "hung":
        problems.append(f"summary.json records a hang: {json.loads(summary.read_text()).get('hang')}")
    exclude = run_dir / "nodes-to-exclude.txt"
    if exclude.exists() and exclude.read_text().strip():
        problems.append(f"a node was left to exclude: {exclude.read_text().strip()!r}")
    if TAMPERED not in output:
        problems.append(f"no line named the tampering: {tail}")
    if "exitcode  : 10" not in output or code == 0:
        problems.append(f"the worker did not end with exit code 10 (torchrun exited {code}): {tail}")
    if f'File "{REPO / "app"}' in output:  # torchrun prints a traceback of its own; none may come from the project
        problems.append(f"a traceback from the project's code: {tail}")
    snapshots = sorted((run_dir / "snapshots").glob("*.pt"))
    if not snapshots:
        problems.append("no snapshot was left")
    for path in snapshots:  # written atomically: whatever is there loads
        torch.load(path, map_location="cpu", weights_only=False)
    print(f"{mode}: torchrun exited {code} after {took:.1f} s")
    assert not problems, "\n".join(problems)
