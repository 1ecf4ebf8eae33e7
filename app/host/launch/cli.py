"""`python3 -m app.launch`: the job, and the pbsdsh launcher it runs on every step's line under PBS.

    python3 -m app.launch --script NAME job [--scheduler pbs] [--site SITE] -- ARGS...
                                                                the whole job (app/host/launch/job.py), as
                                                                jobscripts/slurm.sh, mn5.sh and gh200-pbs.sh start it
    python3 -m app.launch local [--nproc-per-node=N] -- PROGRAM...
                                                                one machine, no scheduler (make demo): torchrun as
                                                                a job starts it on a node (app/host/launch/local.py)
    python3 -m app.launch --script NAME pbsdsh-run --run-dir= --job-id= --nodefile= -- COMMAND...
                                                                COMMAND once on every node through pbsdsh: the PBS
                                                                job's launcher under LAUNCHER=pbsdsh (pbs_job.py)

Log lines go to stdout as the job's log writes them ("[HH:MM:SS NAME] ..."); bad input is one line
"NAME: error: ..." on stderr and exit 2, no traceback. Standard library only: it runs on the batch host's python3
(SLES 15: 3.6), outside the image.
"""

import argparse
import os
import sys
from typing import List, Optional, Sequence

from app.host.common import exitcodes
from app.host.common.errors import UsageError
from app.host.launch.job import SLURM, run_job
from app.host.launch.local import add_command as add_local_command
from app.host.launch.pbs_job import PBS
from app.host.launch.pbsdsh_command import add_command as add_pbsdsh_command
from app.host.launch.say import error_line, log_line
from app.host.launch.sites import SITES, apply_site_defaults


class Job:
    """Whose log lines a command writes: the job script's name."""

    def __init__(self, script: str) -> None:
        self.script = script

    def log(self, message: str) -> None:
        log_line(self.script, message)


def run_job_command(job: Job, options: argparse.Namespace, words: List[str]) -> int:
    applied = apply_site_defaults(options.site, os.environ) if options.site else []
    if applied:
        job.log(f"site {options.site}'s defaults: {' '.join(applied)} (app/host/launch/sites.py; a value you set wins)")
    return run_job(job.script, PBS if options.scheduler == "pbs" else SLURM, words)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python3 -m app.launch", description=__doc__.split("\n\n")[0].split(": ")[1],
                                  formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n")[1])
    top.add_argument("--script", default="job", help="the job script's name, for messages")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    whole_job = commands.add_parser("job", help="the whole job: -- the job's arguments (jobscripts/slurm.sh, mn5.sh "
                                    "and, with --scheduler=pbs, gh200-pbs.sh start it); exit: the job's")
    whole_job.add_argument("--scheduler", default="slurm", choices=("slurm", "pbs"), help="the job's scheduler")
    whole_job.add_argument("--site", choices=sorted(SITES), help="the site whose defaults (app/host/launch/sites.py) "
                           "apply where you set no value")
    whole_job.set_defaults(run=run_job_command)
    add_pbsdsh_command(commands)
    add_local_command(commands)
    return top


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    words = []  # type: List[str]
    if "--" in argv:
        words = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    options = parser().parse_args(argv)
    job = Job(options.script)
    try:
        code = options.run(job, options, words)
    except UsageError as error:
        error_line(options.script, str(error))
        return exitcodes.USAGE
    return exitcodes.OK if code is None else code
