"""app/host/launch/slurm.py: the srun command lines of a step, from LAUNCH, the workload and the job's CPUs."""

from __future__ import annotations

import pytest

from app.host.common.errors import UsageError
from app.host.launch.slurm import cpus_warning, slurm_launch

PER_NODE = ["srun", "--kill-on-bad-exit=1", "--nodes=1024", "--ntasks=1024", "--ntasks-per-node=1"]


def test_torchrun_runs_one_task_per_node_with_the_jobs_cpus_per_task():
    launch = slurm_launch("torchrun", "train", 1024, 4, {"SLURM_CPUS_PER_TASK": "80"})
    assert launch.step == "torchrun" and launch.per_node == launch.launcher == [*PER_NODE, "--cpus-per-task=80"]


def test_a_task_per_gpu_gets_its_share_of_all_the_nodes_cpus():
    """sbatch -N1024 --ntasks-per-node=4 --cpus-per-task=20: each of 4096 tasks 20 of the node's 80 CPUs."""
    launch = slurm_launch("srun", "train", 1024, 4, {"SLURM_CPUS_PER_TASK": "20", "SLURM_CPUS_ON_NODE": "80"})
    assert launch.step == "task" and launch.per_node == [*PER_NODE, "--cpus-per-task=20"]
    assert launch.launcher == ["srun", "--kill-on-bad-exit=1", "--nodes=1024", "--ntasks=4096", "--ntasks-per-node=4",
                               "--cpus-per-task=20"]


def test_fewer_cpus_than_tasks_overcommit_and_are_warned_about():
    env = {"SLURM_CPUS_ON_NODE": "1"}
    assert slurm_launch("srun", "check", 2, 4, env).launcher[-1] == "--overcommit"
    assert cpus_warning(4, env).startswith("warning: 4 process(es) per node share 1 CPU(s)")
    assert cpus_warning(4, {"SLURM_CPUS_ON_NODE": "4"}) == cpus_warning(4, {}) == ""


def test_nccl_tests_are_mpi_ranks_through_pmix_whatever_launch_says():
    launch = slurm_launch("torchrun", "nccl-tests", 2, 4, {})
    assert launch.step == "mpi"
    assert launch.launcher == ["srun", "--kill-on-bad-exit=1", "--mpi=pmix", "--nodes=2", "--ntasks=8",
                               "--ntasks-per-node=4"]


@pytest.mark.parametrize(("launch", "env", "message"), [
    ("mpirun", {}, "LAUNCH=mpirun is not torchrun or srun; example: LAUNCH=srun"),
    ("srun", {"SLURM_CPUS_PER_TASK": "lots"}, "SLURM_CPUS_PER_TASK=lots is not a whole number"),
])
def test_bad_input_is_refused_with_the_fix(launch, env, message):
    with pytest.raises(UsageError, match=message):
        slurm_launch(launch, "train", 2, 4, env)
