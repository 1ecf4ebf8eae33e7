"""The PBS questions of `python3 -m app.launch` (app/launch/cli.py), for jobscripts/lib-pbs.sh:

    pbs-nodes --nodefile=PBS_NODEFILE       the job's nodes, each once, the head first, every name resolving
    pbs-workload -- TEXT                    WORKLOAD's words (qsub gives a batch script no arguments)
    pbs-launch --launcher= --workload= --nnodes= --nproc=
                                            STEP, N, the per-node launcher's N words, then the step's launcher
    pbs-resubmit --job-id=PBS_JOBID         qsub's options that submit this job again as it was (from qstat -f)
    pbs-timer --job-id= --walltime-s= --margin-s= --elapsed-s=
                                            seconds until USR1 before the walltime ends, or nothing: no timer
    pbsdsh-run --run-dir= --job-id= --nodefile= --cwd= -- COMMAND...
                                            COMMAND once on every node through pbsdsh (app/launch/pbsdsh.py);
                                            answer: the highest exit code of the tasks

Standard library only, Python 3.6 on.
"""

import argparse
import shlex
import sys
from typing import List

from app.common.errors import UsageError
from app.launch import pbs
from app.launch.numbers import is_whole
from app.launch.pbs_launch import pbs_launch
from app.launch.pbs_nodes import job_nodes
from app.launch.pbsdsh import run_on_each_node
from app.launch.words import split_words


def _whole(name: str, value: str) -> int:
    if not is_whole(value):
        raise UsageError(f"{name}={value} is not a whole number; example: {name}=4")
    return int(value)


def ask_nodes(job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer(job_nodes(options.nodefile).nodes)


def ask_workload(job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer(split_words("WORKLOAD", words[0] if words else ""))


def ask_launch(job, options: argparse.Namespace, words: List[str]) -> None:
    launch = pbs_launch(options.launcher, options.workload, _whole("DDP_NNODES", options.nnodes),
                        _whole("DDP_NPROC", options.nproc))
    job.answer([launch.step, str(len(launch.per_node)), *launch.per_node, *launch.launcher])


def ask_resubmit(job, options: argparse.Namespace, words: List[str]) -> None:
    """A bare `qsub SCRIPT` would take the script's #PBS defaults and the server's default queue: the account, the
    queue, a `-l select=...` given on the command line, site resources inside the chunks and the placement would
    be lost. What qstat -f cannot tell leaves the resubmission to those defaults, and the log says so."""
    text = pbs.read_qstat_full(options.job_id)
    if not text.strip():
        job.log(f"warning: qstat -f {options.job_id} said nothing: resubmitting with the script's #PBS defaults only")
        job.answer([])
        return
    try:
        found = pbs.submission_options(pbs.parse_qstat_full(text)[1])
    except UsageError as cause:
        print(f"{job.script}: error: {cause}", file=sys.stderr, flush=True)
        job.log("warning: this job's qstat -f could not be read (above): resubmitting with the script's #PBS "
                "defaults only")
        job.answer([])
        return
    job.log("resubmitting with this job's options: " + " ".join(shlex.quote(option) for option in found))
    job.answer(found)


def ask_timer(job, options: argparse.Namespace, words: List[str]) -> None:
    qstat_text = "" if options.walltime_s else pbs.read_qstat_full(options.job_id)
    timer = pbs.timer_delay(options.walltime_s, options.margin_s, options.elapsed_s, qstat_text)
    job.log(timer.note)
    job.answer([] if timer.delay_s is None else [str(timer.delay_s)])


def ask_pbsdsh_run(job, options: argparse.Namespace, words: List[str]) -> None:
    if not words:
        raise UsageError("pbsdsh-run needs -- COMMAND...; example: -- hostname")

    def error(line: str) -> None:
        print(f"{job.script}: error: {line}", file=sys.stderr, flush=True)

    job.answer([str(run_on_each_node(job.log, error, words, options.run_dir, options.job_id, options.nodefile,
                                     options.cwd))])


def add_questions(questions) -> None:
    """The PBS questions, added to app.launch's subparsers."""
    nodes = questions.add_parser("pbs-nodes", help="the job's nodes from PBS_NODEFILE, each once, the head first")
    nodes.add_argument("--nodefile", required=True, help="PBS_NODEFILE")
    nodes.set_defaults(ask=ask_nodes)
    questions.add_parser("pbs-workload", help="WORKLOAD's words: -- TEXT").set_defaults(ask=ask_workload)
    launch = questions.add_parser("pbs-launch", help="PBS's launchers; answer: STEP (torchrun, mpi), N, the "
                                  "per-node launcher's N words, then the step's launcher")
    launch.add_argument("--launcher", default="", help="LAUNCHER (mpiexec, pbsdsh)")
    launch.add_argument("--workload", required=True, help="the workload's kind")
    launch.add_argument("--nnodes", required=True, help="DDP_NNODES")
    launch.add_argument("--nproc", required=True, help="DDP_NPROC")
    launch.set_defaults(ask=ask_launch)
    resubmit = questions.add_parser("pbs-resubmit", help="qsub's options that submit this job again as it was")
    resubmit.add_argument("--job-id", required=True, help="PBS_JOBID")
    resubmit.set_defaults(ask=ask_resubmit)
    timer = questions.add_parser("pbs-timer", help="seconds until USR1 before the walltime ends (none: no timer)")
    timer.add_argument("--job-id", required=True, help="PBS_JOBID, for qstat -f when WALLTIME_S is empty")
    timer.add_argument("--walltime-s", default="", help="WALLTIME_S")
    timer.add_argument("--margin-s", required=True, help="PREEMPT_MARGIN_S")
    timer.add_argument("--elapsed-s", required=True, help="seconds the job has run ($SECONDS)")
    timer.set_defaults(ask=ask_timer)
    pbsdsh = questions.add_parser("pbsdsh-run", help="-- COMMAND once on every node through pbsdsh; answer: the "
                                  "highest exit code of the tasks")
    for flag, help_text in (("--run-dir", "RUN_DIR, shared by the nodes"), ("--job-id", "DDP_JOB_ID"),
                            ("--nodefile", "PBS_NODEFILE"), ("--cwd", "where the tasks start ($PWD)")):
        pbsdsh.add_argument(flag, required=True, help=help_text)
    pbsdsh.set_defaults(ask=ask_pbsdsh_run)
