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

from app.host.launch.workload import nccl_tests_one_node
from tests.host.launch.job_parts import REPO

HERE = socket.gethostname()
#: What `mpirun` in a job of one task per node sees of Slurm (Open MPI's ras/slurm reads these): this node alone,
#: and this node with another, which the image cannot reach (no srun inside)
ONE_TASK_PER_NODE = {
    "one node": {"SLURM_JOB_NODELIST": HERE, "SLURM_TASKS_PER_NODE": "1", "SLURM_JOB_NUM_NODES": "1"},
    "two nodes": {"SLURM_JOB_NODELIST": f"{HERE},othernode", "SLURM_TASKS_PER_NODE": "1(x2)",
                  "SLURM_JOB_NUM_NODES": "2"},
}


def printed_command(nproc: int) -> list[str]:
    """The one-node command the job's messages print (a Slurm without PMIx, PBS with pbsdsh)."""
    return shlex.split(nccl_tests_one_node(nproc))


def test_the_one_node_command_runs_the_images_mpirun_on_this_node_alone_beyond_the_jobs_slots() -> None:
    command = printed_command(4)
    assert command[:4] == ["apptainer", "exec", "--nv", "app.sif"]
    mpirun = command[4:]
    assert mpirun[0] == "mpirun" and "--oversubscribe" in mpirun
    assert mpirun[mpirun.index("--host") + 1] == "localhost" and mpirun[mpirun.index("-np") + 1] == "4"
    assert mpirun[-9:] == ["all_reduce_perf", "-b", "8", "-e", "4G", "-f", "2", "-g", "1"]


def nccl_tests_dry_run(tmp_path, **env: str) -> subprocess.CompletedProcess:
    """`slurm.sh nccl-tests` planned for two nodes of four GPUs, with the job's Slurm variables ENV."""
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02", **env}
    return subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "nccl-tests"], env=full, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def pbs_nccl_tests_dry_run(tmp_path, **env: str) -> subprocess.CompletedProcess:
    """`gh200-pbs.sh` with WORKLOAD=nccl-tests planned for two nodes of four GPUs."""
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "x1000c0s0b0n0,"
            "x1000c0s0b0n1", "WORKLOAD": "nccl-tests -e 1G", **env}
    return subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=full, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_nccl_tests_under_pbs_run_one_rank_per_gpu_through_pals_pmix_server(tmp_path) -> None:
    """Cray PALS serves PMIx to the ranks it starts (`mpiexec --pmi=pmix`; docs.open-mpi.org, "Launching with HPE
    PALS"), which is what the image's Open MPI wires up with, as under `srun --mpi=pmix`."""
    result = pbs_nccl_tests_dry_run(tmp_path)
    assert result.returncode == 0, result.stderr
    steps = [line for line in result.stdout.splitlines() if "] step: " in line]
    assert len(steps) == 1, result.stdout  # no preflight: the test is the check
    assert "mpiexec -n 8 --ppn 4 --pmi=pmix --cpu-bind none " in steps[0]
    assert steps[0].rstrip().endswith("app.sif all_reduce_perf -b 8 -e 4G -f 2 -g 1 -e 1G")
    assert "torchrun" not in steps[0]


def test_nccl_tests_through_pbsdsh_say_why_not_and_print_the_one_node_command(tmp_path) -> None:
    result = pbs_nccl_tests_dry_run(tmp_path, LAUNCHER="pbsdsh")
    assert result.returncode == 2
    assert "pbsdsh" in result.stderr and "PMIx" in result.stderr and "LAUNCHER=mpiexec" in result.stderr
    assert "Cray MPICH" not in result.stderr
    assert shlex.join(printed_command(4)) in result.stderr


@pytest.mark.parametrize("run", [nccl_tests_dry_run, pbs_nccl_tests_dry_run])
def test_the_shared_memory_setting_says_which_open_mpi_path_it_reaches(tmp_path, run) -> None:
    """btl_vader_single_copy_mechanism is read by Open MPI's own shared-memory transport (pml ob1; `sm` in Open
    MPI 5, which aliases the vader_ names); HPC-X's Open MPI carries point-to-point over UCX, which never reads it."""
    result = run(tmp_path)
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if "OMPI_MCA_btl_vader_single_copy_mechanism" in line]
    assert "setting OMPI_MCA_btl_vader_single_copy_mechanism=none" in line and "UCX" in line


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
