"""app/launch/finish.py and lib.sh's ddp_finish: a job stopped for a snapshot is requeued; any other ends as it ran."""

from __future__ import annotations

import os
import subprocess

import pytest

from app.launch.finish import Ending, ending
from tests.launch import REPO

RUN_DIR = "/scratch/runs/42"


@pytest.mark.parametrize("rc, preempted, requeue, expected", [
    (0, "", "1", Ending(0, "", False, "")),
    (1, "", "1", Ending(1, "", False, "")),
    (1, "TERM", "1", Ending(1, "", False, "")),  # scancel: no snapshot was asked of the time limit
    (0, "USR1", "1", Ending(0, "", False, "")),  # the run finished before the limit
    (75, "USR1", "1", Ending(75, f"requeueing job 42; it resumes from the newest snapshot in {RUN_DIR}", True,
                             "requeue failed: scontrol requeue 42 ; resubmit the job by hand, it resumes from "
                             + RUN_DIR)),
    (75, "USR1", "0", Ending(75, f"REQUEUE=0: not requeueing; resubmit with RUN_DIR={RUN_DIR} to resume", False, "")),
])
def test_only_a_snapshot_asked_by_usr1_is_requeued(rc, preempted, requeue, expected):
    assert ending(rc, preempted, requeue, "42", RUN_DIR, ["scontrol", "requeue", "42"]) == expected


def finish(preempted: str, requeue: str, command: str) -> subprocess.CompletedProcess:
    script = (f'source jobscripts/lib.sh; DDP_SCRIPT=t.sh DDP_JOB_ID=42 RUN_DIR={RUN_DIR} REQUEUE={requeue} '
              f'DDP_PREEMPTED={preempted}; ddp_finish 75 {command}')
    return subprocess.run(["bash", "-c", script], env={"PATH": os.environ["PATH"]}, cwd=REPO, capture_output=True,
                          text=True, timeout=60)


def test_the_job_script_runs_the_requeue_and_exits_75():
    result = finish("USR1", "1", "echo requeued")
    assert result.returncode == 75 and result.stdout.endswith("requeued\n"), result.stderr
    assert "requeueing job 42" in result.stdout


def test_a_failed_requeue_stops_in_one_line_that_says_how_to_resume():
    result = finish("USR1", "1", "false")
    assert result.returncode == 2
    assert result.stderr == ("t.sh: error: requeue failed: false ; resubmit the job by hand, it resumes from "
                             f"{RUN_DIR}\n")


def test_any_other_ending_keeps_the_steps_exit_code():
    assert finish("", "1", "echo requeued").returncode == 75 and finish("", "1", "true").stdout == ""
