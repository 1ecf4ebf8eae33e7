"""app.host.launch.bad_node_requeue: after a step that blamed nodes, requeue without them or as before, or give up.

The decision is a pure function of the facts (tested as a table); the job's bad-node requeue (app/host/launch/job.py
JobRun.requeue_for_bad_nodes) reads the blamed nodes from the run directory, records the decision in history.jsonl and
runs the scheduler's requeue itself (tested with stand-in scontrol, qstat and qsub that record their arguments).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.common.history import append_event
from app.host.launch import bad_node_requeue
from tests.host.launch.job_parts import job_parts

REPO = Path(__file__).resolve().parents[3]


def facts(scheduler: str = "slurm", in_a_row: int = 0, max_requeues: int = 3, nodes: tuple[str, ...] = ("node2",),
          reason: str = "the workload failed (exit 1)") -> bad_node_requeue.RequeueEvidence:
    return bad_node_requeue.RequeueEvidence(scheduler=scheduler, reason=reason, nodes=nodes, requeues_in_a_row=in_a_row,
                      max_requeues=max_requeues, check_command="sbatch slurm.sh check", run_dir="/scratch/runs/42")


@pytest.mark.parametrize(("scheduler", "in_a_row", "max_requeues", "action"), [
    ("slurm", 0, 3, bad_node_requeue.EXCLUDE),
    ("slurm", 2, 3, bad_node_requeue.EXCLUDE),
    ("slurm", 3, 3, bad_node_requeue.GIVE_UP),
    ("slurm", 7, 3, bad_node_requeue.GIVE_UP),   # MAX_REQUEUES lowered between two attempts
    ("slurm", 0, 0, bad_node_requeue.GIVE_UP),   # MAX_REQUEUES=0: never requeue for a bad node
    ("pbs", 0, 3, bad_node_requeue.REQUEUE),     # PBS cannot leave a node out: resubmitted as it was
    ("pbs", 2, 3, bad_node_requeue.REQUEUE),
    ("pbs", 3, 3, bad_node_requeue.GIVE_UP),
])
def test_the_decision_table(scheduler, in_a_row, max_requeues, action):
    assert bad_node_requeue.decide(facts(scheduler, in_a_row, max_requeues)).action == action


def test_leaving_nodes_out_says_which_and_counts_the_requeues_in_a_row():
    decision = bad_node_requeue.decide(facts("slurm", 1, 3, ("node2", "node7")))
    assert decision == bad_node_requeue.Decision(
        action=bad_node_requeue.EXCLUDE, nodes=("node2", "node7"),
        message="the workload failed (exit 1): leaving out node2,node7 and requeueing (2 of at most 3 in a row)",
        history_reason="the workload failed (exit 1); left out node2,node7")


def test_under_pbs_the_requeue_says_the_node_stays_in_and_who_can_take_it_out():
    decision = bad_node_requeue.decide(facts("pbs", 0, 3))
    assert decision.message == (
        "the workload failed (exit 1): requeueing as before (1 of at most 3 in a row); PBS cannot leave node2 out "
        "of a resubmission: ask your site to take it offline (pbsnodes -o node2, operator rights); the next "
        "preflight checks whatever nodes the job gets")
    assert decision.history_reason == "the workload failed (exit 1); blamed node2 (PBS cannot leave it out)"


def test_giving_up_names_the_limit_the_nodes_the_history_and_how_to_resume():
    decision = bad_node_requeue.decide(facts("slurm", 3, 3))
    assert decision.message == (
        "giving up after 3 requeue(s) in a row for bad nodes (MAX_REQUEUES=3): the workload failed (exit 1), "
        "blaming node2; see /scratch/runs/42/history.jsonl, check the nodes (sbatch slurm.sh check) and resubmit "
        "with RUN_DIR=/scratch/runs/42 to resume")
    assert decision.history_reason == "the workload failed (exit 1); blamed node2; 3 requeue(s) in a row already"


@pytest.mark.parametrize(("text", "nodes"), [
    ("node2\n", ("node2",)),
    ("node3,node2\n", ("node3", "node2")),
    ("node3\nnode2\n\nnode3\n", ("node3", "node2")),
    ("x1000c0s1b0n0.hsn.example.org,nid001003", ("x1000c0s1b0n0.hsn.example.org", "nid001003")),
])
def test_blamed_nodes_are_read_one_each_in_their_order(text, nodes):
    assert bad_node_requeue.read_nodes(text) == nodes


@pytest.mark.parametrize(("text", "cause"), [
    ("", "no blamed node"),
    (" \n,\n", "no blamed node"),
    ("node2\nnode$(reboot)\n", "'node$(reboot)' is not a node name"),
    ("-rf\n", "'-rf' is not a node name"),
])
def test_blamed_nodes_that_are_no_node_names_get_a_one_line_cause(text, cause):
    with pytest.raises(UsageError) as raised:
        bad_node_requeue.read_nodes(text)
    assert cause in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(("field", "value", "cause"), [
    ("max_requeues", "three", "MAX_REQUEUES=three is not a whole number; example: MAX_REQUEUES=3"),
    ("max_requeues", "-1", "MAX_REQUEUES=-1 is not a whole number"),
    ("requeues_in_a_row", "3 x", "history.jsonl's requeues in a row ('3 x') is not a whole number"),
    ("scheduler", "lsf", "scheduler 'lsf' is not one of pbs, slurm"),
])
def test_bad_facts_get_a_one_line_cause(field, value, cause):
    given = {"scheduler": "slurm", "reason": "r", "nodes_text": "node2", "requeues_in_a_row": "0",
             "max_requeues": "3", "check_command": "sbatch x.sh check", "run_dir": "/r", field: value}
    with pytest.raises(UsageError) as raised:
        bad_node_requeue.read_facts(**given)
    assert cause in str(raised.value), str(raised.value)


def stand_ins(bin_dir: Path, calls: Path) -> None:
    """scontrol, qstat and qsub that append their arguments to CALLS (one call a line); `scontrol show job` shows an
    exclude list of node9 (Slurm's ExcNodeList), `scontrol show hostnames` expands a comma list, qstat prints no
    qstat -f (the resubmission then keeps the script's defaults)."""
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "scontrol").write_text(
        f'#!/bin/sh\necho "scontrol $*" >>"{calls}"\ncase "$1 $2" in\n'
        '"show job") echo "JobId=$4 JobName=t ExcNodeList=node9 NodeList=node[1-2]";;\n'
        '"show hostnames") echo "$3" | tr , "\\n";;\nesac\n')
    for name in ("qstat", "qsub"):
        (bin_dir / name).write_text(f'#!/bin/sh\necho "{name} $*" >>"{calls}"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)


def requeue_job(tmp_path: Path, scheduler: str, reason: str, blamed: str | None = "node2\n", in_a_row: int = 0,
                pairs: tuple[str, ...] = (), python: str = sys.executable,
                max_requeues: str = "3") -> tuple[subprocess.CompletedProcess, list[str]]:
    """The job's bad-node requeue after a step that failed (RC 1; the job's nodes node1 node2; PAIRS: the launch
    check's, what each node calls itself then its scheduler name), after IN_A_ROW bad-node requeues; the run and the
    calls of the stand-ins."""
    run_dir, calls = tmp_path / "run", tmp_path / "calls"
    run_dir.mkdir()
    if blamed is not None:
        (run_dir / "nodes-to-exclude.txt").write_text(blamed)
    for _ in range(in_a_row):
        append_event(run_dir, "requeue", "an earlier attempt", hosts=["node1", "node2"], excluded=["node2"],
                     job_id="41", image=None)
    stand_ins(tmp_path / "bin", calls)
    job_id = "7.pbs" if scheduler == "pbs" else "42"
    env = {"PATH": f"{tmp_path}/bin:{os.environ['PATH']}", "HOME": str(tmp_path), "RUN_DIR": str(run_dir),
           "IMAGE": "app.sif", "MAX_REQUEUES": max_requeues, "DDP_JOBSCRIPT": "/jobs/t.sh"}
    names = ",".join(f"{host}={name}" for host, name in zip(pairs[0::2], pairs[1::2], strict=True))
    ran = job_parts(["bad-node-requeue"], env, cwd=tmp_path, python=python, script="t.sh", scheduler=scheduler,
                    job_id=job_id, rc="1", reason=reason, names=names)
    result = subprocess.CompletedProcess([], ran.returncode, ran.stdout.encode(), ran.stderr.encode())
    return result, calls.read_text().splitlines() if calls.exists() else []


def history(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "run" / "history.jsonl").read_text().splitlines()]


def test_the_bad_node_requeue_says_and_records_the_decision_word_for_word_whatever_the_reason_holds(tmp_path):
    reason = f"preflight failed $(touch {tmp_path}/pwned) `touch {tmp_path}/also` 'caf\u00e9\" ;\nsecond line"
    result, calls = requeue_job(tmp_path, "slurm", reason, in_a_row=1)
    assert result.returncode == 75, result.stderr.decode()  # requeued (EX_TEMPFAIL)
    assert result.stderr == b""
    assert f"] {reason}: leaving out node2 and requeueing (2 of at most 3 in a row)\n" in result.stdout.decode()
    assert history(tmp_path)[-1] | {"time": None} == {
        "event": "requeue", "time": None, "job_id": "42", "hosts": ["node1", "node2"], "image": "app.sif",
        "excluded": ["node2"], "reason": f"{reason}; left out node2"}
    # The requeue first, then the blamed node added to the exclude list the job already had
    assert calls == ["scontrol show job -o 42", "scontrol show hostnames node9", "scontrol requeue 42",
                     "scontrol update JobId=42 ExcNodeList=node9,node2"]
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "also").exists()


def test_blamed_hostnames_are_left_out_by_their_scheduler_names(tmp_path):
    result, calls = requeue_job(tmp_path, "slurm", "hang", blamed="x1000c0s1b0n0.hsn.example.org\n",
                                pairs=("x1000c0s1b0n0", "nid001003", "x1000c0s0b0n0", "nid001002"))
    assert result.returncode == 75, result.stderr.decode()
    assert ("the blamed hosts x1000c0s1b0n0.hsn.example.org are slurm node(s) nid001003"
            in result.stdout.decode())
    assert calls[-1] == "scontrol update JobId=42 ExcNodeList=node9,nid001003"
    assert history(tmp_path)[-1]["excluded"] == ["nid001003"]


def test_a_pbs_job_is_resubmitted_as_it_was_after_it_ends(tmp_path):
    result, calls = requeue_job(tmp_path, "pbs", "hang")
    assert result.returncode == 75, result.stderr.decode()
    assert calls == ["qstat -f 7.pbs", "qsub -V -W depend=afterany:7.pbs /jobs/t.sh"]
    assert "hang: requeueing as before (1 of at most 3 in a row); PBS cannot leave node2 out" in result.stdout.decode()


def test_at_max_requeues_it_gives_up_with_the_steps_exit_code_and_requeues_nothing(tmp_path):
    result, calls = requeue_job(tmp_path, "slurm", "hang", in_a_row=3)
    assert result.returncode == 1 and calls == []
    assert result.stderr.decode().splitlines() == [
        "t.sh: error: giving up after 3 requeue(s) in a row for bad nodes (MAX_REQUEUES=3): hang, blaming node2; "
        f"see {tmp_path}/run/history.jsonl, check the nodes (sbatch t.sh check) and resubmit with "
        f"RUN_DIR={tmp_path}/run to resume"]
    assert history(tmp_path)[-1]["event"] == "gave-up"


@pytest.mark.parametrize(("blamed", "max_requeues", "message"), [
    ("node2\n", "three", "t.sh: error: MAX_REQUEUES=three is not a whole number; example: MAX_REQUEUES=3"),
    ("node2\nnode$(reboot)\n", "3", "t.sh: error: 'node$(reboot)' is not a node name (letters, digits, . _ -, a "
     "letter or digit first); the blamed nodes come from nodes-to-exclude.txt in the run directory"),
    (None, "3", "t.sh: error: {run}/nodes-to-exclude.txt: No such file or directory; history.jsonl and "
     "nodes-to-exclude.txt must be regular files the job can read and append to (remove what is there, or give "
     "another RUN_DIR)"),
])
def test_bad_input_exits_2_with_one_line_and_no_traceback_and_requeues_nothing(tmp_path, blamed, max_requeues,
                                                                                message):
    result, calls = requeue_job(tmp_path, "slurm", "hang", blamed=blamed, max_requeues=max_requeues)
    assert result.returncode == 2 and b"requeue" not in result.stdout and calls == []
    assert result.stderr.decode().splitlines() == [message.format(run=tmp_path / "run")]
    assert not (tmp_path / "run" / "history.jsonl").exists()


def without_clock(text: str) -> str:
    """The job log without each line's clock."""
    return re.sub(r"^\[\d\d:\d\d:\d\d ", "[", text, flags=re.MULTILINE)


def test_the_module_runs_under_the_login_nodes_python_3_6(tmp_path):
    from tests.test_login_tools import login_python

    old = login_python()
    if old is None:
        pytest.skip("no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv install 3.6)")
    for scheduler, in_a_row in (("slurm", 0), ("pbs", 1), ("pbs", 3)):
        runs = []
        for which, python in enumerate((old, sys.executable)):  # both may be named python3
            where = tmp_path / f"{scheduler}-{in_a_row}-python-{which}"
            where.mkdir()
            result, calls = requeue_job(where, scheduler, "hang at step 5 (caf\u00e9)", "node2,node3\n",
                                        in_a_row, python=python)
            said = [without_clock(out.decode()).replace(str(where), "WHERE")
                    for out in (result.stdout, result.stderr)]
            runs.append((result.returncode, *said, calls, [entry | {"time": None} for entry in history(where)]))
        assert runs[0] == runs[1] and runs[1][0] in (1, 75), runs


def test_the_job_requeues_a_pbs_job_as_it_was_and_runs_nothing_of_the_reason(tmp_path):
    """node2 blamed twice in the exclude file; the job script's path from DDP_JOBSCRIPT."""
    reason = f"the workload failed $(touch {tmp_path}/pwned)"
    result, calls = requeue_job(tmp_path, "pbs", reason, blamed="node2\n\nnode2\n")
    result = subprocess.CompletedProcess([], result.returncode, result.stdout.decode(), result.stderr.decode())
    assert result.returncode == 75, result.stderr  # requeued (EX_TEMPFAIL)
    assert calls == ["qstat -f 7.pbs", "qsub -V -W depend=afterany:7.pbs /jobs/t.sh"]
    assert f"{reason}: requeueing as before (1 of at most 3 in a row); PBS cannot leave node2 out" in result.stdout
    history = (tmp_path / "run" / "history.jsonl").read_text().splitlines()
    assert '"excluded": ["node2"]' in history[-1] and "(PBS cannot leave it out)" in history[-1]
    assert not (tmp_path / "pwned").exists()


def test_the_job_requeues_a_slurm_job_without_the_blamed_node_by_its_slurm_name(tmp_path):
    result, calls = requeue_job(tmp_path, "slurm", "the workload failed (exit 1)", blamed="node2\n\nnode2\n",
                                pairs=("node1", "n001", "node2", "n002"))
    assert result.returncode == 75, result.stderr
    assert calls[-2:] == ["scontrol requeue 42", "scontrol update JobId=42 ExcNodeList=node9,n002"]
    assert ("the workload failed (exit 1): leaving out n002 and requeueing (1 of at most 3 in a row)"
            in result.stdout.decode())
