"""The job's bad-node requeue (app/host/launch/job.py JobRun.requeue_for_bad_nodes) with a stand-in scontrol: the
requeue step on a run directory as a crash may leave it. The end-to-end bad-node requeue (a node left out, the job
requeued) is in test_jobscripts_slurm.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.host.launch.job_parts import Ran, job_parts


def bad_node_requeue(run_dir: Path, scheduler: str = "slurm", script_name: str = "test.sh") -> Ran:
    """The job's bad-node requeue after a step that failed, blaming node2; a stand-in scontrol records its calls in
    RUN_DIR/scontrol-calls (Slurm's answer to `show job`: no exclude list yet)."""
    (run_dir / "nodes-to-exclude.txt").write_text("node2\n")
    bin_dir = run_dir / "bin"
    bin_dir.mkdir()
    (bin_dir / "scontrol").write_text(f'#!/bin/sh\necho "$*" >>{run_dir}/scontrol-calls\n'
                                      '[ "$1 $2" = "show job" ] && echo "JobId=42 ExcNodeList=(null)"\nexit 0\n')
    (bin_dir / "scontrol").chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "RUN_DIR": str(run_dir), "IMAGE": "none", "MAX_REQUEUES": "3"}
    return job_parts(["bad-node-requeue"], env, script=script_name, scheduler=scheduler, reason="the workload failed")


def test_a_history_with_damaged_bytes_and_a_cut_last_line_still_requeues_with_its_line(tmp_path):
    (tmp_path / "history.jsonl").write_bytes(b'{"attempt": 1, "start_step": 0}\n'
                                             b'{"event": "requeue", "reason": "caf\xe9"}\n{"event": "req')
    result = bad_node_requeue(tmp_path)
    assert result.returncode == 75, result.stderr  # requeued (EX_TEMPFAIL)
    assert "leaving out node2 and requeueing (1 of at most 3 in a row)" in result.stderr + result.stdout
    last = json.loads((tmp_path / "history.jsonl").read_bytes().splitlines()[-1])
    assert last["event"] == "requeue" and last["excluded"] == ["node2"]
    calls = (tmp_path / "scontrol-calls").read_text().splitlines()
    assert calls[-2:] == ["requeue 42", "update JobId=42 ExcNodeList=node2"]


def test_giving_up_under_pbs_names_qsub_to_check_the_nodes_and_resume(tmp_path):
    """The hint after MAX_REQUEUES bad-node requeues in a row: the submit command of the scheduler in use."""
    (tmp_path / "history.jsonl").write_text("".join('{"event": "requeue", "reason": "slow", "excluded": ["n2"]}\n'
                                                    for _ in range(3)))
    result = bad_node_requeue(tmp_path, scheduler="pbs", script_name="gh200-pbs.sh")
    assert result.returncode == 1, result.stderr
    assert 'check the nodes (qsub -v WORKLOAD="check" gh200-pbs.sh)' in result.stderr, result.stderr
    assert "sbatch" not in result.stderr
