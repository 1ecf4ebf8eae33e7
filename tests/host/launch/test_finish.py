"""app/host/launch/finish.py and the job's end (app/host/launch/job.py JobRun.finish): a job stopped for a snapshot is
requeued; any other ends as it ran."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.host.launch.finish import Ending, ending
from tests.host.launch.job_parts import Ran, job_parts

RUN_DIR = "/scratch/runs/42"


@pytest.mark.parametrize("rc, preempted, requeue, expected", [
    (0, "", "1", Ending(0, "", False)),
    (1, "", "1", Ending(1, "", False)),
    (1, "TERM", "1", Ending(1, "", False)),  # scancel: no snapshot was asked of the time limit
    (0, "USR1", "1", Ending(0, "", False)),  # the run finished before the limit
    (75, "USR1", "1", Ending(75, f"requeueing job 42; it resumes from the newest snapshot in {RUN_DIR}", True)),
    (75, "USR1", "0", Ending(75, f"REQUEUE=0: not requeueing; resubmit with RUN_DIR={RUN_DIR} to resume", False)),
])
def test_only_a_snapshot_asked_by_usr1_is_requeued(rc, preempted, requeue, expected):
    assert ending(rc, preempted, requeue, "42", RUN_DIR) == expected


def finish(tmp_path: Path, preempted: str, requeue: str, scontrol_exit: int) -> Ran:
    """The job's end after a step that exited 75 (PREEMPTED: the signal that asked for a snapshot), with a stand-in
    scontrol that records its arguments and exits SCONTROL_EXIT."""
    (tmp_path / "scontrol").write_text(f'#!/bin/sh\necho "scontrol $*" >> {tmp_path}/calls\nexit {scontrol_exit}\n')
    (tmp_path / "scontrol").chmod(0o755)
    return job_parts(["finish"], {"PATH": f"{tmp_path}:{os.environ['PATH']}", "RUN_DIR": RUN_DIR, "REQUEUE": requeue},
                     script="t.sh", rc="75", preempted=preempted)


def test_the_job_runs_the_requeue_and_exits_75(tmp_path):
    result = finish(tmp_path, "USR1", "1", 0)
    assert result.returncode == 75, result.stderr
    assert "requeueing job 42" in result.stdout
    assert (tmp_path / "calls").read_text() == "scontrol requeue 42\n"


def test_a_failed_requeue_stops_in_one_line_that_says_how_to_resume(tmp_path):
    result = finish(tmp_path, "USR1", "1", 1)
    assert result.returncode == 2
    assert result.stderr == ("t.sh: error: scontrol requeue 42 failed (submitted with --no-requeue?); resubmit by "
                             f"hand: sbatch --export=ALL,RUN_DIR={RUN_DIR} ... to resume from the newest snapshot\n")


def test_any_other_ending_keeps_the_steps_exit_code(tmp_path):
    assert finish(tmp_path, "", "1", 0).returncode == 75 and not (tmp_path / "calls").exists()
    assert finish(tmp_path, "USR1", "0", 0).returncode == 75 and not (tmp_path / "calls").exists()
