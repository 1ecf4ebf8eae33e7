"""The PBS job's side of app/host/launch/job.py (standard library only, Python 3.6): what PBS Pro and Cray PALS do
otherwise than Slurm. qsub passes a batch script no arguments, so the workload comes in WORKLOAD; one launcher
process per node is PALS' `mpiexec --ppn 1` or OpenPBS' pbsdsh (app/host/launch/pbs_launch.py); PBS has no
`sbatch --signal`, so a timer sends the job USR1 PREEMPT_MARGIN_S before the walltime (app/host/launch/pbs.py); a
requeue is a resubmission with the job's own qsub options (qrerun needs operator rights: app/host/launch/requeue.py)."""

import os
import signal
import threading
import time
from typing import List, Mapping, Optional, Sequence, Tuple

from app.host.common.scheduler_env import read_pbs
from app.host.launch import pbs
from app.host.launch.checkout import module_command
from app.host.launch.env_defaults import env_defaults
from app.host.launch.job import Allocated, Job, Launch, Side, export
from app.host.launch.mpi_ranks import mpi_rank_defaults
from app.host.launch.pbs_launch import pbs_launch
from app.host.launch.words import split_words

#: Nodes the job's first line names before it says how many there are in all
NAMED_NODES = 4


def workload_arguments(args: Sequence[str], env: Mapping[str, str]) -> List[str]:
    """The job's arguments: those given (bash gh200-pbs.sh ARGS, a dry run), else WORKLOAD's words
    (qsub -v WORKLOAD="train.py --name 'a b'"), grouped as a shell groups them and never expanded."""
    if args or not env.get("WORKLOAD"):
        return list(args)
    return split_words("WORKLOAD", env["WORKLOAD"])


def first_line(job_id: str, nodes: Sequence[str], run_dir: str) -> str:
    """The job's first line: its id, its nodes (the first few, then how many in all) and its run directory."""
    more = f" ... ({len(nodes)} in all)" if len(nodes) > NAMED_NODES else ""
    return f"job {job_id} on {len(nodes)} node(s): {' '.join(nodes[:NAMED_NODES])}{more}, run directory {run_dir}"


def timer_knobs(env: Mapping[str, str]) -> Tuple[str, str]:
    """WALLTIME_S ('' when unset: qstat says) and PREEMPT_MARGIN_S (90 when unset), each whole seconds or a
    UsageError."""
    walltime_s, margin_s = env.get("WALLTIME_S", ""), env.get("PREEMPT_MARGIN_S") or "90"
    if walltime_s:
        pbs.whole_seconds("WALLTIME_S", walltime_s)
    pbs.whole_seconds("PREEMPT_MARGIN_S", margin_s)
    return walltime_s, margin_s


def usr1_timer(delay_s: float, pid: int) -> threading.Timer:
    """A started timer that sends PID SIGUSR1 after DELAY_S unless cancelled first. A daemon thread of this
    process: it ends with the job, and leaves no process behind when the step ends first."""
    timer = threading.Timer(delay_s, os.kill, (pid, signal.SIGUSR1))
    timer.daemon = True
    timer.start()
    return timer


class PbsSide(Side):
    """PBS Pro with Cray PALS (or OpenPBS' pbsdsh)."""

    name = "pbs"

    def arguments(self, args: Sequence[str], env: Mapping[str, str]) -> List[str]:
        return workload_arguments(args, env)

    def started(self, job: Job, alloc: Allocated) -> None:
        """The job's first line, once the timer's knobs are checked: the timer reads them only when the steps are
        about to start, which a dry run never reaches."""
        timer_knobs(os.environ)
        job.log(first_line(alloc.job_id, alloc.nodes, job.knobs["RUN_DIR"]))

    def launch(self, job: Job, alloc: Allocated, kind: str, nproc: int) -> Launch:
        """LAUNCHER's command lines (mpiexec: PALS; pbsdsh: this checkout's pbsdsh-run), the MPI ranks' defaults,
        and where torchrun meets."""
        k = job.knobs
        pbsdsh = module_command("app.host.launch", "--script=" + job.script, "pbsdsh-run", "--run-dir=" + k["RUN_DIR"],
                                "--run-dir-mode=" + k["RUN_DIR_MODE"], "--job-id=" + alloc.job_id,
                                "--nodefile=" + (read_pbs(os.environ).nodefile or ""), "--")
        launch = pbs_launch(os.environ.get("LAUNCHER", ""), kind, len(alloc.nodes), nproc, pbsdsh)
        export(env_defaults(job.log, os.environ, mpi_rank_defaults(kind, "")))
        if launch.step == "mpi":
            return Launch(launch.step, launch.per_node, launch.launcher, "", "")
        host, owner = job.meet(alloc)
        return Launch(launch.step, launch.per_node, launch.launcher, host, owner)

    def arm_timer(self, job: Job, job_id: str) -> Optional[threading.Timer]:
        """USR1 to this job PREEMPT_MARGIN_S before the walltime (WALLTIME_S, else `qstat -f`), which the running
        step turns into a snapshot and the end into a resubmission; none in a dry run or without a walltime."""
        if job.dry_run():
            job.log("DRY_RUN=1: no walltime timer")
            return None
        walltime_s, margin_s = timer_knobs(os.environ)
        qstat_text = "" if walltime_s else pbs.read_qstat_full(job_id)
        delay = pbs.timer_delay(walltime_s, margin_s, str(int(time.monotonic() - job.started_at)), qstat_text)
        job.log(delay.note)
        return None if delay.delay_s is None else usr1_timer(delay.delay_s, os.getpid())


PBS = PbsSide()
