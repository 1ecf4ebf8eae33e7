"""Launcher detection and Slurm hostlists."""

from __future__ import annotations

import pytest

from app.common.cluster import (
    OpenMpi,
    Pbs,
    SingleProcess,
    Slurm,
    Torchrun,
    detect_environment,
    parse_hostlist,
    parse_tasks_per_node,
)
from app.common.distributed import device_index
from app.host.common.errors import UsageError
from app.host.common.rendezvous_port import derive_port


@pytest.mark.parametrize(
    ("hostlist", "expected"),
    [
        ("node01", ["node01"]),
        ("node[01-03]", ["node01", "node02", "node03"]),
        ("node[01-04,7]", ["node01", "node02", "node03", "node04", "node7"]),
        ("node[6-7,10]", ["node6", "node7", "node10"]),
        ("as[098-101]", ["as098", "as099", "as100", "as101"]),
        ("a[1-2],b3,c[5]", ["a1", "a2", "b3", "c5"]),
        ("r[1-2]n[1-2]", ["r1n1", "r1n2", "r2n1", "r2n2"]),
        ("x1000c0s0b0n0,x1000c0s0b1n0", ["x1000c0s0b0n0", "x1000c0s0b1n0"]),
    ],
)
def test_parse_hostlist_expands_ranges_and_keeps_padding(hostlist, expected):
    assert parse_hostlist(hostlist) == expected


@pytest.mark.parametrize("bad", ["node[01-", "node[3-1]", "node[a-b]"])
def test_parse_hostlist_rejects_malformed_ranges_with_an_example(bad):
    with pytest.raises(UsageError, match=r"node\[01-04,07\]"):
        parse_hostlist(bad)


# The variable sets each launcher exports (its documentation), for rank 5 or 6 of 8 on the second of two
# 4-GPU nodes. torchrun: torch/distributed/run.py; srun: the srun man page, OUTPUT ENVIRONMENT VARIABLES;
# OpenMPI: mpirun(1) "Exported Environment Variables"; Cray PALS: PALS_* and Cray PMI's PMI_*.
TORCHRUN = {"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "8", "MASTER_ADDR": "node01", "MASTER_PORT": "29500",
            "TORCHELASTIC_RUN_ID": "42", "LOCAL_WORLD_SIZE": "4", "GROUP_RANK": "0"}
SRUN = {"SLURM_PROCID": "5", "SLURM_LOCALID": "1", "SLURM_STEP_NUM_TASKS": "8", "SLURM_JOB_ID": "1234",
        "SLURM_STEP_NODELIST": "gpu[07-08]", "SLURM_NTASKS": "8", "SLURM_NODEID": "1",
        "SLURM_STEP_TASKS_PER_NODE": "4(x2)", "SLURM_STEP_NUM_NODES": "2", "SLURM_JOB_NODELIST": "gpu[07-08]"}
#: srun --mpi=pmix adds the PMIx variables to the same set
PMIX_SRUN = {**SRUN, "SLURM_MPI_TYPE": "pmix", "PMIX_RANK": "5", "PMIX_NAMESPACE": "slurm.pmix.1234.0"}
#: OpenMPI's mpirun inside a Slurm job: its daemons are srun tasks, one per node, whose SLURM_* the ranks inherit
OPENMPI = {"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_SIZE": "8",
           "OMPI_COMM_WORLD_LOCAL_SIZE": "4", "OMPI_COMM_WORLD_NODE_RANK": "1", "PMIX_RANK": "5",
           "SLURM_PROCID": "1", "SLURM_LOCALID": "0", "SLURM_STEP_NUM_TASKS": "2", "SLURM_JOB_ID": "1234",
           "SLURM_JOB_NODELIST": "gpu[07-08]", "SLURM_STEP_TASKS_PER_NODE": "1(x2)", "SLURM_NODEID": "1"}
PALS = {"PMI_RANK": "6", "PMI_LOCAL_RANK": "2", "PMI_SIZE": "8", "PBS_JOBID": "777.pbs01", "MASTER_ADDR": "x1",
        "PMI_LOCAL_SIZE": "4", "PALS_RANKID": "6", "PALS_LOCAL_RANKID": "2", "PALS_NODEID": "1",
        "PALS_LOCAL_SIZE": "4"}


@pytest.mark.parametrize(
    ("env", "kind", "rank", "local_rank", "world_size", "address"),
    [
        ({}, SingleProcess, 0, 0, 1, "127.0.0.1"),
        (TORCHRUN, Torchrun, 3, 1, 8, "node01"),
        (SRUN, Slurm, 5, 1, 8, "gpu07"),
        ({**SRUN, **TORCHRUN}, Torchrun, 3, 1, 8, "node01"),  # torchrun inside an srun task: RANK wins
        (PALS, Pbs, 6, 2, 8, "x1"),
        (PMIX_SRUN, Slurm, 5, 1, 8, "gpu07"),
        (OPENMPI, OpenMpi, 5, 1, 8, "gpu07"),
        ({**OPENMPI, "MASTER_ADDR": "gpu07-ib"}, OpenMpi, 5, 1, 8, "gpu07-ib"),
        ({"SLURM_PROCID": "0", "SLURM_NTASKS": "8", "SLURM_JOB_ID": "1"}, SingleProcess, 0, 0, 1, "127.0.0.1"),
    ],
)
def test_detect_environment_picks_the_launcher_that_started_us(env, kind, rank, local_rank, world_size, address):
    environment = detect_environment(env)
    assert type(environment) is kind
    assert (environment.rank(), environment.local_rank(), environment.world_size()) == (rank, local_rank, world_size)
    assert environment.main_address() == address
    assert environment.local_world_size() == (1 if kind is SingleProcess else 4)


@pytest.mark.parametrize(("spec", "counts"), [("4(x2)", [4, 4]), ("4(x2),2", [4, 4, 2]), ("3", [3]), ("2,1", [2, 1])])
def test_slurm_task_counts_per_node_are_expanded(spec, counts):
    assert parse_tasks_per_node(spec) == counts


@pytest.mark.parametrize(
    ("env", "message"),
    [
        # Cray PALS with PMIx instead of Cray PMI: a rank but no world size
        ({"PALS_RANKID": "6", "PALS_LOCAL_RANKID": "2", "PALS_LOCAL_SIZE": "4", "PMIX_RANK": "6"},
         "PALS_RANKID=6 says Cray PALS mpiexec started this process, but PMI_SIZE is missing"),
        ({"PMI_RANK": "3"}, "PMI_RANK=3 says an MPICH/Cray PMI mpiexec started this process, but PMI_SIZE is missing"),
        ({"PMIX_RANK": "1", "PMIX_NAMESPACE": "prterun-x-1@1"}, "PMIx gives no world size"),
        ({"OMPI_COMM_WORLD_RANK": "1"}, "OMPI_COMM_WORLD_SIZE is not set"),
        ({k: v for k, v in OPENMPI.items() if not k.startswith("SLURM_")}, "mpirun gives no rendezvous address"),
    ],
)
def test_a_launcher_seen_only_in_part_is_an_error_not_n_single_process_runs(env, message):
    with pytest.raises(UsageError, match=message):
        detect_environment(env).main_address()


@pytest.mark.parametrize(
    ("local_rank", "visible", "env", "index"),
    [
        (3, 4, {}, 3),  # one process per GPU, every process sees the node's GPUs
        (3, 1, {"SLURM_GPUS_PER_TASK": "1", "CUDA_VISIBLE_DEVICES": "3"}, 0),  # srun --gpus-per-task=1
        (1, 2, {"SLURM_GPUS_PER_TASK": "2", "CUDA_VISIBLE_DEVICES": "2,3"}, 0),
        # Slurm >= 23.11 exports only SLURM_TRES_PER_TASK for --gpus-per-task
        (2, 1, {"SLURM_TRES_PER_TASK": "gres/gpu=1", "CUDA_VISIBLE_DEVICES": "2"}, 0),
        (1, 2, {"SLURM_TRES_PER_TASK": "cpu=8,gres/gpu:h100=2", "CUDA_VISIBLE_DEVICES": "2,3"}, 0),
    ],
)
def test_each_process_takes_the_gpu_it_owns(local_rank, visible, env, index):
    assert device_index(local_rank, visible, env) == index


@pytest.mark.parametrize(
    ("local_rank", "visible", "env", "message"),
    [
        (4, 4, {}, "start at most 4 processes per node"),
        (0, 1, {"SLURM_GPUS_PER_TASK": "2", "CUDA_VISIBLE_DEVICES": "0"}, "--gpus-per-task=2 but this task sees 1"),
        (0, 1, {"SLURM_TRES_PER_TASK": "gres/gpu=2", "CUDA_VISIBLE_DEVICES": "0"}, "--gpus-per-task=2 but this task"),
    ],
)
def test_more_processes_or_gpus_per_task_than_gpus_is_refused_with_the_fix(local_rank, visible, env, message):
    with pytest.raises(UsageError, match=message):
        device_index(local_rank, visible, env)


def test_slurm_port_is_derived_from_the_job_id_alike_on_every_rank():
    ports = {
        detect_environment({**SRUN, "SLURM_PROCID": str(r), "SLURM_LOCALID": str(r % 4)}).main_port() for r in range(8)
    }
    assert ports == {derive_port("1234")}


@pytest.mark.parametrize("env", [SRUN, PALS, OPENMPI], ids=["srun", "pals", "mpirun"])
def test_a_launch_without_a_job_id_or_a_port_meets_on_torchs_default_as_the_port_policy_says(env):
    """app/host/common/rendezvous_port.py: without a chosen port and a job id, torch's 29500 (not a port derived
    from a made-up id)."""
    bare = {k: v for k, v in env.items() if k not in ("SLURM_JOB_ID", "PBS_JOBID", "MASTER_PORT")}
    assert detect_environment(bare).main_port() == 29500


AURORA = ".aurora-pbs-0001.hostmgmt.cm.aurora.alcf.anl.gov"  # a PBS server's name, digits included


@pytest.mark.parametrize(("one", "other"), [
    (f"1234567{AURORA}", f"1234568{AURORA}"),
    ("1234567", "1244567"),  # the same last four digits
    ("4242.pbs01", "4243.pbs01"),
])
def test_jobs_whose_ids_share_digits_derive_different_ports(one, other):
    """Without MASTER_PORT (srun or mpiexec without the job scripts, which choose a port themselves) every rank
    derives the port from the whole job id; ids that differ anywhere must not share it."""
    assert derive_port(one) != derive_port(other)
    assert all(20000 <= derive_port(job) < 32768 for job in (one, other))


def test_pbs_head_node_comes_from_the_nodefile(tmp_path):
    nodefile = tmp_path / "nodes"
    nodefile.write_text("x1000c0s0b0n0\nx1000c0s0b0n0\nx1000c0s0b1n0\n")
    env = {k: v for k, v in PALS.items() if k != "MASTER_ADDR"} | {"PBS_NODEFILE": str(nodefile)}
    assert detect_environment(env).main_address() == "x1000c0s0b0n0"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RANK": "0"}, "WORLD_SIZE is not set"),
        ({"RANK": "0", "WORLD_SIZE": "two"}, "WORLD_SIZE='two' is not an integer"),
        ({"RANK": "2", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "a", "MASTER_PORT": "1"}, "not below"),
        ({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_PORT": "29500"}, "MASTER_ADDR is not set"),
        ({"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "a", "MASTER_PORT": "29500"}, "LOCAL_RANK is not set"),
        (
            {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "a", "MASTER_PORT": "99999"},
            "out of range",
        ),
        ({"RANK": "-1", "WORLD_SIZE": "2"}, "negative"),
        ({**PALS, "PMI_RANK": "x"}, "PMI_RANK='x'"),
    ],
)
def test_inconsistent_launcher_variables_are_named_with_an_example(env, message):
    with pytest.raises(UsageError, match=message):
        detect_environment(env)
