"""app/launch/plan.py and `python3 -m app.launch`: the torchrun command every node runs (the node-command question:
the node that hosts the store, then the command), and how bash reads it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from app.launch.checkout import shell_text
from app.launch.cli import main
from app.launch.plan import Plan
from tests.launch import REPO, clean_env

PLAN = Plan(nnodes=1024, nproc=4, rdzv_host="10.0.0.1", rdzv_port=29400, join_timeout_s=300)


def test_torchrun_meets_at_the_head_node_with_every_fact_once():
    assert PLAN.torchrun_argv("42", ["-m", "app.train", "run.dir=/runs/a b"]) == [
        "torchrun", "--nnodes=1024", "--nproc-per-node=4", "--rdzv-backend=static", "--rdzv-endpoint=10.0.0.1:29400",
        "--rdzv-id=42", "--rdzv-conf=timeout=300", "-m", "app.train", "run.dir=/runs/a b"]


def test_the_numa_binding_goes_before_the_rendezvous_and_the_plan_is_frozen():
    plan = PLAN._replace(numa=["--numa-binding=node"])
    assert plan.torchrun_argv("j", ["x.py"])[3] == "--numa-binding=node"
    with pytest.raises(AttributeError):
        plan.nproc = 8


def test_the_answer_is_data_nul_separated_never_code(tmp_path):
    """A word with quotes, $( ), a newline and a space arrives in bash as itself."""
    hostile = "$(touch pwned)'\"\n; `id` *"
    read, write = os.pipe()
    result = subprocess.run(
        [sys.executable, "-m", "app.launch", "--answer-fd", str(write), "node-command", "--nnodes=2", "--nproc=1",
         "--rdzv-host=h", "--rdzv-owner=node1", "--rdzv-port=1", "--join-timeout=5", "--numa-binding=none", "--",
         "id", hostile],
        env={**clean_env(), "PYTHONPATH": str(REPO)}, cwd=tmp_path, pass_fds=(write,), capture_output=True,
        timeout=60, check=False)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        words = answer.read().split(b"\0")
    assert result.returncode == 0, result.stderr
    assert words[0] == b"node1" and words[1] == b"torchrun" and "--rdzv-id=id" in [w.decode() for w in words]
    assert words[-1] == b"" and words[-2].decode() == hostile and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["node-command", "--nnodes=2", "--nproc=x", "--rdzv-host=h", "--rdzv-port=1", "--join-timeout=5",
      "--numa-binding=none", "--", "1", "a"],
     "t.sh: error: DDP_NPROC=x is not a whole number; example: DDP_NPROC=4\n"),
    (["node-command", "--nnodes=\u00b2", "--nproc=1", "--rdzv-host=h", "--rdzv-port=1", "--join-timeout=5",
      "--numa-binding=none", "--", "1", "a"],  # a digit to str.isdigit, not to int()
     "t.sh: error: DDP_NNODES=\u00b2 is not a whole number; example: DDP_NNODES=4\n"),
    (["nproc", "--gpus-per-node=four"],
     "t.sh: error: GPUS_PER_NODE=four is not a positive whole number; example: GPUS_PER_NODE=4\n"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    assert main(["--script", "t.sh", *argv]) == 2
    assert capsys.readouterr().err == message


def test_help_answers(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0 and "torchrun" in capsys.readouterr().out


def node_command(capsys, *flags: str) -> list[str]:
    """The node-command question's answer for RDZV_ID 42 and PROGRAM `-m app.train` (without --answer-fd: one
    shell-quoted word a line, after any log line)."""
    assert main(["node-command", "--nnodes=2", "--nproc=4", "--rdzv-host=node1", "--rdzv-port=29400",
                 "--join-timeout=60", "--numa-binding=none", *flags, "--", "42", "-m", "app.train"]) == 0
    return shlex.split(re.sub(r"(?m)^\[\d\d:\d\d:\d\d .*\n", "", capsys.readouterr().out))


def test_the_node_command_names_the_store_s_owner_first_then_torchrun(capsys):
    assert node_command(capsys, "--rdzv-owner=node1") == [
        "node1", "torchrun", "--nnodes=2", "--nproc-per-node=4", "--rdzv-backend=static",
        "--rdzv-endpoint=node1:29400", "--rdzv-id=42", "--rdzv-conf=timeout=60", "-m", "app.train"]
    assert node_command(capsys)[:2] == ["", "torchrun"]


@pytest.mark.parametrize(("step", "workload", "expected"), [
    # An MPI program is every rank itself: no torchrun, no rendezvous id, no store
    ("mpi", "nccl-tests", ["", "-m", "app.train"]),
    # LAUNCH=srun: one srun task per GPU runs python itself
    ("task", "train", ["", "python", "-m", "app.train"]),
])
def test_an_mpi_or_srun_task_step_runs_the_program_without_torchrun(capsys, step, workload, expected):
    assert node_command(capsys, f"--step={step}", f"--workload={workload}") == expected


def test_a_task_step_of_your_own_script_gets_torchrun_s_environment_from_the_task(capsys):
    assert node_command(capsys, "--step=task", "--workload=module") == [
        "", "/bin/sh", "-c", shell_text("app/launch/srun_task_env.sh"), "ddp-task", "4", "python",
        "-m", "app.train"]
