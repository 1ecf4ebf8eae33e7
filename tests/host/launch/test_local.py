"""`python -m app.launch local` (app/host/launch/local.py), what `make demo` runs: torchrun as a job starts it on a
node. Under `--standalone` another user of the machine listed the store's keys, found torchrun's rendezvous state
(`torch.rendezvous.<id>`, a pickle every agent loads) and replaced it with a pickle that ran their command as you.
Here the same attack finds no such key and opens no value; the run ends as the tampering leaves it, and no code of
the attacker's runs."""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import torch.distributed as dist

from tests.trainer_runs import REPO, clean_env

pytestmark = pytest.mark.slow  # a real torchrun and two trainer workers


class Payload:
    """What the attacker writes: a pickle that, loaded, leaves a proof file."""

    def __init__(self, proof: Path) -> None:
        self.proof = proof

    def __reduce__(self):
        return (os.system, (f"touch {self.proof}",))


def local_demo(run_dir: Path, steps: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "app.launch", "local", "--nproc-per-node=2", "--", "-m", "app.train", "--config",
               "demo", f"train.max_steps={steps}", f"run.dir={run_dir}"]
    env = clean_env()
    env.pop("DDP_STORE_SECRET", None)
    return subprocess.Popen(command, cwd=REPO, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_another_user_on_the_demos_port_finds_no_rendezvous_state_and_runs_no_code(tmp_path: Path) -> None:
    run = local_demo(tmp_path / "run", steps=195)
    assert run.stdout is not None
    lines = []
    for line in run.stdout:
        lines.append(line)
        found = re.search(r"--rdzv-backend=static --rdzv-endpoint=127\.0\.0\.1:(\d+) ", line)
        if found:
            break
    else:
        pytest.fail("".join(lines))
    attacker = dist.TCPStore("127.0.0.1", int(found.group(1)), is_master=False, timeout=timedelta(seconds=60))
    deadline = time.monotonic() + 60
    while not [key for key in attacker.list_keys() if key.startswith("app/")] and time.monotonic() < deadline:
        time.sleep(0.2)  # the workers' keys appear once the trainer has started
    keys = attacker.list_keys()
    assert not [key for key in keys if key.startswith("torch.rendezvous")], keys
    # Every value the ranks wrote is sealed; a counter (store.add, counted on the server) cannot be, and a rewritten
    # one only makes the ranks disagree and stop (docs/security.md)
    theirs = [key for key in keys if key.startswith(("app/", "user/")) and not key.endswith("/counter")]
    values = {key: attacker.get(key) for key in theirs}
    assert theirs and not {key: value for key, value in values.items() if not value.startswith(b"ddp-hmac1:")}
    proof = tmp_path / "attacker-code-ran"
    for key in keys:
        attacker.set(key, pickle.dumps(Payload(proof)))
    output = "".join(lines) + run.communicate(timeout=300)[0]
    assert not proof.exists(), output
    # The ranks meet the forged values and stop (exit 10, torchrun 1), or finished before reading any
    assert run.returncode in (0, 1), output
    assert "the job's rendezvous store was tampered with" in output or "completed at step 195" in output, output[-3000:]


def test_nothing_to_run_is_refused_with_an_example() -> None:
    done = subprocess.run([sys.executable, "-m", "app.launch", "local", "--nproc-per-node=2"], cwd=REPO,
                          env=clean_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == ("job: error: nothing to run: give the program after --, e.g. python3 -m app.launch local "
                           "--nproc-per-node=2 -- -m app.train --config demo\n")
