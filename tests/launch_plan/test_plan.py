"""app/launch/plan.py and `python3 -m app.launch`: the torchrun command every node runs, and how bash reads it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from app.launch.cli import main
from app.launch.plan import Plan
from tests.launch import REPO, clean_env

PLAN = Plan(nnodes=1024, nproc=4, rdzv_host="10.0.0.1", rdzv_port=29400, join_timeout_s=300)


def test_torchrun_meets_at_the_head_node_with_every_fact_once():
    assert PLAN.torchrun_argv("42", ["-m", "app.train", "run.dir=/runs/a b"]) == [
        "torchrun", "--nnodes=1024", "--nproc-per-node=4", "--rdzv-backend=c10d", "--rdzv-endpoint=10.0.0.1:29400",
        "--rdzv-id=42", "--rdzv-conf=join_timeout=300", "-m", "app.train", "run.dir=/runs/a b"]


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
        [sys.executable, "-m", "app.launch", "--answer-fd", str(write), "torchrun", "--nnodes=2", "--nproc=1",
         "--rdzv-host=h", "--rdzv-port=1", "--join-timeout=5", "--", "id", hostile],
        env={**clean_env(), "PYTHONPATH": str(REPO)}, cwd=tmp_path, pass_fds=(write,), capture_output=True,
        timeout=60, check=False)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        words = answer.read().split(b"\0")
    assert result.returncode == 0, result.stderr
    assert words[-1] == b"" and words[-2].decode() == hostile and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["torchrun", "--nnodes=2", "--nproc=x", "--rdzv-host=h", "--rdzv-port=1", "--join-timeout=5", "--", "1", "a"],
     "t.sh: error: DDP_NPROC=x is not a whole number; example: DDP_NPROC=60\n"),
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
