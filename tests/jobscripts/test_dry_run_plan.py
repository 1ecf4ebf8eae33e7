"""`DRY_RUN=1 bash jobscripts/slurm.sh WORKLOAD` on a login node: the plan says every step the job would run, the
preflight's included, and DeepSpeed's launch line only for a program of your own (train, check and nccl-tests
never start through DeepSpeed's launcher)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def planned(tmp_path_factory) -> dict[str, str]:
    """Each workload's dry-run output, once for the module (a dry run takes seconds)."""
    return {workload: dry_run(tmp_path_factory.mktemp(workload.replace(".", "-")), workload)
            for workload in ("train", "check", "my_train.py")}


def dry_run(tmp_path: Path, *workload: str, script: str = "slurm.sh", **knobs: str) -> str:
    """`DRY_RUN=1 bash jobscripts/SCRIPT WORKLOAD` outside a job, planned for two nodes of 4 GPUs: its log."""
    (tmp_path / "my_train.py").write_text("print('mine')\n")
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path), "DRY_RUN": "1",
           "DRY_RUN_NODES": "gpu01,gpu02", "GPUS_PER_NODE": "4", "IMAGE": "none", **knobs}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / script), *workload], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def steps(output: str) -> list[str]:
    return [line.split("step: ", 1)[1] for line in output.splitlines() if " step: " in line]


def test_a_train_dry_run_shows_the_preflight_step_before_the_workloads(planned) -> None:
    train = steps(planned["train"])
    assert len(train) == 2, train
    assert "--rdzv-id=dry-run-preflight" in train[0] and "-m app.check --preflight" in train[0]
    assert "-m app.train" in train[1]


def test_preflight_0_leaves_it_out_of_the_plan_too(tmp_path: Path) -> None:
    """Your own script: its plan has the preflight unless PREFLIGHT=0 (the job skips it alike for train, whose dry
    run also runs the trainer's own --dry-run: two torch imports, 6 CPU seconds, that this knob does not reach)."""
    planned = dry_run(tmp_path, "my_train.py", PREFLIGHT="0")
    assert steps(planned) and [step for step in steps(planned) if "--preflight" in step] == []


@pytest.mark.parametrize("workload", ["train", "check"])
def test_the_projects_own_workloads_get_no_deepspeed_launch_line(planned, workload: str) -> None:
    assert "deepspeed --hostfile" not in planned[workload]


def test_your_own_script_gets_the_deepspeed_launch_line_and_the_preflight(planned) -> None:
    assert "deepspeed --hostfile" in planned["my_train.py"]
    assert "-m app.check --preflight" in steps(planned["my_train.py"])[0]


def test_a_path_in_extra_env_without_sh_is_refused_in_one_line_not_a_traceback(tmp_path: Path) -> None:
    """EXTRA_ENV reaches the ranks through the batch host's environment, where the job's own commands run."""
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path), "DRY_RUN": "1",
           "DRY_RUN_NODES": "gpu01,gpu02", "GPUS_PER_NODE": "4", "IMAGE": "none", "EXTRA_ENV": "PATH=/opt/mytools/bin"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "train"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("slurm.sh: error: EXTRA_ENV item 'PATH=/opt/mytools/bin' is the PATH of the "
                                    "job's own commands too") and result.stderr.count("\n") == 1, result.stderr
