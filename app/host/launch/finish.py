"""How the job ends (standard library only): after a USR1 (time limit or preemption warning) that stopped an
unfinished step, the job is requeued (app/host/launch/requeue.py) and the new run resumes from the snapshot in the same
RUN_DIR (exit 75, app/host/common/exitcodes.py); otherwise it ends with the step's own exit code."""

from typing import NamedTuple

from app.host.common import exitcodes


class Ending(NamedTuple):
    """The job's exit code, its last log line (or ""), and whether to requeue it."""

    exit_code: int
    said: str
    requeue: bool


def ending(rc: int, preempted: str, requeue: str, job_id: str, run_dir: str) -> Ending:
    if preempted != "USR1" or rc == 0:
        return Ending(rc, "", False)
    if requeue != "1":
        return Ending(exitcodes.PREEMPTED, f"REQUEUE=0: not requeueing; resubmit with RUN_DIR={run_dir} to resume",
                      False)
    return Ending(exitcodes.PREEMPTED, f"requeueing job {job_id}; it resumes from the newest snapshot in {run_dir}",
                  True)
