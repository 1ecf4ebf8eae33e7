"""`python -m app.check`: can these nodes train together? Thin entry: parse, run, exit code.

    python -m app.check                                   # this node only
    torchrun --nnodes=2 --nproc-per-node=4 ... -m app.check --json check.json
    srun --ntasks-per-node=4 python -m app.check --site mn5
    apptainer exec --nv app.sif python -m app.check --node-only

Exit codes (options.EXIT_CODES): 0 pass, 1 traceback, 2 usage, 3 rendezvous, 4 timeout, 5 wrong results, 6 slow,
7 preflight, 10 tampered store, 130 Ctrl-C.
"""

from __future__ import annotations

import logging
import os
import sys

from app.check.options import parse_options
from app.check.runner import run_check
from app.common.cluster import detect_environment
from app.common.compile_cache import private_compile_caches
from app.common.distributed import hostname
from app.common.fabric_env import ensure_fabric_policy
from app.common.logs import setup_logging
from app.host.common.errors import exits_cleanly


@exits_cleanly
def main(argv: list[str] | None = None) -> int:
    settings, probe = parse_options(argv)
    environment = detect_environment(os.environ)
    setup_logging(hostname(), environment.rank(), main_level=logging.WARNING)
    # Under `apptainer exec`, nothing applied the fabric policy: the check must measure what the job will run.
    ensure_fabric_policy(environment.local_rank())
    for line in private_compile_caches():  # what is in torch.compile's caches runs as you (a probe may compile)
        if environment.local_rank() == 0 and line.startswith("warning"):
            print(line, file=sys.stderr)
    return run_check(settings, probe, os.environ)
