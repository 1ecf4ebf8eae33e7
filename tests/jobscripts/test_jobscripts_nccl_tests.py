"""nccl-tests through the job scripts, where Slurm's layout and nccl-tests' own choices meet.

The one-node command the job scripts print where they cannot start the MPI ranks themselves is pasted inside a
job submitted with one task per node (`--ntasks-per-node=1`, as the job scripts are), and Open MPI's `mpirun`
takes its slots from the scheduler: `mpirun -np 4` there stops with "There are not enough slots available"
(open-mpi/ompi#6020). The image has no `srun` either, so a rank that Open MPI maps onto the job's second node
cannot start. The command must run on this node whatever the allocation says.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess

import pytest

from tests.jobscripts.test_jobscripts_lib import REPO, run_lib

HERE = socket.gethostname()
#: What `mpirun` in a job of one task per node sees of Slurm (Open MPI's ras/slurm reads these): this node alone,
#: and this node with another, which the image cannot reach (no srun inside)
ONE_TASK_PER_NODE = {
    "one node": {"SLURM_JOB_NODELIST": HERE, "SLURM_TASKS_PER_NODE": "1", "SLURM_JOB_NUM_NODES": "1"},
    "two nodes": {"SLURM_JOB_NODELIST": f"{HERE},othernode", "SLURM_TASKS_PER_NODE": "1(x2)",
                  "SLURM_JOB_NUM_NODES": "2"},
}


def printed_command(nproc: int) -> list[str]:
    result = run_lib(f"ddp_nccl_tests_one_node_cmd {nproc}")
    assert result.returncode == 0, result.stderr
    return shlex.split(result.stdout)


def test_the_one_node_command_runs_the_images_mpirun_on_this_node_alone_beyond_the_jobs_slots() -> None:
    command = printed_command(4)
    assert command[:4] == ["apptainer", "exec", "--nv", "app.sif"]
    mpirun = command[4:]
    assert mpirun[0] == "mpirun" and "--oversubscribe" in mpirun
    assert mpirun[mpirun.index("--host") + 1] == "localhost" and mpirun[mpirun.index("-np") + 1] == "4"
    assert mpirun[-9:] == ["all_reduce_perf", "-b", "8", "-e", "4G", "-f", "2", "-g", "1"]


def test_nccl_tests_under_pbs_print_the_one_node_command(tmp_path) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "WORKLOAD": "nccl-tests"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert shlex.join(printed_command(4)) in result.stderr


def _open_mpi() -> str | None:
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        return None
    version = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=30).stdout
    return mpirun if "Open MPI" in version or "OpenRTE" in version else None


@pytest.mark.skipif(_open_mpi() is None, reason="needs Open MPI's mpirun (Debian: apt-get install openmpi-bin)")
@pytest.mark.parametrize("allocation", ONE_TASK_PER_NODE)
def test_open_mpi_runs_the_printed_launch_inside_a_job_of_one_task_per_node(tmp_path, allocation: str) -> None:
    """The printed mpirun options with a real Open MPI under the job's Slurm variables: four ranks, all here."""
    mpirun = printed_command(4)[4:]
    launch = mpirun[:mpirun.index("all_reduce_perf")]
    job = ONE_TASK_PER_NODE[allocation]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SLURM_JOB_ID": "99", "SLURM_JOBID": "99",
           "SLURM_NODELIST": job["SLURM_JOB_NODELIST"], "SLURM_NNODES": job["SLURM_JOB_NUM_NODES"], **job,
           # The test may run as root, which Open MPI refuses unless told
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    plain = subprocess.run(["mpirun", "-np", "4", "hostname"], env=env, capture_output=True, text=True, timeout=60)
    assert plain.returncode != 0  # one node: "not enough slots"; two: a daemon for the other node fails
    if allocation == "one node":
        assert re.search(r"not enough slots", plain.stdout + plain.stderr), plain.stderr
    result = subprocess.run([*launch, "hostname"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == [HERE] * 4


def nccl_tests_dry_run(tmp_path, **env: str) -> subprocess.CompletedProcess:
    """`slurm.sh nccl-tests` planned for two nodes of four GPUs, with the job's Slurm variables ENV."""
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02", **env}
    return subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "nccl-tests"], env=full, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("per_task", [
    {"SLURM_GPUS_PER_TASK": "1"},  # Slurm up to 23.05
    {"SLURM_TRES_PER_TASK": "cpu=8,gres/gpu:h100=1"},  # 23.11 and later
])
def test_nccl_tests_under_gpus_per_task_use_each_tasks_only_gpu(tmp_path, per_task: dict[str, str]) -> None:
    """--gpus-per-task=1 shows each task its one GPU as index 0, and nccl-tests picks GPU localRank (src/common.cu,
    v2.17.6): every rank but the first of a node would ask for a GPU it cannot see. NCCL_TESTS_DEVICE=0 names it."""
    result = nccl_tests_dry_run(tmp_path, **per_task)
    assert result.returncode == 0, result.stderr
    assert "setting NCCL_TESTS_DEVICE=0 " in result.stdout


def test_nccl_tests_without_gpus_per_task_leave_the_gpu_choice_to_nccl_tests(tmp_path) -> None:
    result = nccl_tests_dry_run(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "NCCL_TESTS_DEVICE" not in result.stdout


def test_a_device_you_name_for_nccl_tests_is_kept(tmp_path) -> None:
    result = nccl_tests_dry_run(tmp_path, SLURM_GPUS_PER_TASK="1", NCCL_TESTS_DEVICE="1")
    assert "keeping NCCL_TESTS_DEVICE=1 (set by you)" in result.stdout
