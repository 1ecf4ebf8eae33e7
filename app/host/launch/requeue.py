"""The job's requeue (standard library only): Slurm's `scontrol requeue`, with the nodes to leave out added to the
job's exclude list; PBS's resubmission of the job as it was submitted (qrerun needs operator rights).

Slurm refuses to change the exclude list of a running job ("Job is no longer pending execution") and accepts it
once `scontrol requeue` has made the job pending again (PENDING while it is still completing, seen on the test
cluster). The requeue also signals the batch script: the job script ignores TERM and USR1 before it asks for this,
and so does this process (an ignored signal stays ignored across exec), so the update that follows still runs."""

import re
import shlex
import signal
import subprocess
from typing import Callable, Dict, List, Mapping, Optional, Sequence

from app.host.common.errors import UsageError
from app.host.launch import pbs
from app.host.launch.knobs import STORE_SECRET
from app.host.launch.say import error_line

Log = Callable[[str], None]


def _run(argv: Sequence[str], capture: bool = False,
         env: Optional[Mapping[str, str]] = None) -> "subprocess.CompletedProcess[str]":
    """ARGV run (in ENV, else this process's environment), its stdout read when CAPTURE. Words and output as UTF-8
    bytes, undecodable ones kept as they came: Python 3.6 under a batch job's C locale encodes a str argument as
    ASCII and stopped with a traceback at a job name `qstat -f` shows with an é (seen under 3.6.15, LANG unset)."""
    words = [word.encode("utf-8", "surrogateescape") for word in argv]
    try:
        done = subprocess.run(words, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if capture else None,
                              env=None if env is None else dict(env), check=False)
    except OSError as cause:
        return subprocess.CompletedProcess(list(argv), 127, "", str(cause))
    return subprocess.CompletedProcess(list(argv), done.returncode,
                                       (done.stdout or b"").decode("utf-8", "surrogateescape"))


def ignore_the_requeues_signals() -> None:
    for number in (signal.SIGTERM, signal.SIGUSR1):
        signal.signal(number, signal.SIG_IGN)


def slurm_exclude_list(job_id: str) -> Optional[List[str]]:
    """The job's exclude list now (ExcNodeList of `scontrol show job -o`), one name a node; None when Slurm did not
    say (slurmctld busy): an update would then drop what the job excluded before."""
    shown = _run(["scontrol", "show", "job", "-o", job_id], capture=True)
    found = re.search(r"(?:^|\s)ExcNodeList=(\S+)", shown.stdout or "")
    if shown.returncode or not found:
        return None
    if found.group(1) == "(null)":
        return []
    names = _run(["scontrol", "show", "hostnames", found.group(1)], capture=True)
    return None if names.returncode else (names.stdout or "").split()


def slurm_requeue(log: Log, job_id: str, leave_out: Sequence[str], run_dir: str) -> None:
    """`scontrol requeue JOB_ID`, then LEAVE_OUT added to the job's exclude list; UsageError when the requeue
    fails (a job submitted with --no-requeue)."""
    ignore_the_requeues_signals()
    current = slurm_exclude_list(job_id) if leave_out else []
    every = list(dict.fromkeys([*(current or []), *leave_out]))
    if _run(["scontrol", "requeue", job_id]).returncode:
        by_hand = f"sbatch --exclude={','.join(every)} --export=ALL,RUN_DIR={run_dir} ..." if every else (
            f"sbatch --export=ALL,RUN_DIR={run_dir} ...")
        raise UsageError(f"scontrol requeue {job_id} failed (submitted with --no-requeue?); resubmit by hand: "
                         f"{by_hand} to resume from the newest snapshot")
    if current is None:
        log(f"warning: could not read job {job_id}'s exclude list (scontrol show job failed), so it is left as it "
            f"was: the job may land on {','.join(leave_out)} again; to leave them out: scontrol update "
            f"JobId={job_id} ExcNodeList=<the list it has>,{','.join(leave_out)}")
    elif every:
        if _run(["scontrol", "update", f"JobId={job_id}", f"ExcNodeList={','.join(every)}"]).returncode:
            log(f"warning: could not leave out {','.join(every)} (scontrol update ExcNodeList); the job may land on "
                "them again")
        log(f"requeued job {job_id} without {','.join(every)}; it resumes from the newest snapshot in {run_dir}")


def pbs_submission_options(log: Log, script: str, job_id: str) -> List[str]:
    """qsub's options that submit this job again as it was. A bare `qsub SCRIPT` would take the script's #PBS
    defaults and the server's default queue: the account, the queue, a `-l select=...` given on the command line,
    site resources inside the chunks and the placement would be lost. What qstat -f cannot tell leaves the
    resubmission to those defaults, and the log says so."""
    text = pbs.read_qstat_full(job_id)
    if not text.strip():
        log(f"warning: qstat -f {job_id} said nothing: resubmitting with the script's #PBS defaults only")
        return []
    try:
        found = pbs.submission_options(pbs.parse_qstat_full(text)[1])
    except UsageError as cause:
        error_line(script, str(cause))
        log("warning: this job's qstat -f could not be read (above): resubmitting with the script's #PBS defaults "
            "only")
        return []
    log("resubmitting with this job's options: " + " ".join(shlex.quote(option) for option in found))
    return found


def resubmission_env(started: Mapping[str, str], run_dir: str) -> Dict[str, str]:
    """The environment a PBS resubmission goes with (qsub -V passes it on whole): the one this job started in (yours
    and PBS's, as your -V gave it), with RUN_DIR, where the next job resumes, and without DDP_STORE_SECRET.

    What the job derived for itself is not in it, so the next job derives each afresh, as a Slurm requeue does
    (slurmctld starts the batch script again with the environment sbatch sent: get_job_env in launch_job,
    src/slurmctld/job_scheduler.c): the store's secret, the grace (TORCH_ELASTIC_SHUTDOWN_TIMEOUT), the flight
    recorder's paths, the fabric's APP_* settings, the import path (PYTHONSAFEPATH, PYTHONPATH), the image's digest
    (DDP_IMAGE_DIGEST: the tag may have moved) or sha256 (DDP_IMAGE_SHA256: the file may have changed), the MPI
    ranks' defaults. RUN_DIR is the one value carried over: the next job has another id, so its default would be a
    new directory.

    The secret is left out even where you set it: -V writes every variable into the next job's Variable_List,
    which `qstat -f` shows to other users where the server lets them, and the next job would keep it as set by
    you, so a value sealed in this job's store would open in the next one's (a replay)."""
    env = {name: value for name, value in started.items() if name != STORE_SECRET}
    env["RUN_DIR"] = run_dir
    return env


def pbs_resubmit(log: Log, script: str, job_id: str, jobscript: str, run_dir: str,
                 started_env: Mapping[str, str]) -> None:
    """This job again, after it ends, with the account, queue and resources it was submitted with and the
    environment it started in (resubmission_env: same RUN_DIR, a fresh store secret); UsageError when qsub
    fails."""
    ignore_the_requeues_signals()
    options = pbs_submission_options(log, script, job_id)
    if _run(["qsub", *options, "-V", "-W", f"depend=afterany:{job_id}", jobscript],
            env=resubmission_env(started_env, run_dir)).returncode:
        raise UsageError(f"resubmission failed (qsub above); resubmit by hand with qsub and RUN_DIR={run_dir} to "
                         "resume")


def requeue(log: Log, script: str, scheduler: str, job_id: str, leave_out: Sequence[str], run_dir: str,
            jobscript: str, started_env: Mapping[str, str]) -> None:
    """The scheduler's requeue of this job (LEAVE_OUT: nodes to leave out, where it can; JOBSCRIPT and
    STARTED_ENV, the environment the job started in: what PBS resubmits)."""
    if scheduler == "slurm":
        slurm_requeue(log, job_id, leave_out, run_dir)
    else:
        pbs_resubmit(log, script, job_id, jobscript, run_dir, started_env)
