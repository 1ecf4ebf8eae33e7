"""Another user on the cluster knows what `squeue` shows (the job id, its nodes), how the port used to be derived
from the job id (20000 + its last four digits), and every key name (any client lists them): a process of theirs
connects to the store and writes, for the whole run, every key the project's ranks ever read (forged check plans,
node reports that fail a node, hang verdicts naming rank -1, attempt numbers that are not numbers, values of 20 MB),
at the root and under every prefix it can name, the ranks' own included. Nothing it writes makes any rank act: every
value the ranks read is sealed with the job's secret (DDP_STORE_SECRET, app/common/signed_store.py), which it lacks,
so a rank either never reads a forged value (the job passes) or stops on it, naming the tampering (exit 10)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.check.check_helpers import PROCESS_TIMEOUT_S, REPO, clean_env, launcher_env

FORGER = r"""
import json, sys, threading, time
from datetime import timedelta
import torch.distributed as dist

port, job, nodes = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
print("ready", flush=True)  # the job starts now; the connection waits for its store to listen
store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=60))
failing = {"facts": {"rank": 1, "local_rank": 0, "hostname": nodes[1], "launcher_node": "", "versions": {},
                     "env": {}, "gpu_count": 0, "world_size": 2},
           "checks": [{"name": "gpu: devices", "status": "FAIL", "detail": "forged", "remedy": "exclude it",
                       "nodes": [nodes[1]]}]}
check_keys = {  # app.check's, under its own prefix (app/check/protocol.py)
    "plan": json.dumps({"go": False, "code": 3, "nodes": nodes}), "pg_plan": "3", "verdict": "3",
    "pg/1": json.dumps("forged: NCCL error"), "node/1": json.dumps(failing),
    "watchdog/round/1/verdict": json.dumps({"culprits": [-1], "sentence": "forged", "reporter": 0}),
}
job_keys = {  # the trainer's watchdog and the attempt agreement, at the job's scope
    "watchdog/round/1/verdict": json.dumps({"culprits": [-1], "sentence": "forged", "reporter": 0}),
    "app/attempts/current": "not a number",
}
# Every scope it can name, each as the ranks build it (PrefixStore joins prefix and key with "/")
scopes = [store] + [dist.PrefixStore(name, store) for name in ("app/", f"app/{job}/", f"app/{job}-preflight/",
                                                                "app/attempt-1/", "app/none/")]


def forge(scope):
    for key, value in job_keys.items():
        scope.set(key, value)
    check = dist.PrefixStore("app.check/", scope)
    for key, value in check_keys.items():
        check.set(key, value)


def oversized():  # on a connection of its own: a 20 MB write must not hold up the forgeries
    own = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=60))
    for name in ("", "app/"):
        dist.PrefixStore("app.check/", dist.PrefixStore(name, own) if name else own).set("result/1", "x" * 20 * 2**20)


rounds = 0
while True:
    for scope in scopes:
        forge(scope)
    if rounds == 0:
        print("forging", flush=True)
        threading.Thread(target=oversized, daemon=True).start()
    rounds += 1
    time.sleep(0.05)
"""


def old_derived_port(job_id: str) -> int:
    """The port the job scripts used to take: 20000 + the job id's last four digits."""
    return 20000 + int(job_id[-4:])


def free_job_id() -> str:
    """A job id whose old-derived port is free here (the job listens there, as before)."""
    for number in range(4242, 4342):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", old_derived_port(str(number))))
            except OSError:
                continue
            return str(number)
    raise RuntimeError("no free port among 24242-24341")


@pytest.mark.slow  # three interpreters importing torch: two ranks of the check and the forger
def test_a_process_that_knows_the_job_id_nodes_port_and_key_names_but_not_the_secret_makes_no_rank_act(tmp_path: Path):
    job = free_job_id()
    port = old_derived_port(job)
    exclude = tmp_path / "nodes-to-exclude.txt"
    forger = subprocess.Popen([sys.executable, "-c", FORGER, str(port), job, "localhost,localhost"],
                              env=clean_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    ranks = []
    try:
        assert forger.stdout is not None and forger.stdout.readline().strip() == "ready"
        for rank in range(2):
            env = clean_env(MASTER_PORT=str(port), DDP_STORE_SECRET="5e" * 16,
                            **{**launcher_env("slurm", rank, 2, tmp_path), "SLURM_JOB_ID": job})
            ranks.append(subprocess.Popen(
                [sys.executable, "-m", "app.check", "--sizes", "4K", "--exclude-file", str(exclude), "--json",
                 str(tmp_path / "report.json")],
                env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
            if rank == 0:  # rank 0 serves the store and waits for rank 1: the forgeries are in before rank 1 reads
                assert forger.stdout.readline().strip() == "forging"
        outputs = [rank.communicate(timeout=PROCESS_TIMEOUT_S)[0] for rank in ranks]
    finally:
        for proc in [*ranks, forger]:
            if proc.poll() is None:
                proc.kill()
        forger.communicate()
    codes = [rank.returncode for rank in ranks]
    # 10: the rank stopped on a forged value; 3: rank 1 found no store, rank 0 (its host) having stopped so first
    assert set(codes) <= {0, 3, 10}, outputs
    assert not [output for output in outputs if "Traceback" in output], outputs
    if codes == [0, 0]:
        assert "\nVERDICT: PASS" in outputs[0], outputs[0]
    else:
        assert 10 in codes and [output for output in outputs
                                if "error: the job's rendezvous store was tampered with or is unreachable" in output]
    assert not exclude.exists() or exclude.read_text().strip() == ""
    if codes == [0, 0]:
        report = json.loads((tmp_path / "report.json").read_text())
        assert not [check for check in report["checks"] if check["status"] == "FAIL"], report["checks"]
