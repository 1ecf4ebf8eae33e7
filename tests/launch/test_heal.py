"""app.launch.heal: after a step that blamed nodes, requeue without them, requeue as before, or give up.

The decision is a pure function of the facts (tested as a table); the command line reads them as the job script
passes them and answers in assignments bash evaluates, every value quoted (tested through bash itself).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from app.common.errors import UsageError
from app.launch import heal

REPO = Path(__file__).resolve().parents[2]


def facts(scheduler: str = "slurm", in_a_row: int = 0, max_requeues: int = 3, nodes: tuple[str, ...] = ("node2",),
          reason: str = "the workload failed (exit 1)") -> heal.Facts:
    return heal.Facts(scheduler=scheduler, reason=reason, nodes=nodes, requeues_in_a_row=in_a_row,
                      max_requeues=max_requeues, check_command="sbatch slurm.sh check", run_dir="/scratch/runs/42")


@pytest.mark.parametrize(("scheduler", "in_a_row", "max_requeues", "action"), [
    ("slurm", 0, 3, heal.EXCLUDE),
    ("slurm", 2, 3, heal.EXCLUDE),
    ("slurm", 3, 3, heal.GIVE_UP),
    ("slurm", 7, 3, heal.GIVE_UP),   # MAX_REQUEUES lowered between two attempts
    ("slurm", 0, 0, heal.GIVE_UP),   # MAX_REQUEUES=0: never requeue for a bad node
    ("pbs", 0, 3, heal.REQUEUE),     # PBS cannot leave a node out: resubmitted as it was
    ("pbs", 2, 3, heal.REQUEUE),
    ("pbs", 3, 3, heal.GIVE_UP),
])
def test_the_decision_table(scheduler, in_a_row, max_requeues, action):
    assert heal.decide(facts(scheduler, in_a_row, max_requeues)).action == action


def test_leaving_nodes_out_says_which_and_counts_the_requeues_in_a_row():
    decision = heal.decide(facts("slurm", 1, 3, ("node2", "node7")))
    assert decision == heal.Decision(
        action=heal.EXCLUDE, nodes=("node2", "node7"),
        message="the workload failed (exit 1): leaving out node2,node7 and requeueing (2 of at most 3 in a row)",
        history_reason="the workload failed (exit 1); left out node2,node7")


def test_under_pbs_the_requeue_says_the_node_stays_in_and_who_can_take_it_out():
    decision = heal.decide(facts("pbs", 0, 3))
    assert decision.message == (
        "the workload failed (exit 1): requeueing as before (1 of at most 3 in a row); PBS cannot leave node2 out "
        "of a resubmission: ask your site to take it offline (pbsnodes -o node2, operator rights); the next "
        "preflight checks whatever nodes the job gets")
    assert decision.history_reason == "the workload failed (exit 1); blamed node2 (PBS cannot leave it out)"


def test_giving_up_names_the_limit_the_nodes_the_history_and_how_to_resume():
    decision = heal.decide(facts("slurm", 3, 3))
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
    assert heal.read_nodes(text) == nodes


@pytest.mark.parametrize(("text", "cause"), [
    ("", "no blamed node"),
    (" \n,\n", "no blamed node"),
    ("node2\nnode$(reboot)\n", "'node$(reboot)' is not a node name"),
    ("-rf\n", "'-rf' is not a node name"),
])
def test_blamed_nodes_that_are_no_node_names_get_a_one_line_cause(text, cause):
    with pytest.raises(UsageError) as raised:
        heal.read_nodes(text)
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
        heal.read_facts(**given)
    assert cause in str(raised.value), str(raised.value)


def run_module(args: list[str], stdin: str, python: str = sys.executable) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO)}
    return subprocess.run([python, "-m", "app.launch", "--script=t.sh", "heal", *args], input=stdin.encode(), env=env,
                          cwd=REPO, capture_output=True, timeout=60)


def args(scheduler: str = "slurm", in_a_row: str = "0", reason: str = "preflight failed (step exit 1)") -> list[str]:
    return ["--scheduler", scheduler, "--reason", reason, "--requeues-in-a-row", in_a_row, "--max-requeues", "3",
            "--check-command", 'qsub -v WORKLOAD="check" gh200-pbs.sh', "--run-dir", "/scratch/runs/7.pbs"]


def test_the_answer_is_the_decision_word_for_word_whatever_the_reason_holds(tmp_path):
    reason = f"preflight failed $(touch {tmp_path}/pwned) `touch {tmp_path}/also` 'caf\u00e9\" ;\nsecond line"
    result = run_module(args("slurm", "1", reason), "node2\n")
    assert result.returncode == 0, result.stderr.decode()
    assert shlex.split(result.stdout.decode()) == [
        "exclude", "node2", f"{reason}: leaving out node2 and requeueing (2 of at most 3 in a row)",
        f"{reason}; left out node2"]
    assert not list(tmp_path.iterdir())


def test_bad_input_exits_2_with_one_line_and_no_traceback():
    result = run_module(args(in_a_row="x"), "node2\n")
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().splitlines() == [
        "t.sh: error: history.jsonl's requeues in a row ('x') is not a whole number; app.common.history "
        "requeues-in-a-row RUN_DIR prints it, example: 2"]


def test_the_module_runs_under_the_login_nodes_python_3_6():
    from tests.test_login_tools import login_python

    old = login_python()
    if old is None:
        pytest.skip("no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv install 3.6)")
    for scheduler, in_a_row in (("slurm", "0"), ("pbs", "1"), ("pbs", "3")):
        given = args(scheduler, in_a_row, "hang at step 5 (caf\u00e9)")
        new = run_module(given, "node2,node3\n")
        assert new.returncode == 0 and run_module(given, "node2,node3\n", python=old).stdout == new.stdout, new.stderr


def ddp_heal(run_dir: Path, scheduler: str, reason: str) -> subprocess.CompletedProcess:
    """lib-heal.sh's ddp_heal under `set -euo pipefail`, node2 blamed; DDP_HEAL_CMD records what it was given."""
    run_dir.mkdir(exist_ok=True)
    (run_dir / "nodes-to-exclude.txt").write_text("node2\n\nnode2\n")
    script = ('set -euo pipefail; source jobscripts/lib.sh; DDP_NODES=(node1 node2); DDP_JOB_ID=7.pbs IMAGE=none '
              'MAX_REQUEUES=3 DDP_SCRIPT=gh200-pbs.sh; healed() { echo "healed: $*" >"$RUN_DIR/healed"; }; '
              f'DDP_HEAL_CMD=healed; DDP_SCHEDULER={scheduler}; ddp_heal 1 "$REASON"')
    env = {"PATH": os.environ["PATH"], "HOME": str(run_dir), "RUN_DIR": str(run_dir), "REASON": reason}
    return subprocess.run(["bash", "-c", script], env=env, cwd=REPO, capture_output=True, text=True, timeout=60)


def test_the_job_script_requeues_a_pbs_job_as_it_was_and_runs_nothing_of_the_reason(tmp_path):
    reason = f"the workload failed $(touch {tmp_path}/pwned)"
    result = ddp_heal(tmp_path / "run", "pbs", reason)
    assert result.returncode == 75, result.stderr  # requeued (EX_TEMPFAIL)
    assert (tmp_path / "run" / "healed").read_text() == "healed: node2\n"
    assert f"{reason}: requeueing as before (1 of at most 3 in a row); PBS cannot leave node2 out" in result.stdout
    history = (tmp_path / "run" / "history.jsonl").read_text().splitlines()
    assert '"excluded": ["node2"]' in history[-1] and "(PBS cannot leave it out)" in history[-1]
    assert not (tmp_path / "pwned").exists()
