"""The PBS questions of `python3 -m app.launch` (app/launch/cli.py), for jobscripts/lib-pbs.sh:

    pbs-workload -- TEXT                    WORKLOAD's words (qsub gives a batch script no arguments)
    pbs-launch --launcher= --workload= --nnodes= --nproc= --run-dir= --job-id= --nodefile=
                                            STEP, N, M, the per-node launcher's N words, the step's M, then
                                            NAME=VALUE to export
    pbs-resubmit --job-id=PBS_JOBID         qsub's options that submit this job again as it was (from qstat -f)
    pbs-timer --job-id= --walltime-s= --margin-s= --elapsed-s=
                                            seconds until USR1 before the walltime ends, or nothing: no timer
    pbsdsh-run --run-dir= --job-id= --nodefile= --cwd= -- COMMAND...
                                            COMMAND once on every node through pbsdsh (app/launch/pbsdsh.py);
                                            exit: the highest exit code of the tasks

Standard library only, Python 3.6 on.
"""

import argparse
import os
from pathlib import Path
from typing import List

from app.common.errors import UsageError
from app.common.private_dir import ensure_private_dir
from app.common.scheduler_env import Pbs, variable_of
from app.launch import pbs
from app.launch.checkout import module_command
from app.launch.env_defaults import env_defaults
from app.launch.mpi_ranks import mpi_rank_defaults
from app.launch.numbers import whole
from app.launch.pbs_launch import pbs_launch
from app.launch.pbsdsh import run_on_each_node
from app.launch.requeue import pbs_submission_options
from app.launch.say import error_line
from app.launch.words import split_words

#: The node file PBS names (bash hands its path on: --nodefile)
NODEFILE = variable_of(Pbs, "nodefile")


def ask_workload(job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer(split_words("WORKLOAD", words[0] if words else ""))


def ask_launch(job, options: argparse.Namespace, words: List[str]) -> None:
    pbsdsh = module_command("app.launch", "--script=" + job.script, "pbsdsh-run", "--run-dir=" + options.run_dir,
                            "--run-dir-mode=" + options.run_dir_mode, "--job-id=" + options.job_id,
                            "--nodefile=" + options.nodefile, "--")
    launch = pbs_launch(options.launcher, options.workload, whole("DDP_NNODES", options.nnodes),
                        whole("DDP_NPROC", options.nproc), pbsdsh)
    exports = env_defaults(job.log, os.environ, mpi_rank_defaults(options.workload, ""))
    job.answer([launch.step, str(len(launch.per_node)), str(len(launch.launcher)), *launch.per_node,
                *launch.launcher, *exports])


def ask_resubmit(job, options: argparse.Namespace, words: List[str]) -> None:
    job.answer(pbs_submission_options(job.log, job.script, options.job_id))


def ask_timer(job, options: argparse.Namespace, words: List[str]) -> None:
    qstat_text = "" if options.walltime_s else pbs.read_qstat_full(options.job_id)
    timer = pbs.timer_delay(options.walltime_s, options.margin_s, options.elapsed_s, qstat_text)
    job.log(timer.note)
    job.answer([] if timer.delay_s is None else [str(timer.delay_s)])


def ask_pbsdsh_run(job, options: argparse.Namespace, words: List[str]) -> int:
    if not words:
        raise UsageError("pbsdsh-run needs -- COMMAND...; example: -- hostname")

    # The step's environment, secrets included, goes to a file in RUN_DIR: only if RUN_DIR is yours alone
    ensure_private_dir(Path(options.run_dir), "RUN_DIR", int(options.run_dir_mode, 8), "$SCRATCH/runs/$PBS_JOBID",
                       parents=True)
    return run_on_each_node(job.log, lambda line: error_line(job.script, line), words, options.run_dir,
                            options.job_id, options.nodefile, options.cwd)


def add_questions(questions) -> None:
    """The PBS questions, added to app.launch's subparsers."""
    questions.add_parser("pbs-workload", help="WORKLOAD's words: -- TEXT").set_defaults(ask=ask_workload)
    launch = questions.add_parser("pbs-launch", help="PBS's launchers; answer: STEP (torchrun, mpi), N, M, the "
                                  "per-node launcher's N words, the step's M, then NAME=VALUE to export")
    launch.add_argument("--launcher", default="", help="LAUNCHER (mpiexec, pbsdsh)")
    launch.add_argument("--workload", required=True, help="the workload's kind")
    launch.add_argument("--nnodes", required=True, help="DDP_NNODES")
    launch.add_argument("--nproc", required=True, help="DDP_NPROC")
    for flag, help_text in (("--run-dir", "RUN_DIR"), ("--job-id", "DDP_JOB_ID"), ("--nodefile", NODEFILE)):
        launch.add_argument(flag, default="", help=help_text + ", for pbsdsh")
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
    pbsdsh = questions.add_parser("pbsdsh-run", help="-- COMMAND once on every node through pbsdsh; exit: the "
                                  "highest exit code of the tasks")
    for flag, help_text in (("--run-dir", "RUN_DIR, shared by the nodes"), ("--job-id", "DDP_JOB_ID"),
                            ("--nodefile", NODEFILE)):
        pbsdsh.add_argument(flag, required=True, help=help_text)
    pbsdsh.add_argument("--cwd", default=os.getcwd(), help="where the tasks start (here)")
    for added in (launch, pbsdsh):
        added.add_argument("--run-dir-mode", default="700", help="RUN_DIR_MODE")
    pbsdsh.set_defaults(ask=ask_pbsdsh_run)
