"""The causes of failures on the node and in the runtime (shared memory, locked memory, Fabric Manager, the
container runtime, the scheduler's refusals, NCCL's bootstrap and IB errors): each a line as its program prints
it -> the cause app.diagnose names first.

The lines come from the programs' sources (the format string filled in) or from logs quoted in public threads
other than the corpus's (tests/diagnose/corpus/), so that a pattern shows it reads the message, not one case."""

from __future__ import annotations

import re
import time

import pytest

from app.check.node import driver, fabric_manager, memlock, shm
from app.host.diagnose import diagnose_lines
from app.host.diagnose.causes import BY_KEY, CAUSES

# (the lines, the cause named first, where the lines come from)
LINES = [
    (["sbatch: error: Batch job submission failed: Requested node configuration is not available"],
     "slurm-request-unsatisfiable", "slurm src/common/slurm_errno.c ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE"),
    (["slurmstepd: error: Detected 1 oom_kill event in StepId=6959634.0. Some of the step tasks have been OOM "
      "Killed.", "srun: error: holy8a24101: task 0: Out Of Memory"],
     "host-oom", "Slurm >= 22.05 task/cgroup, as quoted by a site's guide"),
    (["FATAL:   could not open image /gpfs/projects/p1/app.sif: SIF image /gpfs/projects/p1/app.sif is corrupted: "
      "wrong partition size"], "image-corrupt", "apptainer pkg/image/sif.go"),
    (["FATAL:   container creation failed: mount hook function failure: mount /opt/cray->/opt/cray error: while "
      "mounting /opt/cray: destination /opt/cray doesn't exist in container"],
     "bind-destination-missing", "OLCF Frontier container docs; apptainer container_linux.go"),
    (["FATAL:   image targets 'amd64', cannot run on 'arm64'"], "image-arch",
     "apptainer internal/pkg/runtime/engine/apptainer/process_linux.go"),
    (["OSError: libcuda.so.1: cannot open shared object file: No such file or directory"], "apptainer-no-nv",
     "glibc dlopen, a CUDA program in a container started without --nv"),
    (["enroot-mksquashovlfs: failed to set capabilities: Operation not permitted"], "enroot-caps-missing",
     "enroot bin/enroot-mksquashovlfs.c"),
    (["enroot-aufs2ovlfs: failed to create user namespace: Invalid argument"], "enroot-uid-overflow",
     "enroot bin/enroot-aufs2ovlfs.c"),
    (["slurmstepd: error: pyxis:     FATAL ERROR: Failed to write to output filesystem"],
     "pyxis-runtime-full", "squashfs-tools mksquashfs.c, whose output pyxis prints after `pyxis:`"),
    (["RuntimeError: CUDA error: system not yet initialized"], "fabric-manager-down",
     "CUDA's string for cudaErrorSystemNotReady (802)"),
    (["nid001:1:2 [0] transport/nvls.cc:143 NCCL WARN Cuda failure 1 'invalid argument'"],
     "fabric-manager-restarted", "nccl src/include/cudawrap.h CUCHECK in src/transport/nvls.cc"),
    (["AssertionError: Torch not compiled with CUDA enabled"], "cuda-unavailable", "torch/cuda/__init__.py"),
    (["RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
      "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx"],
     "driver-too-old", "torch c10/cuda/CUDAFunctions.cpp"),
    (["RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"], "driver-too-old",
     "CUDA's string for cudaErrorInsufficientDriver (35)"),
    (["ImportError: /opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
      "ncclMemAlloc"], "nccl-version-mismatch", "glibc's loader"),
    (["torch.AcceleratorError: CUDA error: invalid device ordinal"], "too-many-ranks-per-node",
     "CUDA's string for cudaErrorInvalidDevice"),
    (["#SBATCH --gpus-per-task=1", "torch.AcceleratorError: CUDA error: invalid device ordinal"],
     "gpus-per-task-binding", "Slurm's docs: --gpus-per-task implies --gpu-bind=per_task"),
    (["deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA "
      "op(s)"], "deepspeed-op-build", "deepspeed op_builder/builder.py installed_cuda_version"),
    (["[INFO] [comm.py:652:init_distributed] Not using the DeepSpeed or dist launchers, attempting to detect MPI "
      "environment...", "ModuleNotFoundError: No module named 'mpi4py'"],
     "deepspeed-mpi-discovery", "deepspeed comm/comm.py init_distributed, mpi_discovery"),
    (["ssh: Could not resolve hostname worker-1: Temporary failure in name resolution"], "hostfile-unresolvable",
     "OpenSSH ssh.c"),
    (["RuntimeError: The server socket has failed to listen on any local network address. The server socket has "
      "failed to bind to [::]:29500 (errno: 98 - Address already in use)."], "port-in-use",
     "torch/csrc/distributed/c10d/socket.cpp"),
    (["[nid001:1234] PMIX ERROR: OUT-OF-RESOURCE in file dstore_segment.c at line 207"], "pmix-gds-mismatch",
     "openpmix src/util/error.h PMIX_ERROR_LOG"),
    # A rank's container without Slurm's PMIx server directory (the twin image's Open MPI 4.1 and PMIx 4.2.2 under
    # srun --mpi=pmix on the test cluster, the directory not bound)
    (["1: [x1000c0s1b0n0:14793] PMIX ERROR: ERROR in file ../../../../../../src/mca/gds/ds12/gds_ds12_lock_pthread.c "
      "at line 169", "1: [x1000c0s1b0n0:14793] [[18510,28849],1] ORTE_ERROR_LOG: Error in file "
      "../../../orte/util/session_dir.c at line 107", "1: *** An error occurred in MPI_Init"],
     "pmix-gds-mismatch", "openpmix src/mca/gds/ds12/gds_ds12_lock_pthread.c, v4.2.2"),
    (["Error while creating shared memory segment /dev/shm/nccl-VPyhzw (size 21823872), error: No space left on "
      "device (28)"], "shm-too-small", "nccl src/os/linux.cc, v2.30.4-1"),
    (["gpu1:168:168 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-UbzKZ9 to 9637892 bytes"],
     "shm-too-small", "nccl src/misc/shmutils.cc, v2.21.5-1"),
    (["gpu1:168:168 [0] os/linux.cc:714 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Ub "
      "(size 9637888), error: Permission denied (13)"], "shm-not-writable", "nccl src/os/linux.cc, v2.30.4-1"),
    (["gpu1:168:170 [0] os/linux.cc:861 NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, error: No such "
      "file or directory (2)"], "systemd-removeipc", "nccl src/os/linux.cc, v2.30.4-1"),
    (["gpu1:9:9 [0] misc/ibvwrap.cc:43 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory"],
     "memlock-too-low", "nccl src/misc/ibvwrap.cc, v2.30.4-1"),
    (["gpu1:9:9 [0] NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid "
      "argument"], "efa-installer-too-old", "aws-ofi-nccl src/nccl_ofi_rdma.cpp"),
    (["gpu1:9:9 [0] transport/shm.cc:412 NCCL WARN Cuda failure 217 'peer access is not supported between these "
      "two devices'"], "cumem-host-no-p2p", "nccl src/include/cudawrap.h CUCHECK in src/transport/shm.cc"),
    (["gpu1:9:9 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /etc/nccl/graph.xml",
      "gpu1:9:9 [0] graph/search.cc:919 NCCL WARN XML Import Channel : dev 3 not found."],
     "topo-file-preset", "nccl src/graph/search.cc, v2.30.4-1"),
    (["gpu1:9:9 [0] transport/net_ib/p2p.cc:648 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<40000> with "
      "status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129  hca mlx5_0"],
     "roce-gid-index", "nccl src/transport/net_ib/p2p.cc, v2.30.4-1"),
    (["gpu1:9:9 [0] transport/net_ib.cc:1909 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<40000> with "
      "status=12 opcode=0 len=0 vendor err 129 (Send)"], "roce-gid-index", "nccl src/transport/net_ib.cc, v2.21.5-1"),
    (["gpu1:9:9 [0] misc/ibvwrap.cc:376 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev "
      "mlx5_3:1, curr state INIT, next state RTR"], "rail-only-fabric", "nccl src/misc/ibvwrap.cc, v2.30.4-1"),
    (["gpu1:9:9 [0] bootstrap.cc:128 NCCL WARN Bootstrap : no socket interface found"], "wrong-bootstrap-iface",
     "nccl src/bootstrap.cc, v2.30.4-1"),
    (["gpu1:9:9 [0] misc/socket.cc:542 NCCL WARN ncclSocketInit: connecting to address  with family 0 is neither "
      "AF_INET(2) nor AF_INET6(10)"], "wrong-bootstrap-iface", "nccl src/misc/socket.cc, v2.30.4-1"),
    (["gpu1:9:9 [0] NCCL INFO Failed to open libibverbs.so[.1]",
      "gpu1:9:9 [0] NCCL INFO NET/Socket : Using [0]ib0:10.1.0.7<0>"], "socket-not-fabric",
     "nccl src/misc/ibvsymbols.cc and src/transport/net_socket.cc: an image without libibverbs on an IB node"),
]


@pytest.mark.parametrize(("lines", "cause", "source"), LINES, ids=[f"{c}-{i}" for i, (_, c, _) in enumerate(LINES)])
def test_each_message_names_its_cause_first(lines: list[str], cause: str, source: str) -> None:
    keys = [finding.key for finding in diagnose_lines(lines)]
    assert keys and keys[0] == cause, (source, keys)


def test_a_ucx_memlock_warning_in_a_run_that_went_on_names_no_cause() -> None:
    """UCX prints it while probing a device it then does not use (openucx/ucx#8746): not why a job failed."""
    lines = ["[1668693503.473099] [ampere:1188443:0] ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: Cannot "
             "allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)"]
    assert diagnose_lines(lines) == []


def test_nccl_info_lines_of_a_healthy_run_name_no_cause() -> None:
    lines = ["gpu1:9:9 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /etc/nccl/topo.xml",
             "gpu1:9:9 [0] NCCL INFO Bootstrap: Using ib0:10.1.0.7<0>",
             "gpu1:9:9 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.1.0.7<0>",
             "[INFO] [comm.py:652:init_distributed] Not using the DeepSpeed or dist launchers, attempting to detect "
             "MPI environment..."]
    assert diagnose_lines(lines) == []


#: The causes this file covers; their patterns are held to linear time below.
KEYS = sorted({cause for _, cause, _ in LINES} - {"image-arch", "socket-not-fabric"})


@pytest.mark.parametrize("filler", ["a", " ", "/", "NCCL WARN ", "Error while ", "pyxis: ", "SIF image ", "ssh: "])
def test_each_pattern_reads_a_200_kb_line_in_linear_time(filler: str) -> None:
    line = (filler * (200_000 // len(filler)))[:200_000]
    patterns = [re.compile(p) for cause in CAUSES if cause.key in KEYS for p in cause.patterns + cause.context]
    assert len({cause.key for cause in CAUSES if cause.key in KEYS}) == len(KEYS)
    start = time.thread_time()  # this thread's CPU time: a loaded machine does not inflate it
    for pattern in patterns:
        pattern.search(line)
    assert time.thread_time() - start < 0.5, f"a pattern backtracks on a line of {filler!r}"


#: Causes that a node check settles, and the line of `python -m app.check` that does.
SETTLED_BY_A_CHECK = {
    "shm-too-small": shm.NAME,
    "shm-not-writable": shm.NAME,
    "memlock-too-low": memlock.NAME,
    "fabric-manager-down": fabric_manager.NAME,
    "fabric-manager-restarted": fabric_manager.NAME,
    "driver-too-old": driver.NAME,
}


@pytest.mark.parametrize(("cause", "check"), SETTLED_BY_A_CHECK.items())
def test_a_cause_the_node_can_settle_names_the_check_line_that_does(cause: str, check: str) -> None:
    fix = BY_KEY[cause].fix
    assert "python -m app.check" in fix and f"`{check}`" in fix, fix


def test_a_driver_older_than_the_images_cuda_points_at_forward_compatibility_before_a_driver_update() -> None:
    """The image runs on an older driver by itself on data-center GPUs (app/common/cuda_compat.sh): the fix says
    how that is switched on, and where it cannot help, before sending the user to the admins."""
    fix = BY_KEY["driver-too-old"].fix
    assert "APP_CUDA_COMPAT" in fix and "data-center" in fix and "/opt/app/cuda_compat.sh" in fix, fix
    assert fix.index("APP_CUDA_COMPAT") < fix.index("newer driver"), fix


def test_an_invalid_device_ordinal_gives_both_of_its_readings() -> None:
    """CUDA's cudaErrorInvalidDevice is more ranks per node than GPUs, or a device chosen by the global rank: both
    are given, the first most likely (the program's code tells them apart)."""
    keys = [f.key for f in diagnose_lines(["RuntimeError: CUDA error: invalid device ordinal"])]
    assert keys[:2] == ["too-many-ranks-per-node", "device-from-global-rank"]


def test_an_invalid_device_ordinal_under_a_device_chosen_by_the_global_rank_names_that_first() -> None:
    """Where the traceback quotes the program choosing its GPU by the global rank, that is the reading."""
    lines = ["[rank18]:     torch.cuda.set_device(dist.get_rank())",
             "[rank18]: RuntimeError: CUDA error: invalid device ordinal"]
    assert [f.key for f in diagnose_lines(lines)][:1] == ["device-from-global-rank"]
    lines = ["    torch.cuda.set_device(local_rank)", "RuntimeError: CUDA error: invalid device ordinal"]
    assert [f.key for f in diagnose_lines(lines)][:1] == ["too-many-ranks-per-node"]
