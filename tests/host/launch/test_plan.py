"""app/host/launch/plan.py and the job's program for each launcher task (app/host/launch/job.py JobRun.program): the
torchrun command every node runs, after the node that hosts the store; `python3 -m app.launch --help`."""

from __future__ import annotations

import pytest

from app.host.launch.checkout import shell_text
from app.host.launch.cli import main
from app.host.launch.job import SLURM, Allocated, Job, JobRun, Launch, Running
from app.host.launch.plan import Plan

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


def test_help_says_what_app_launch_runs(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and "the whole job" in out and "pbsdsh-run" in out


def program(monkeypatch, step: str, kind: str, owner: str = "") -> list[str]:
    """What one launcher task of the planned job (two nodes of 4 processes, torchrun meeting at node1:29400 within
    60 s) runs for RDZV_ID 42 and PROGRAM `-m app.train`, after the node that hosts the store (app/host/launch/job.py
    JobRun.program)."""
    monkeypatch.setenv("NUMA_BINDING", "none")
    job = Job("t.sh", SLURM)
    job.knobs = {"LAUNCH": "torchrun", "IMAGE": "none", "DDP_PROBE_ROOT": "", "RDZV_PORT": "29400",
                 "RDZV_JOIN_TIMEOUT_S": "60", "RUN_DIR": "/runs/42"}
    running = Running(Allocated("42", "/s", "4", ("node1", "node2")), kind, [], 4, [], "",
                      Launch(step, [], [], "node1", owner))
    owner_said, argv = JobRun(job, running).program("42", ["-m", "app.train"])
    return [owner_said, *argv]


def test_the_node_command_names_the_store_s_owner_first_then_torchrun(monkeypatch):
    assert program(monkeypatch, "torchrun", "train", "node1") == [
        "node1", "torchrun", "--nnodes=2", "--nproc-per-node=4", "--rdzv-backend=static",
        "--rdzv-endpoint=node1:29400", "--rdzv-id=42", "--rdzv-conf=timeout=60", "-m", "app.train"]
    assert program(monkeypatch, "torchrun", "train")[:2] == ["", "torchrun"]


@pytest.mark.parametrize(("step", "workload", "expected"), [
    # An MPI program is every rank itself: no torchrun, no rendezvous id, no store
    ("mpi", "nccl-tests", ["", "-m", "app.train"]),
    # LAUNCH=srun: one srun task per GPU runs python itself
    ("task", "train", ["", "python", "-m", "app.train"]),
])
def test_an_mpi_or_srun_task_step_runs_the_program_without_torchrun(monkeypatch, step, workload, expected):
    assert program(monkeypatch, step, workload) == expected


def test_a_task_step_of_your_own_script_gets_torchrun_s_environment_from_the_task(monkeypatch):
    assert program(monkeypatch, "task", "module") == [
        "", "/bin/sh", "-c", shell_text("app/host/launch/srun_task_env.sh"), "ddp-task", "4", "python",
        "-m", "app.train"]
