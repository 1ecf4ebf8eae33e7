"""How the job ends (standard library only): after a USR1 (time limit or preemption warning) that stopped an
unfinished step, the job is requeued and the new run resumes from the snapshot in the same RUN_DIR (exit 75,
app/common/exitcodes.py); otherwise it ends with the step's own exit code."""

import shlex
from typing import NamedTuple, Sequence

from app.common import exitcodes


class Ending(NamedTuple):
    """The job's exit code, its last log line (or ""), whether to run the requeue, and what to say if that fails."""

    exit_code: int
    said: str
    requeue: bool
    if_requeue_fails: str


def ending(rc: int, preempted: str, requeue: str, job_id: str, run_dir: str, requeue_cmd: Sequence[str]) -> Ending:
    if preempted != "USR1" or rc == 0:
        return Ending(rc, "", False, "")
    if requeue != "1":
        return Ending(exitcodes.PREEMPTED, f"REQUEUE=0: not requeueing; resubmit with RUN_DIR={run_dir} to resume",
                      False, "")
    command = " ".join(shlex.quote(word) for word in requeue_cmd)
    return Ending(exitcodes.PREEMPTED, f"requeueing job {job_id}; it resumes from the newest snapshot in {run_dir}",
                  True, f"requeue failed: {command} ; resubmit the job by hand, it resumes from {run_dir}")
