"""Another user who reaches every port of a two-node job (two torchruns started as the job scripts start them: the
node wrapper, the plan's torchrun argv, the job's secret in the environment only), on the same host: it lists every
key of the store and reads every value, then either writes well-formed values (a crafted pickle, base64-encoded as
torchrun's c10d rendezvous keeps its state, which touches a proof file when unpickled; a failing node report made
from the real one; a plan that stops the job) and writes every other value back as it read it (replay), or writes
crafted pickles, garbage and oversized values everywhere; meanwhile it floods the port with connections. It runs
as another uid when the tests run as root (setpriv), as the same user otherwise (it then could do more, through
/proc and signals: what it does here it does through the port alone).

Whatever it does: no code of its runs (the proof file never appears), the secret is in nothing it read (key names,
values, /proc cmdlines), no node is blamed (the exclude file stays empty), and the job either passes as unattacked
or stops with one line naming the tampering and exit code 10 (STORE) in the worker."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from app.host.launch.plan import Plan
from tests.trainer_runs import REPO, clean_env, free_port

SECRET = "5e" * 16
ATTACKER_UID = 64123
#: The worker's line when its store was tampered with (app/common/signed_store.py)
TAMPERED = "error: the job's rendezvous store was tampered with or is unreachable"

ATTACKER = r"""
import base64, os, pickle, socket, sys, time
from datetime import timedelta
import torch.distributed as dist

port, proof, mode, seen_path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
host = sys.argv[5] if len(sys.argv) > 5 else "127.0.0.1"


class Exploit:
    def __reduce__(self):
        return (os.system, (f"touch {proof}",))


CRAFTED = pickle.dumps(Exploit())
seen = open(seen_path, "a")


def note(text):
    seen.write(text.replace("\n", " ") + "\n")
    seen.flush()


def connect():
    while True:
        try:
            return dist.TCPStore(host, port, is_master=False, timeout=timedelta(seconds=2))
        except Exception:
            time.sleep(0.05)


def forged(key, raw):
    # A well-formed value of the kind the key holds, made from what is there (sealed or not)
    body = raw[raw.find(b"{"):] if b"{" in raw else raw
    if key.endswith("node/1"):
        return body.replace(b'"PASS"', b'"FAIL"').replace(b'"OK"', b'"FAIL"')
    if key.endswith("plan"):
        return b'{"go": false, "code": 3, "nodes": ["localhost", "localhost"]}'
    if key.endswith("verdict"):  # the hang watch's: a healthy rank named, for its node to be left out
        return b'{"culprits": [1], "sentence": "rank 1 stopped answering", "reporter": 0}'
    return body


store = connect()
print("connected", flush=True)
flood = []
rounds = 0
while True:
    try:
        for entry in os.listdir("/proc") if rounds % 10 == 0 else ():  # what any user can read of the job's processes
            if entry.isdigit():
                try:
                    note("cmdline " + open(f"/proc/{entry}/cmdline", "rb").read().decode(errors="replace"))
                except OSError:
                    pass
        keys = store.list_keys()
        for key in keys:
            note("key " + key)
            if not store.check([key]):
                continue
            raw = store.get(key)
            note("value " + raw[:4096].decode(errors="replace"))
            if mode == "replay":  # every value written back as read: the job's own, at most a moment old
                store.set(key, raw)
            elif mode == "forge":  # well-formed values only, the others replayed
                if "torch.rendezvous" in key and not raw.isdigit():  # c10d keeps its state base64-encoded
                    store.set(key, base64.b64encode(CRAFTED))
                elif key.endswith(("node/1", "plan", "verdict")):
                    store.set(key, forged(key, raw))
                elif key.endswith("watchdog/beat/0"):  # a verdict posted ahead, for the hang watch's first round
                    store.set(key.replace("beat/0", "round/1/verdict"), forged("verdict", raw))
                    store.set(key, raw)
                else:
                    store.set(key, raw)
            elif raw.isdigit():  # a counter: garbage there breaks the job's next add
                store.set(key, b"garbage")
            elif rounds % 3 == 0:
                store.set(key, CRAFTED)
            elif rounds % 3 == 1:
                store.set(key, b"\x00garbage")
            else:
                store.set(key, b"x" * (6 * 2**20))
        if len(flood) < 200:  # connections held open beside the job's
            try:
                flood.append(socket.create_connection((host, port), timeout=1))
            except OSError:
                pass
    except Exception as err:
        note("error " + str(err).splitlines()[0] if str(err) else "error")
        store = connect()
    rounds += 1
    time.sleep(0.02)
"""


def as_attacker(argv: list[str]) -> list[str]:
    """ARGV as another uid when the tests run as root; as it is otherwise."""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        return ["setpriv", f"--reuid={ATTACKER_UID}", f"--regid={ATTACKER_UID}", "--clear-groups", *argv]
    return argv


def run_attacked_job(tmp_path: Path, mode: str) -> tuple[list[int], list[str], Path, str, bool]:
    """Two torchruns (node 0 and node 1, one worker each, app.check as the preflight runs it) under the node
    wrapper, and the attacker on their port: (torchruns' codes, their logs, the exclude file, what it read,
    whether its code ran)."""
    # Where the attacker writes: outside pytest's directories, which another uid cannot enter
    attacker_dir = Path(tempfile.mkdtemp(prefix="ddp-attacker-"))
    attacker_dir.chmod(0o777)
    proof, seen = attacker_dir / "proof", attacker_dir / "seen.txt"
    port = free_port()
    plan = Plan(nnodes=2, nproc=1, rdzv_host="127.0.0.1", rdzv_port=port, join_timeout_s=60)
    exclude = tmp_path / "nodes-to-exclude.txt"
    program = ["-m", "app.check", "--sizes", "4K", "--exclude-file", str(exclude)]
    argv = plan.torchrun_argv("42-preflight", program)
    argv[0] = str(Path(sys.executable).parent / "torchrun")
    attacker = subprocess.Popen(as_attacker([sys.executable, "-c", ATTACKER, str(port), str(proof), mode, str(seen)]),
                                env=clean_env(), cwd="/", stdout=subprocess.PIPE,
                                stderr=(tmp_path / "attacker.err").open("w"), text=True)
    nodes = []
    try:
        for node in (0, 1):
            env = clean_env(DDP_STORE_SECRET=SECRET, SLURM_NODEID=str(node), OMP_NUM_THREADS="1")
            nodes.append(subprocess.Popen(["sh", str(REPO / "app" / "common" / "node_wrapper.sh"),
                                           str(tmp_path / "stop"), "", "", *argv],
                                          env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                          text=True))
        logs = [node.communicate(timeout=240)[0] for node in nodes]
    finally:
        for proc in [*nodes, attacker]:
            if proc.poll() is None:
                proc.kill()
        attacker.communicate()
    time.sleep(1)  # a command the attacker's pickle started would have run by now
    ran = proof.exists()
    read = seen.read_text(errors="replace") if seen.exists() else ""
    shutil.rmtree(attacker_dir, ignore_errors=True)
    assert "key " in read, f"the attacker listed no key: {(tmp_path / 'attacker.err').read_text()[-2000:]}"
    return [node.returncode for node in nodes], logs, exclude, read, ran


@pytest.mark.slow  # two torchruns, two workers and the attacker: five interpreters importing torch (about 60 s)
@pytest.mark.parametrize("mode", ["forge", "garbage"])
def test_another_user_on_the_port_runs_no_code_learns_no_secret_and_makes_the_job_act_on_nothing(
        tmp_path: Path, mode: str) -> None:
    codes, logs, exclude, read, ran = run_attacked_job(tmp_path, mode)
    print(f"attacked job ({mode}): torchruns exited {codes}; the worker lines on the store: "
          f"{sorted({line.strip()[:120] for log in logs for line in log.splitlines() if TAMPERED in line})}")
    tail = "\n".join(log[-2000:] for log in logs)
    problems = []  # every one found, so that a run on code without the protection shows all it allowed
    if ran:
        problems.append("the attacker's pickle ran as the job's user (its proof file appeared)")
    if SECRET in read:
        where = next(line for line in read.splitlines() if SECRET in line)[:160]
        problems.append(f"the secret was in what the attacker read: {where}")
    if SECRET in "".join(logs):
        problems.append("the secret was in the job's log")
    if exclude.exists() and exclude.read_text().strip():
        problems.append(f"a node was blamed: nodes-to-exclude.txt holds {exclude.read_text().strip()!r}: {tail}")
    if codes == [0, 0]:
        if "\nVERDICT: PASS" not in logs[0]:
            problems.append(f"the job ended 0 without passing: {tail}")
    elif not [line for log in logs for line in log.splitlines() if TAMPERED in line]:
        problems.append(f"the job failed ({codes}) without naming the tampering: {tail}")
    elif "exitcode  : 10" not in "".join(logs):
        problems.append(f"the worker's exit code was not 10: {tail}")
    else:  # the job scripts see the node's code: a node whose worker met the tampering ends 10, not torchrun's 1
        met = [code for code, log in zip(codes, logs, strict=True) if TAMPERED in log]
        if any(code != 10 for code in met):
            problems.append(f"a node whose worker stopped for the tampering ended {met}, not 10: {tail}")
    assert not problems, "\n".join(problems)
