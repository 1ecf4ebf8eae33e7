"""`python3 -m app.launch pbsdsh-run` (app/host/launch/cli.py): the launcher the PBS job (app/host/launch/pbs_job.py)
starts under LAUNCHER=pbsdsh, as a command of its own on every step's line.

    pbsdsh-run --run-dir= --job-id= --nodefile= --cwd= -- COMMAND...
                                            COMMAND once on every node through pbsdsh (app/host/launch/pbsdsh.py);
                                            one that fails ends the others; exit: the highest exit code of the
                                            tasks (not counting the SIGTERM of those it ended)

Standard library only, Python 3.6 on.
"""

import argparse
import os
from pathlib import Path
from typing import List

from app.host.common.errors import UsageError
from app.host.common.private_dir import RUN_DIR_EXAMPLE, ensure_private_dir
from app.host.common.scheduler_env import Pbs, variable_of
from app.host.launch.pbsdsh import run_on_each_node
from app.host.launch.say import error_line

#: The node file PBS names (the job hands its path on: --nodefile)
NODEFILE = variable_of(Pbs, "nodefile")


def run_pbsdsh(job, options: argparse.Namespace, words: List[str]) -> int:
    if not words:
        raise UsageError("pbsdsh-run needs -- COMMAND...; example: -- hostname")

    # The step's environment, secrets included, goes to a file in RUN_DIR: only if RUN_DIR is yours alone
    ensure_private_dir(Path(options.run_dir), "RUN_DIR", int(options.run_dir_mode, 8), RUN_DIR_EXAMPLE,
                       parents=True)
    return run_on_each_node(job.log, lambda line: error_line(job.script, line), words, options.run_dir,
                            options.job_id, options.nodefile, options.cwd)


def add_command(commands) -> None:
    """pbsdsh-run, added to app.launch's subparsers."""
    pbsdsh = commands.add_parser("pbsdsh-run", help="-- COMMAND once on every node through pbsdsh; exit: the "
                                  "highest exit code of the tasks")
    for flag, help_text in (("--run-dir", "RUN_DIR, shared by the nodes"), ("--job-id", "the job's id"),
                            ("--nodefile", NODEFILE)):
        pbsdsh.add_argument(flag, required=True, help=help_text)
    pbsdsh.add_argument("--cwd", default=os.getcwd(), help="where the tasks start (here)")
    pbsdsh.add_argument("--run-dir-mode", default="700", help="RUN_DIR_MODE")
    pbsdsh.set_defaults(run=run_pbsdsh)
