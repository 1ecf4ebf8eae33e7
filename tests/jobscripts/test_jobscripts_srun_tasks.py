"""LAUNCH=srun: one srun task per GPU runs python itself (no torchrun). What a task's program finds.

srun gives each task SLURM_PROCID, SLURM_LOCALID and SLURM_STEP_NUM_TASKS; the job scripts give MASTER_ADDR and
MASTER_PORT. A script of your own written for torchrun or DeepSpeed reads RANK, WORLD_SIZE and LOCAL_RANK:
`deepspeed.init_distributed()` without all of RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and LOCAL_RANK falls back
to discovering them through mpi4py (deepspeed/comm/comm.py, v0.19.8, `init_distributed` -> `mpi_discovery`),
which the image does not carry and srun without --mpi does not serve.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.host.launch.job_parts import Ran, job_parts
from tests.trainer_runs import free_port

#: The sixth of eight tasks, the second on its node, as srun starts it
TASK = {"SLURM_PROCID": "5", "SLURM_STEP_NUM_TASKS": "8", "SLURM_LOCALID": "1", "SLURM_NODEID": "1",
        "SLURM_STEP_TASKS_PER_NODE": "4(x2)", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29400"}


def task_step(tmp_path: Path, kind: str, program: list[str], task: dict[str, str], timeout_s: float = 30) -> Ran:
    """The job's step of LAUNCH=srun (4 processes a node) as one srun task runs it (no launcher, no container), for
    a workload of KIND."""
    (tmp_path / "run").mkdir(exist_ok=True)
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "LAUNCH": "srun", "IMAGE": "none",
           "GPUS_PER_NODE": "4", "RUN_DIR": str(tmp_path / "run"), **task}
    return job_parts(["nproc", "step"], env, *program, timeout_s=timeout_s, kind=kind, launch_step="task")


@pytest.mark.parametrize("kind", ["script", "module"])
def test_your_own_script_under_srun_gets_torchruns_rank_variables(tmp_path: Path, kind: str) -> None:
    show = tmp_path / "show.py"
    show.write_text("import os\nfor k in ('RANK', 'WORLD_SIZE', 'LOCAL_RANK', 'LOCAL_WORLD_SIZE'):\n"
                    "    print(f'{k}={os.environ.get(k)}')\n")
    program = [str(show)] if kind == "script" else ["-c", f"import runpy; runpy.run_path('{show}')"]
    result = task_step(tmp_path, kind, program, TASK)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stdout.splitlines() if not line.startswith("[")] == [
        "RANK=5", "WORLD_SIZE=8", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=4"]


DEEPSPEED_INIT = """import deepspeed
import torch.distributed as dist
deepspeed.init_distributed(dist_backend="gloo")
print(f"deepspeed rank {dist.get_rank()} of {dist.get_world_size()}")
"""


@pytest.mark.slow  # DeepSpeed's CPU backend compiles its shared-memory op at first use (a minute, then cached)
def test_a_deepspeed_script_under_srun_initialises_without_mpi(tmp_path: Path) -> None:
    script = tmp_path / "ds_init.py"
    script.write_text(DEEPSPEED_INIT)
    one_task = {"SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "1", "SLURM_LOCALID": "0", "SLURM_NODEID": "0",
                "SLURM_STEP_TASKS_PER_NODE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()),
                "DS_ACCELERATOR": "cpu"}
    result = task_step(tmp_path, "script", [str(script)], one_task, timeout_s=300)
    assert "mpi4py" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 0, result.stderr[-2000:]
    assert "deepspeed rank 0 of 1" in result.stdout
