"""The CUDA image's nccl-tests on two nodes of the Slurm test cluster, launched as the sites document MPI jobs:

    srun --mpi=pmix -N 2 --ntasks-per-node=1 sh -c 'exec apptainer run --bind "$PMIX_SERVER_TMPDIR" \
        --bind "$TMPFS/spmix_appdir_$(id -u)_$SLURM_JOB_ID.$SLURM_STEP_ID" app.sif all_reduce_perf -b 8 -e 8 -g 1'

(each task binds its PMIx server's and client's directories, which the cluster keeps outside what Apptainer binds
unasked, as a real node does: without it MPI_Init fails), and as `sbatch -N2 jobscripts/slurm.sh nccl-tests` runs
it (one rank per GPU, the job's binds), in batch jobs of the unprivileged test user, with the twin image
(tests/fixtures/twin.py) and Slurm's mpi/pmix plugin (tests/provision/build-slurm.sh). Proven up to where a GPU is
needed: each rank is started by its node's slurmstepd, gets through MPI_Init over Slurm's PMIx server, and the
ranks exchange host hashes (MPI_Allgather) and split their communicator (MPI_Comm_split) across the nodes, over
Open MPI's TCP transport between the nodes' network namespaces, before nccl-tests first asks CUDA for a device
(nccl-tests src/common.cu, run(); src/util.cu, writeDeviceReport()). There each rank says in one line that there is
no GPU and exits with nccl-tests' testCudaError (2). Only a GPU cluster proves the rest: NCCL's collective over the
fabric and its bandwidth.
"""

from __future__ import annotations

import os
import pwd
import re
from pathlib import Path

import pytest

from tests.fixtures.slurm import JOB_USER, REPO, Job, SlurmCluster
from tests.fixtures.twin import twin_image

pytestmark = [pytest.mark.slurm, pytest.mark.apptainer, pytest.mark.slow]

#: The imported fixture, named here for pytest (which finds a module's fixtures among its names) and for ruff
__all__ = ["twin_image"]

#: What node2 calls itself (tests/slurm/up.sh): nccl-tests names a rank's host by its hostname
NODE2_HOST = "x1000c0s1b0n0"
#: Where tests/slurm/up.sh keeps each node's slurmd.log (its SLURM_TEST_BASE)
CLUSTER_BASE = Path(os.environ.get("SLURM_TEST_BASE", "/tmp/ddp-slurm-test"))
#: A rank's line where CUDA finds no GPU (nccl-tests src/common.h, CUDACHECK), after srun --label's "RANK: ":
#: "1: x1000c0s1b0n0: Test CUDA failure util.cu:553 'CUDA driver version is insufficient for CUDA runtime version'"
CUDA_FAILURE = re.compile(r"^(?:(\d+): )?(\S+): Test CUDA failure \S+ '(.*)'$", re.MULTILINE)
#: srun's line for the ranks of a node that ended on their own: "srun: error: node2: tasks 2-3: Exited with exit
#: code 2" (a launch failure says "launch failed" or "Killed" instead)
RANKS_EXITED = re.compile(r"^srun: error: (\S+): tasks? [\d-]+: Exited with exit code (\d+)$", re.MULTILINE)
#: What a failed wire-up prints instead: PMIx and Open MPI's own errors (Open MPI 4: OPAL, ORTE; Slurm's pmix
#: plugin: pmixp_*), and MPI_Init's "It looks like MPI_INIT failed for some reason"
WIRE_UP_ERRORS = ("PMIX ERROR", "OPAL ERROR", "An ORTE daemon", "MPI_INIT failed", "MPI_Init", "pmixp_",
                  "launch failed")
#: nccl-tests' exit code when CUDA fails (testResult_t testCudaError, src/common.h)
TEST_CUDA_ERROR = "2"


def job_script(container_binds: str) -> str:
    """The batch script of the srun tests: `container_binds` are the arguments each task gives `apptainer run`."""
    return f"""#!/bin/bash
#SBATCH --nodes=2
#SBATCH --output=ddp-%j.out
set -uo pipefail
# Slurm's TmpFS, where mpi/pmix makes each step's client directory (%n: the node's name, expanded in each task)
TMPFS=$(scontrol show config | awk '$1 == "TmpFS" {{print $3}}')
export TMPFS
# One rank per node, each started by its node's slurmstepd and wired up through Slurm's PMIx server, no mpirun.
# `apptainer run`: the runscript applies the fabric policy first (docs/images.md, "Run"). --label: each line
# starts with the rank that printed it. sh -c: each task's PMIx directories are its own (one per step and node).
srun --mpi=pmix --label -N 2 --ntasks-per-node=1 sh -c '
    client=${{TMPFS%%%n*}}$SLURMD_NODENAME${{TMPFS#*%n}}/spmix_appdir_$(id -u)_$SLURM_JOB_ID.$SLURM_STEP_ID
    exec apptainer run {container_binds}"$TWIN_IMAGE" all_reduce_perf -b 8 -e 8 -g 1'
status=$?
echo "srun exit code: $status"
exit "$status"
"""


#: Each task binds both of its PMIx directories (Slurm's mpi/pmix, src/plugins/mpi/pmix/pmixp_info.c): the
#: server's (SlurmdSpoolDir/pmix.JOB.STEP, PMIX_SERVER_TMPDIR), which holds the shared-memory store (gds/ds21,
#: ds12), and the client's (TmpFS/spmix_appdir_UID_JOB.STEP), where Open MPI 4.1 makes its session directory
#: (without it: "ORTE_ERROR_LOG: Error in file .../orte/util/session_dir.c", then MPI_Init fails)
JOB_SCRIPT = job_script('--bind "$PMIX_SERVER_TMPDIR" --bind "$client" ')


def pmix_log(job: Job) -> str:
    """Slurm's mpi/pmix lines of the job's steps from every node's slurmd.log: why a step did not launch."""
    lines = [line for log in sorted(CLUSTER_BASE.glob("node*/slurmd.log"))
             for line in log.read_text(errors="replace").splitlines()
             if f"[{job.job_id}." in line and ("pmix" in line or "error" in line)]
    return "\n".join(lines[-20:])


def run_job(cluster: SlurmCluster, *args: str, env: dict[str, str], script: str | None = None) -> Job:
    workdir = cluster.workdir()
    if script is not None:
        (workdir / "nccl-tests.sbatch").write_text(script)
        args = (str(workdir / "nccl-tests.sbatch"), *args)
    job_id = cluster.submit(workdir, *args, env=env)
    job = cluster.wait(job_id, workdir, timeout_s=180)
    print(f"\n--- job {job_id} ({job.state} {job.exit_code}), as nccl-tests and srun printed it ---\n{job.output}")
    return job


def assert_ranks_wired_up_and_stopped_at_cuda(job: Job, hosts: list[str], killed_once_one_fails: bool = False) -> None:
    """Every rank through the wire-up, nothing from a failed one, and the ranks stopped at nccl-tests' CUDA
    error: one 'no GPU' line per rank in `hosts` (rank order, node by node), each node's ranks ending on their
    own. `killed_once_one_fails`: the step runs with srun --kill-on-bad-exit=1 (the job scripts' steps), so the
    first rank's exit 2 has Slurm kill the others, some before they print: at least one line a node, one
    rank's exit 2, and the step ends 2 or 143 (SIGTERM), whichever Slurm reports first."""
    output = job.output
    context = f"{output}\n--- mpi/pmix in slurmd.log ---\n{pmix_log(job)}"
    failures = CUDA_FAILURE.findall(output)
    if killed_once_one_fails:
        assert {host for _, host, _ in failures} == set(hosts), context
    else:
        assert sorted(host for _, host, _ in failures) == sorted(hosts), context
    assert all(message.startswith("CUDA driver version is insufficient") for _, _, message in failures), context
    # Rank 0's header comes after MPI_Comm_split, a collective of every rank: all of them got through the wire-up
    assert output.count("# nccl-tests version ") == 1, context
    found = [marker for marker in WIRE_UP_ERRORS if marker in output]
    assert not found, f"MPI/PMIx wire-up errors {found}:\n{context}"
    exits = RANKS_EXITED.findall(output)
    if killed_once_one_fails:
        assert any(code == TEST_CUDA_ERROR for _, code in exits), context  # the first one ended on its own
        assert job.state == "FAILED" and job.exit_code in (f"{TEST_CUDA_ERROR}:0", "143:0"), job.exit_code
        return
    assert dict(exits) == {"node1": TEST_CUDA_ERROR, "node2": TEST_CUDA_ERROR}, context
    assert job.state == "FAILED" and job.exit_code == f"{TEST_CUDA_ERROR}:0", f"{job.state} {job.exit_code}"


@pytest.fixture(scope="module")
def srun_pmix_job(twin_image: Path, slurm_cluster: SlurmCluster) -> Job:
    return run_job(slurm_cluster, env={"TWIN_IMAGE": str(twin_image)}, script=JOB_SCRIPT)


def test_the_nodes_keep_the_pmix_directories_where_a_container_sees_them_only_when_bound(
        slurm_cluster: SlurmCluster) -> None:
    """Slurm's mpi/pmix keeps a step's server files under SlurmdSpoolDir and its client's under TmpFS
    (src/plugins/mpi/pmix/pmixp_info.c). Real nodes keep both outside what Apptainer binds into every container
    unasked (/tmp and /var/tmp: apptainer.conf `mount tmp`; the user's home: `mount home`), so only the job
    scripts' own binds let a rank reach its PMIx server: the cluster must do the same, or a missing bind passes."""
    config = slurm_cluster.run("scontrol", "show", "config").stdout
    dirs = dict(re.findall(r"^(SlurmdSpoolDir|TmpFS)\s*=\s*(\S+)$", config, re.MULTILINE))
    assert set(dirs) == {"SlurmdSpoolDir", "TmpFS"}, config
    bound_unasked = [Path("/tmp"), Path("/var/tmp"), Path(pwd.getpwnam(JOB_USER).pw_dir)]
    for name, path in dirs.items():
        inside = [str(bound) for bound in bound_unasked if Path(path).is_relative_to(bound)]
        assert not inside, f"{name}={path} is inside {inside}, which Apptainer binds into every container"


def test_a_rank_whose_container_does_not_see_its_pmix_server_directory_fails_in_mpi_init(
        twin_image: Path, slurm_cluster: SlurmCluster) -> None:
    """Without the bind the image's PMIx client finds no store where the server announced it
    (PMIX_DSTORE_21_BASE_PATH under PMIX_SERVER_TMPDIR): 'PMIX ERROR: ERROR in file .../gds/ds12/
    gds_ds12_lock_pthread.c', then Open MPI's "An error occurred in MPI_Init" on every rank, before any CUDA call."""
    job = run_job(slurm_cluster, env={"TWIN_IMAGE": str(twin_image)}, script=job_script(""))
    assert re.search(r"PMIX ERROR: \S+ in file \S*gds/ds\d+/", job.output), job.output
    assert job.output.count("An error occurred in MPI_Init") == 2, job.output
    assert not CUDA_FAILURE.search(job.output), job.output
    assert re.search(r"^srun exit code: 1$", job.output, re.MULTILINE), job.output
    assert job.state == "FAILED" and job.exit_code == "1:0", f"{job.state} {job.exit_code}"


def test_nccl_tests_ranks_wire_up_across_two_nodes_through_pmix_and_stop_at_cuda(srun_pmix_job: Job) -> None:
    assert_ranks_wired_up_and_stopped_at_cuda(srun_pmix_job, ["node1", NODE2_HOST])
    # srun --label: rank 0 on node1, rank 1 on node2, each naming its own host
    ranks = {rank: host for rank, host, _ in CUDA_FAILURE.findall(srun_pmix_job.output)}
    assert ranks == {"0": "node1", "1": NODE2_HOST}, srun_pmix_job.output
    assert re.search(r"^srun exit code: 2$", srun_pmix_job.output, re.MULTILINE), srun_pmix_job.output


def test_the_slurm_job_script_runs_nccl_tests_one_rank_per_gpu_across_both_nodes(
        twin_image: Path, slurm_cluster: SlurmCluster) -> None:
    """`sbatch -N2 jobscripts/slurm.sh nccl-tests` with 2 GPUs per node: 4 ranks, 2 on each node."""
    job = run_job(slurm_cluster, "-N2", str(REPO / "jobscripts" / "slurm.sh"), "nccl-tests",
                  env={"IMAGE": str(twin_image), "GPUS_PER_NODE": "2"})
    assert "--mpi=pmix --nodes=2 --ntasks=4 --ntasks-per-node=2" in job.output, job.output
    assert "CMA is not available" not in job.output  # two ranks a node, each in its own user namespace
    assert_ranks_wired_up_and_stopped_at_cuda(job, ["node1", NODE2_HOST], killed_once_one_fails=True)
