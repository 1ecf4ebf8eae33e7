"""jobscripts/lib.sh's ddp_heal with a stand-in scontrol: the requeue step on a run directory as a crash may leave
it. The end-to-end healing (a node left out, the job requeued) is in test_jobscripts_slurm.py."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def heal(run_dir: Path, scheduler: str = "slurm", script_name: str = "test.sh") -> subprocess.CompletedProcess:
    """`ddp_heal` under the job scripts' `set -euo pipefail`, blaming node2; a stand-in scontrol records its calls
    in RUN_DIR/scontrol-calls (Slurm's answer to `show job`: no exclude list yet)."""
    (run_dir / "nodes-to-exclude.txt").write_text("node2\n")
    bin_dir = run_dir / "bin"
    bin_dir.mkdir()
    (bin_dir / "scontrol").write_text(f'#!/bin/sh\necho "$*" >>{run_dir}/scontrol-calls\n'
                                      '[ "$1 $2" = "show job" ] && echo "JobId=42 ExcNodeList=(null)"\nexit 0\n')
    (bin_dir / "scontrol").chmod(0o755)
    script = ('set -euo pipefail; source jobscripts/lib.sh; DDP_NODES=(node1 node2); '
              f'DDP_JOB_ID=42 IMAGE=none MAX_REQUEUES=3 DDP_SCRIPT={script_name}; '
              f'DDP_SCHEDULER={scheduler}; ddp_heal 1 "the workload failed"')
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": os.environ.get("HOME", "/tmp"), "RUN_DIR": str(run_dir)}
    return subprocess.run(["bash", "-c", script], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)


def test_a_history_with_damaged_bytes_and_a_cut_last_line_still_requeues_with_its_line(tmp_path):
    (tmp_path / "history.jsonl").write_bytes(b'{"attempt": 1, "start_step": 0}\n'
                                             b'{"event": "requeue", "reason": "caf\xe9"}\n{"event": "req')
    result = heal(tmp_path)
    assert result.returncode == 75, result.stderr  # requeued (EX_TEMPFAIL), not ended by set -e
    assert "leaving out node2 and requeueing (1 of at most 3 in a row)" in result.stderr + result.stdout
    last = json.loads((tmp_path / "history.jsonl").read_bytes().splitlines()[-1])
    assert last["event"] == "requeue" and last["excluded"] == ["node2"]
    calls = (tmp_path / "scontrol-calls").read_text().splitlines()
    assert calls[-2:] == ["requeue 42", "update JobId=42 ExcNodeList=node2"]


def test_giving_up_under_pbs_names_qsub_to_check_the_nodes_and_resume(tmp_path):
    """The hint after MAX_REQUEUES bad-node requeues in a row: the submit command of the scheduler in use."""
    (tmp_path / "history.jsonl").write_text("".join('{"event": "requeue", "reason": "slow", "excluded": ["n2"]}\n'
                                                    for _ in range(3)))
    result = heal(tmp_path, scheduler="pbs", script_name="gh200-pbs.sh")
    assert result.returncode == 1, result.stderr
    assert 'check the nodes (qsub -v WORKLOAD="check" gh200-pbs.sh)' in result.stderr, result.stderr
    assert "sbatch" not in result.stderr
