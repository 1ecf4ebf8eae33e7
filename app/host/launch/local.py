"""`python3 -m app.launch local --nproc-per-node=N -- PROGRAM...`: one machine, no scheduler (the demo, a
workstation): torchrun started as a job starts it on each node, not with `--standalone` (standard library only).

torchrun's `--standalone` is its c10d rendezvous on a local port, whose state is a pickle in the store that every
agent loads at each sync (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py), and torch's TCPStore listens
on every interface and lists its keys to any client: another user of the machine, or of a host that routes to it,
who replaced that pickle ran their code in the agent as you. Here, as in a job (app/host/launch/plan.py): the static
rendezvous, whose agent loads nothing from the store, at a free port (app/host/common/rendezvous_port.py); a fresh
DDP_STORE_SECRET the trainer and app.check seal their values with (yours is kept); each worker's rank from the node
(TORCH_ELASTIC_WORKER_IDENTICAL=1); for the project's own workloads PYTHONSAFEPATH and this checkout first on
PYTHONPATH (app/host/launch/import_path.py). Then torchrun replaces this process: its exit code is the run's.
"""

import argparse
import os
import secrets
import shutil
import sys
from typing import Callable, Dict, List, Mapping, Sequence

from app.host.common.errors import UsageError
from app.host.common.rendezvous_port import free_port
from app.host.launch.checkout import REPO
from app.host.launch.import_path import import_path_env
from app.host.launch.knobs import STORE_SECRET

#: The project's own workloads, by the module torchrun's `-m` names
OWN_MODULES = {"app.train": "train", "app.check": "check"}


def torchrun_argv(torchrun: str, nproc: int, port: int, program: Sequence[str]) -> List[str]:
    """One node's torchrun, static rendezvous on this machine's loopback at PORT."""
    return [torchrun, "--nnodes=1", "--node-rank=0", f"--nproc-per-node={nproc}", "--rdzv-backend=static",
            f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=local", *program]


def local_env(program: Sequence[str], env: Mapping[str, str], log: Callable[[str], None]) -> Dict[str, str]:
    """ENV with what the run's processes need: the store's secret, ranks from the node, the import path."""
    out = dict(env)
    if not out.get(STORE_SECRET):
        out[STORE_SECRET] = secrets.token_hex(16)
    out.setdefault("TORCH_ELASTIC_WORKER_IDENTICAL", "1")
    kind = OWN_MODULES.get(program[1], "") if len(program) > 1 and program[0] == "-m" else ""
    for assignment in import_path_env(kind, REPO, out, log):
        name, _, value = assignment.partition("=")
        out[name] = value
    return out


def find_torchrun(given: str) -> str:
    """GIVEN, else the torchrun beside this Python (a venv's), else the one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "torchrun")
    found = given or (beside if os.access(beside, os.X_OK) else shutil.which("torchrun") or "")
    if not found or not os.access(found, os.X_OK):
        raise UsageError(f"no torchrun {'at ' + given if given else 'beside ' + sys.executable + ' or on PATH'}; "
                         "activate the environment that has torch (e.g. source .venv/bin/activate) or give "
                         "--torchrun=/path/to/torchrun")
    return found


def run_local(options: argparse.Namespace, program: List[str], log: Callable[[str], None]) -> int:
    if not program:
        raise UsageError("nothing to run: give the program after --, e.g. python3 -m app.launch local "
                         "--nproc-per-node=2 -- -m app.train --config demo")
    if options.nproc_per_node < 1:
        raise UsageError(f"--nproc-per-node={options.nproc_per_node}: give 1 or more, e.g. --nproc-per-node=2")
    torchrun = find_torchrun(options.torchrun)
    env = local_env(program, os.environ, log)
    argv = torchrun_argv(torchrun, options.nproc_per_node, free_port(), program)
    log(f"{' '.join(argv)} (static rendezvous: the agent loads nothing from the store; {STORE_SECRET} set, not "
        "shown)")
    os.execve(torchrun, argv, env)
    return 0  # not reached: torchrun replaced this process


def add_command(commands: "argparse._SubParsersAction") -> None:
    local = commands.add_parser("local", help="one machine, no scheduler: torchrun as a job starts it on a node "
                                "(static rendezvous, sealed store), -- the program (e.g. -m app.train --config demo)")
    local.add_argument("--nproc-per-node", type=int, default=1, help="workers (ranks) on this machine")
    local.add_argument("--torchrun", default="", help="torchrun to run (default: beside this Python, else on PATH)")
    local.set_defaults(run=lambda job, options, words: run_local(options, words, job.log))
