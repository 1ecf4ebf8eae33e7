"""Another user who reaches every port of a two-node job (two torchruns started as the job scripts start them: the
node wrapper, the plan's torchrun argv, the job's secret in the environment only), on the same host: it lists every
key of the store and reads every value, and it writes at the keys whose values the job acts on and whose names are
known before the job writes them (the check's node reports, plan, process-group errors, exit codes, each rank's
results and the hang watch's verdicts; the training's hang verdicts: their names are public, as the code that names
them is) as soon as it connects, before the job writes them, and again every few milliseconds, so that the job reads
what it wrote there:
- forge: well-formed values the job would act on (a failing node report, a plan that stops the job naming a node for
  each of the job's ranks (their number: the attacker's sixth argument, 2 unless given), a process-group error naming
  rank 1, a nonzero exit code, results with every element wrong, a hang verdict naming healthy rank 1), each behind
  the seal's prefix and a made-up tag of the right length: only the MAC can give them away (and a crafted pickle,
  base64-encoded, where torchrun's c10d rendezvous would keep its state, were there any); and every other sealed
  value it lists (the job's own, at any key: the training's attempt agreement, the process group's
  addresses that gloo reads through the sealed store, the heartbeats) replaced, each time the job writes it, by the
  job's own body behind a made-up tag (a JSON record naming ranks names healthy rank 1 instead): only the MAC gives
  it away. Counters it leaves alone, as replay does and for its reason;
- replay: values the job sealed itself, moved to another of these keys where a reader would take them if the seal
  did not cover the key's name (the other rank's process-group error or results, the attempt number as an exit
  code), and at every other key an older value of the job's own written back where it has written a newer one
  since (heartbeats); counters it leaves alone (an unsealed number the store adds to on the server: one written
  back lower makes torchrun's exit barrier wait out its 300 s, a stall, not an act, that any client of a store
  without authentication can cause; garbage breaks them outright);
- garbage: crafted pickles (which touch a proof file when unpickled), garbage and 6 MiB values at these keys and
  at every key it lists, counters included.
Meanwhile it floods the port with connections. It runs as another uid when the tests run as root (setpriv), as the
same user otherwise (it then could do more, through /proc and signals: what it does here it does through the port
alone). The training's keys whose names are known beforehand are written before the job writes them only where
the job reads them late (the hang verdicts): written there before the job, the attempt's number or a follower's
echo (app/common/attempts.py) would stop every rank at its first read, before the process group's keys or the
heartbeats were met; as listed, they are met when the attacker is quicker than their reader, and a heartbeat, which
its rank reads back at its next beat (app/common/watchdog.py, `Watchdog._write_beat`), always is.
tests/jobscripts/test_jobscripts_slurm.py sends the same attacker against a job the job scripts start, with and
without the preflight (without it, it meets the training's keys).

Whatever it does: no code of its runs (the proof file never appears), the secret is in nothing it read (key names,
values, /proc cmdlines), no node is blamed (the exclude file stays empty), and the job stops with one line naming a
key the attacker wrote and exit code 10 (STORE) in the worker that read it. A run that ends without such a line read
none of the attacker's values and proves nothing: the test fails then too (every value the attacker can write is
refused, so a job that read one cannot pass), except under replay, whose values exist only once the job has written
them: a replay the job completed without reading (exit codes 0) acted on nothing."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch.distributed as dist

from app.check import protocol
from app.common.distributed import JOB_SCOPE
from app.common.signed_store import MAGIC, TAG_BYTES, SignedStore
from app.host.common import exitcodes
from app.host.launch.plan import Plan
from tests.trainer_runs import REPO, children, clean_env, free_port

SECRET = "5e" * 16
ATTACKER_UID = 64123
#: The worker's line when its store was tampered with (app/common/signed_store.py)
TAMPERED = "error: the job's rendezvous store was tampered with or is unreachable"
#: The prefix of the first attempt's keys under torchrun's agent store (app/common/distributed.py, `_connect`)
FIRST_ATTEMPT = "attempt-1/"


def stored_name(key: str, *prefixes: str) -> str:
    """`key`'s name in the TCPStore under `prefixes`, as the job's sealed store joins them."""
    store = SignedStore(dist.HashStore(), SECRET)
    for prefix in prefixes:
        store = store.prefixed(prefix)
    store.set(key, b"")
    (name,) = store.inner.list_keys()
    return name


def check_keys() -> dict[str, str]:
    """The keys of a two-rank check whose values a rank acts on (app/check/protocol.py; the hang watch's verdict of
    its first two rounds: app/common/watchdog.py, `Watchdog._verdict`), by their names in the store, and the kind
    of record each holds."""
    kinds = {protocol.PLAN: "plan", protocol.PG_PLAN: "code", protocol.VERDICT: "code",
             **{f"watchdog/round/{n}/verdict": "hang verdict" for n in (1, 2)}}
    for rank in (0, 1):
        kinds |= {protocol.node_key(rank): "node", protocol.pg_key(rank): "pg", protocol.result_key(rank): "result"}
    return {stored_name(key, JOB_SCOPE, FIRST_ATTEMPT, protocol.PREFIX): kind for key, kind in kinds.items()}


def training_keys() -> dict[str, str]:
    """The keys of a training (python -m app.train) whose values a rank acts on and that are written before the job
    writes them (see the module's docstring): its hang watch's verdicts of the first two rounds
    (app/train/assemble.py, `_watch_for_hangs`; app/common/watchdog.py, `Watchdog._verdict`), under the attempt's
    prefix, not the check's. The others a training acts on are forged as they are listed: the attempt agreement's
    number, answers and echoes (app/common/attempts.py, at app/attempts/ under the job's prefix), the process group's
    addresses (gloo's, under the attempt's prefix, read through the sealed store: app/common/signed_store.py
    `for_process_groups`) and each rank's heartbeat (watchdog/beat/RANK); the rounds' claims are counters."""
    return {stored_name(f"watchdog/round/{n}/verdict", JOB_SCOPE, FIRST_ATTEMPT): "hang verdict" for n in (1, 2)}


#: What a refusal of each attack's values says (app/common/signed_store.py `SignedStore.open`; an older heartbeat
#: written back: app/common/watchdog.py `Watchdog._write_beat`)
REFUSALS = {
    "forge": ("holds a value whose authentication fails",),
    "replay": ("holds a value whose authentication fails", "was replaced by an older one", "was deleted"),
    "garbage": ("holds a value the job did not write", "more than the job ever writes"),
}

ATTACKER = r"""
import base64, json, os, pickle, socket, sys, time
from datetime import timedelta
import torch.distributed as dist

port, proof, mode, seen_path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
host = sys.argv[5] if len(sys.argv) > 5 else "127.0.0.1"
world_size = int(sys.argv[6]) if len(sys.argv) > 6 else 2  # the job's: a plan names each rank's node
TARGETS = json.loads(@TARGETS@)  # the keys written before the job writes them: name -> what it holds
MAGIC, TAG_BYTES = @MAGIC@, @TAG_BYTES@  # a sealed value's prefix and tag length
HOST = socket.gethostname()


class Exploit:
    def __reduce__(self):
        return (os.system, (f"touch {proof}",))


CRAFTED = pickle.dumps(Exploit())
GARBAGE = (CRAFTED, b"\x00garbage", b"x" * (6 * 2**20))
seen = open(seen_path, "a")
noted = set()


def note(text):
    # Each line once: the file holds everything read however long the job runs
    text = text.replace("\n", " ")
    if text not in noted:
        noted.add(text)
        seen.write(text + "\n")
        seen.flush()


def connect():
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()  # listening: the store connects at once
            return dist.TCPStore(host, port, is_master=False, timeout=timedelta(seconds=2))
        except Exception:
            time.sleep(0.01)


def forged_like(raw):
    # The job's own sealed value with a made-up tag (a JSON record naming ranks, rank 1 instead): only the MAC
    # tells it from the job's own
    body = raw[len(MAGIC) + TAG_BYTES:]
    try:
        record = json.loads(body)
    except ValueError:  # not JSON (gloo's addresses), or not UTF-8
        record = None
    if isinstance(record, dict) and ("culprits" in record or "bad_sources" in record):
        if "culprits" in record:  # a hang verdict
            record["culprits"] = [1]
        if isinstance(record.get("bad_sources"), dict):  # a check's results
            record["bad_sources"] = {where: [1] for where in record["bad_sources"]}
        body = json.dumps(record).encode()
    return MAGIC + os.urandom(TAG_BYTES) + body


def forged(kind, key):
    # A record the job would act on, well formed (app/check/protocol.py, app/common/watchdog.py), behind the
    # seal's prefix and a made-up tag: only the MAC tells it from the job's own
    rank = int(key.rsplit("/", 1)[1]) if kind in ("node", "pg", "result") else 1
    nodes = [f"{HOST}/agent{other}" for other in range(world_size)]
    if kind == "node":  # a failing node: left out of the next job
        facts = {"rank": rank, "hostname": HOST, "launcher_node": str(rank), "machine": "", "versions": {},
                 "env": {}, "gpu_count": 0}
        body = {"facts": facts, "checks": [{"name": "gpu: devices", "status": "FAIL", "detail": "GPU 0 is lost",
                                            "remedy": "leave the node out", "nodes": [nodes[rank]]}]}
    elif kind == "plan":  # every rank stops
        body = {"go": False, "code": 7, "nodes": nodes}
    elif kind == "pg":  # the process group failed on rank 1's node
        body = "gloo: connection to rank 1 refused" if rank == 1 else ""
    elif kind == "code":
        body = 7
    elif kind == "result":  # every element wrong on rank 1
        body = {"scopes": [], "rows": {"all": [{"collective": "all_reduce", "size": 4096, "count": 1024,
                                                 "seconds": 1.0, "wrong": 1024}]},
                "bad_sources": {"all all_reduce": [1]}, "nccl": None}
    else:  # the hang watch's verdict: healthy rank 1 named, for its node to be left out
        body = {"culprits": [1], "sentence": "rank 1 stopped answering", "reporter": 0}
    return MAGIC + os.urandom(TAG_BYTES) + json.dumps(body).encode()


def moved(kind, key, sealed):
    # A value the job sealed at another key that a reader would take here if the seal did not cover the key's
    # name: the other rank's record of the same kind, or for an exit code a nonzero whole number (the attempt
    # number, an acknowledgement). None passes for a plan, a node report (its rank is in it) or a hang verdict
    if kind in ("pg", "result"):
        return sealed.get(key[:-1] + str(1 - int(key[-1])))
    if kind == "code":
        numbers = [raw for k, raw in sealed.items() if k != key and raw[len(MAGIC) + TAG_BYTES:].isdigit()]
        return next((raw for raw in numbers if int(raw[len(MAGIC) + TAG_BYTES:])), None)
    return None


FORGED = {key: forged(kind, key) for key, kind in TARGETS.items()}


def attack_targets(store, sealed, rounds):
    for key, kind in TARGETS.items():
        if mode == "forge":
            how, value = "forged", FORGED[key]
        elif mode == "replay":
            how, value = "moved", moved(kind, key, sealed)
        else:
            how, value = "garbage", GARBAGE[rounds % 3]
        if value is not None:
            mine.add(value)
            store.set(key, value)
            note(f"wrote {how} {key}")


store = connect()
print("connected", flush=True)
flood, mine, sealed, first = [], set(), {}, {}
rounds = 0
while True:
    try:
        attack_targets(store, sealed, rounds)
        for entry in os.listdir("/proc") if rounds % 10 == 0 else ():  # what any user can read of the job's processes
            if entry.isdigit():
                try:
                    note("cmdline " + open(f"/proc/{entry}/cmdline", "rb").read().decode(errors="replace"))
                except OSError:
                    pass
        for key in store.list_keys():
            note("key " + key)
            if not store.check([key]):
                continue
            raw = store.get(key)
            note("value " + raw[:4096].decode(errors="replace"))
            if raw in mine:
                continue
            if raw.startswith(MAGIC):  # the job's own: replay's material
                sealed[key] = raw
                first.setdefault(key, raw)
            if key in TARGETS:
                continue
            if mode == "forge":
                if raw.startswith(MAGIC):  # the job's own, each time it writes it: its body, a made-up tag
                    value = forged_like(raw)
                    mine.add(value)
                    store.set(key, value)
                    note(f"wrote forged {key}")
                elif "torch.rendezvous" in key and not raw.isdigit():  # c10d's state: base64
                    store.set(key, base64.b64encode(CRAFTED))
                continue  # counters and torchrun's other unsealed keys: left alone (the module's docstring)
            if mode == "replay":  # an older value of the job's own where it wrote a newer one since
                older = first.get(key)
                if older is not None and older != raw:
                    store.set(key, older)
                    note(f"wrote older {key}")
            elif raw.isdigit():  # a counter: garbage there breaks the job's next add
                store.set(key, b"garbage")
                note(f"wrote garbage {key}")
            else:
                store.set(key, GARBAGE[rounds % 3])
                note(f"wrote garbage {key}")
        if len(flood) < 200:  # connections held open beside the job's
            try:
                flood.append(socket.create_connection((host, port), timeout=1))
            except OSError:
                pass
    except Exception as err:
        note("error " + str(err).splitlines()[0] if str(err) else "error")
        store = connect()
    rounds += 1
    time.sleep(0.005)
""".replace("@TARGETS@", repr(json.dumps(check_keys() | training_keys()))).replace("@MAGIC@", repr(MAGIC)).replace(
    "@TAG_BYTES@", str(TAG_BYTES))


def as_attacker(argv: list[str]) -> list[str]:
    """ARGV as another uid when the tests run as root; as it is otherwise."""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        return ["setpriv", f"--reuid={ATTACKER_UID}", f"--regid={ATTACKER_UID}", "--clear-groups", *argv]
    return argv


def as_one_step(nodes: list[subprocess.Popen], timeout_s: float) -> list[str]:
    """Each node's log. Once one node has ended nonzero, a node whose worker has ended while its torchrun still runs
    is killed, as srun kills a step's other tasks under `--kill-on-bad-exit` (the job's launch:
    app/host/launch/slurm.py; their code is then -9): alone, torchrun's agent on a node whose worker succeeded
    waits out its exit barrier (300 s, fixed) for an agent whose worker failed and never joins it
    (torch/distributed/elastic/agent/server/api.py, `_invoke_run`: only success leads to the barrier). A fresh-clone
    CI run timed out there when rank 1 stopped on a moved value after rank 0 was done. A node whose worker still
    runs is left to end on its own: what it does with the attacker's values is what the test is about."""
    with ThreadPoolExecutor(len(nodes)) as pool:
        outputs = [pool.submit(node.communicate) for node in nodes]
        deadline = time.monotonic() + timeout_s
        while any(node.poll() is None for node in nodes):
            if any(node.poll() for node in nodes):
                for node in nodes:
                    if node.poll() is None and only_the_agent_left(node.pid):
                        kill_tree(node.pid)
            if time.monotonic() > deadline:
                for node in nodes:
                    kill_tree(node.pid)
                raise AssertionError(f"the attacked job still ran after {timeout_s:.0f} s")
            time.sleep(0.2)
        return [output.result(timeout=60)[0] for output in outputs]


def only_the_agent_left(wrapper: int) -> bool:
    """Whether the node wrapper's torchrun runs without a worker (torchrun starts each worker as its child)."""
    try:
        agents = [pid for pid in children(wrapper)
                  if b"torch.distributed.run" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        return bool(agents) and not any(children(agent) for agent in agents)
    except FileNotFoundError:  # it ended meanwhile
        return False


def kill_tree(pid: int) -> None:
    """SIGKILL to `pid` and every process under it (torchrun starts its workers in sessions of their own, so a
    process group does not hold them; a step's cgroup does)."""
    try:
        for child in children(pid):
            kill_tree(child)
        os.kill(pid, signal.SIGKILL)
    except (FileNotFoundError, ProcessLookupError):
        pass


def run_attacked_job(tmp_path: Path, mode: str) -> tuple[list[int], list[str], Path, str, bool]:
    """Two torchruns (node 0 and node 1, one worker each, app.check as the preflight runs it) under the node
    wrapper, and the attacker on their port: (torchruns' codes, their logs, the exclude file, what it read and
    wrote, whether its code ran)."""
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
        logs = as_one_step(nodes, timeout_s=240)
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


#: A key as a tampering line names it (its name in the store; a heartbeat's within its rank's prefixes)
NAMED = re.compile(r"(?:key|heartbeat) '([^']+)'")


def refusals_of_the_attack(mode: str, read: str, logs: list[str]) -> list[str]:
    """The workers' tampering lines that name a key the attacker wrote to (by its name in the store, or within its
    rank's prefixes: a heartbeat's) for a reason its attack gives: proof that the job read what it wrote."""
    written = {line.split()[2] for line in read.splitlines() if line.startswith("wrote ")}
    lines = [line.strip() for log in logs for line in log.splitlines() if TAMPERED in line]
    return [line for line in lines
            if any(reason in line for reason in REFUSALS[mode])
            and any(key == named or key.endswith("/" + named) for named in NAMED.findall(line) for key in written)]


@pytest.mark.slow  # two torchruns, two workers and the attacker; the rank that read nothing waits out its deadline
@pytest.mark.parametrize("mode", ["forge", "replay", "garbage"])
def test_another_user_on_the_port_runs_no_code_learns_no_secret_and_makes_the_job_act_on_nothing(
        tmp_path: Path, mode: str) -> None:
    codes, logs, exclude, read, ran = run_attacked_job(tmp_path, mode)
    refused = refusals_of_the_attack(mode, read, logs)
    print(f"attacked job ({mode}): torchruns exited {codes}; the refusals of its values: {refused}")
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
        problems.append(f"a node was blamed: nodes-to-exclude.txt holds {exclude.read_text().strip()!r}")
    # Replay's values exist only once the job has sealed them, so whether one lands at a key before the job reads
    # it is a race the attacker can lose (a fresh-clone CI run ended [0, 0] with its 6 moved values never read):
    # a replay that the job completed without reading acted on nothing. Forge and garbage write before the job does.
    if not refused and not (mode == "replay" and codes == [0, 0]):
        written = sum(line.startswith("wrote ") for line in read.splitlines())
        problems.append(f"the job (torchruns exited {codes}) refused none of the attacker's values at the {written} "
                        f"keys it wrote ({mode}): it read none, or acted on them: {tail}")
    for code, log in zip(codes, logs, strict=True):
        # The job scripts see the node's code: a node whose worker met the tampering ends 10, not torchrun's 1
        # (unless it was killed as srun kills a step's other nodes once one has failed: the step's code is then the
        # first failure's, app/host/launch/step.py)
        if TAMPERED in log and code != -signal.SIGKILL and (
                code != exitcodes.STORE or f"exitcode  : {exitcodes.STORE}" not in log):
            problems.append(f"a node whose worker stopped for the tampering ended {code}, not {exitcodes.STORE}: "
                            f"{log[-2000:]}")
    assert not problems, "\n".join(problems)
