"""Layer verdicts: when a log shows a failure but no cause fits, app.diagnose names the layer the symptom points
to and what to run next there, and never a cause (app/host/diagnose/layers.py)."""

from __future__ import annotations

import pytest

from app.host.diagnose import diagnose_lines
from app.host.diagnose.cli import main

TWO_NODES = "SLURM_JOB_NUM_NODES=2"

# (lines, the verdict, where the lines come from)
SYMPTOMS = [
    ([TWO_NODES, "nid001:4521:4590 [0] NCCL INFO comm 0x55d0c0ffee00 rank 0 nRanks 4 nNodes 1 localRanks 4 "
      "localRank 0 MNNVL 0"], "layer-one-node-only", "NCCL src/init.cc"),
    (["*** An error occurred in MPI_Init", "*** on a NULL communicator",
      "srun: error: hpl: task 0: Exited with exit code 1"], "layer-mpi-init-failed",
     "Open MPI v4.1.6 ompi/errhandler/errhandler_predefined.c"),
    # MPICH's (Cray MPICH's) words for the same: MPI_Init stopped at its PMI step.
    (["MPICH ERROR [Rank 0] [job id unknown] [Fri Apr 28 23:00:59 2023] [nid001] - Abort(1091855) (rank 0 in comm 0): "
      "Fatal error in PMPI_Init: Other MPI error, error stack:", "MPIR_pmi_init(110)...: PMI_Init returned 1"],
     "layer-mpi-init-failed", "MPICH src/mpi/errhan/errutil.c"),
    # Lightning: rank 1 of 8 joined twice before ranks 2 to 7 joined once (Slurm started two tasks per rank).
    ([*[f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/8" for r in (1, 1, 0, 0)],
      "Traceback (most recent call last):"], "layer-rank-started-twice", "Lightning's DDP plugin"),
    # Lightning: rank 0 began joining a world of 4 and never logged that all had registered.
    (["Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4"], "layer-lightning-ranks-never-registered",
     "Lightning 2.6.5 fabric/utilities/distributed.py"),
    # pyxis could not start the container and the enroot log it printed names nothing known.
    (["slurmstepd: error: pyxis: container start failed with error code: 1",
      "slurmstepd: error: pyxis: printing enroot log file:", "slurmstepd: error: pyxis:     [ERROR] unexpected"],
     "layer-container-start-failed", "pyxis src/pyxis_slurmstepd.c"),
    # NCCL refused its call (ncclInvalidUsage) and no WARN line says why.
    (["Found 1 GPUs", "[NCCL ERROR]: invalid usage", "terminate called after throwing an instance of "
      "'std::runtime_error'"], "layer-nccl-invalid-usage", "NCCL src/init.cc ncclGetErrorString"),
    ([TWO_NODES, "srun: error: gpu017: tasks 4-7: Exited with exit code 1"], "layer-one-node-error",
     "Slurm src/srun/launch.c"),
    (["torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined."],
     "layer-rendezvous-timeout", "torch c10d TCPStore"),
    (["[rank3]:[E1128 10:02:11.482000 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 3] "
      "Heartbeat monitor timed out! Process will be terminated after dumping debug info."],
     "layer-hang-after-init", "torch ProcessGroupNCCL.cpp"),
    (["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
      "remote process exited or there was a network error, NCCL version 2.21.5",
      "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."],
     "layer-fabric-error", "NCCL src/init.cc ncclGetErrorString"),
    (["ncclUnhandledCudaError: Call to CUDA function failed."], "layer-gpu-error",
     "NCCL src/init.cc ncclGetErrorString"),
    # NCCL to 2.20 (v2.18.5-1 src/init.cc): the error strings without "(run with NCCL_DEBUG=INFO for details)".
    (["RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled cuda "
      "error, NCCL version 2.14.3"], "layer-gpu-error", "NCCL v2.14.3-1 src/init.cc line 1518"),
    # NCCL's own CUDA checks (src/include/checks.h "Cuda failure '%s'", cudawrap.h "Cuda failure %d '%s'").
    (["gpu-a-017:2741:2790 [0] transport/p2p.cc:391 NCCL WARN Cuda failure 999 'unknown error'"],
     "layer-gpu-error", "NCCL v2.30.7-1 src/include/cudawrap.h line 37"),
    (["gpu-a-017:2741:2741 [0] init.cc:426 NCCL WARN Cuda failure 'operation not supported'"],
     "layer-gpu-error", "NCCL v2.18.5-1 src/include/checks.h line 16"),
    # NCCL's InfiniBand transport: a work completion in error fails the communicator (net_ib.cc, 2.18 to 2.30).
    (["gpu-a-017:2741:2790 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
      "10.0.0.18<57888> with status=5 opcode=1 len=0 vendor err 249 (Recv) localGid fe80::1 remoteGids fe80::2"],
     "layer-fabric-error", "NCCL v2.18.5-1 src/transport/net_ib.cc"),
    # (error 4, a local protection error, is a cause: p2p-acs-iommu; 10 is the remote side's access error.)
    (["gpu-a-017:2741:2790 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
      "fe80::966d:ae03:8b:df78%ib0<53249> with error 10, opcode 32564, len 32564, vendor err 136 (Send)"],
     "layer-fabric-error", "NCCL v2.18.5-1 src/transport/net_ib.cc"),
    (["Traceback (most recent call last):", "torch.distributed.elastic.rendezvous.api.RendezvousClosedError"],
     "layer-rendezvous-closed", "torch elastic/rendezvous/dynamic_rendezvous.py"),
    # nccl-tests listed its ranks (v2.17.6 src/util.cu line 566; before groups, without "Group") and printed no
    # result: within one node the host's GPU path, across nodes the fabric.
    (["#   Rank  0 Pid  28329 on   SAIS1020 device  0 [0x01] NVIDIA RTX A6000",
      "#   Rank  1 Pid  28330 on   SAIS1020 device  1 [0x41] NVIDIA RTX A6000",
      "SAIS1020:28329:28341 [0] NCCL INFO Using network Socket"], "layer-nccl-tests-hang-in-node",
     "nccl-tests src/util.cu"),
    (["#  Rank  0 Group  0 Pid   2741 on  gpu-a-017 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
      "#  Rank  4 Group  0 Pid   3120 on  gpu-a-018 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3"],
     "layer-nccl-tests-hang", "nccl-tests src/util.cu"),
    # NCCL's internal checks (topology search, a GPU its version does not know): ncclInternalError.
    (["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, "
      "internal error, NCCL version 2.14.3", "ncclInternalError: Internal check failed."],
     "layer-nccl-internal", "NCCL v2.14.3-1 src/init.cc line 1520"),
]


@pytest.mark.parametrize("lines,verdict,source", SYMPTOMS, ids=[s[1] for s in SYMPTOMS])
def test_a_symptom_without_a_cause_gets_its_layer_verdict(lines: list[str], verdict: str, source: str) -> None:
    findings = diagnose_lines(lines)
    assert [f.key for f in findings] == [verdict], source
    assert findings[0].is_verdict and findings[0].confidence == "layer only" and findings[0].layer
    assert findings[0].cause.startswith("no cause recognised")


@pytest.mark.parametrize("lines,verdict,source", SYMPTOMS, ids=[s[1] for s in SYMPTOMS])
def test_a_verdict_gives_way_to_any_cause(lines: list[str], verdict: str, source: str) -> None:
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    assert [f.key for f in diagnose_lines([*lines, oom])] == ["cuda-oom"]


def test_errors_on_several_nodes_are_not_an_error_on_one_node() -> None:
    lines = [TWO_NODES, "srun: error: gpu017: tasks 4-7: Exited with exit code 1",
             "srun: error: gpu018: tasks 0-3: Exited with exit code 1"]
    assert diagnose_lines(lines) == []


def test_nccl_warnings_from_one_host_only_point_to_that_node() -> None:
    warn = "{host}:2741:2790 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion with error 5"
    failed = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"
    findings = diagnose_lines([TWO_NODES, warn.format(host="gpu-a-018"), warn.format(host="gpu-a-018"), failed])
    assert [f.key for f in findings] == ["layer-one-node-error"] and "gpu-a-018" in findings[0].cause
    both = [TWO_NODES, warn.format(host="gpu-a-017"), warn.format(host="gpu-a-018"), failed]
    assert diagnose_lines(both) == []


def test_a_warning_on_one_node_of_a_run_that_did_not_fail_is_no_symptom() -> None:
    """NCCL warns at shutdown in healthy runs too (its service thread, its proxy): without a failure, no verdict."""
    warn = "gpu-a-018:2741:2790 [0] misc/socket.cc:58 NCCL WARN socketProgress: Connection closed by remote peer x"
    assert diagnose_lines([TWO_NODES, warn]) == []


def test_one_node_communicators_beside_multi_node_ones_are_no_symptom() -> None:
    """Tensor-parallel or hybrid-sharded jobs build one-node communicators next to the job-wide one."""
    comm = "gpu-a-017:1:2 [0] NCCL INFO comm 0x55d0c0ffee00 rank 0 nRanks {n} nNodes {nodes} localRanks 4 localRank 0"
    assert diagnose_lines([TWO_NODES, comm.format(n=4, nodes=1), comm.format(n=8, nodes=2)]) == []


def test_one_node_in_a_one_node_job_is_no_symptom() -> None:
    line = "nid001:1:2 [0] NCCL INFO comm 0x55d0c0ffee00 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0"
    assert diagnose_lines(["SLURM_JOB_NUM_NODES=1", line]) == []


def test_a_verdict_alone_exits_as_nothing_recognised_and_says_what_to_run(tmp_path, capsys) -> None:
    log = tmp_path / "job.out"
    log.write_text("ncclUnhandledCudaError: Call to CUDA function failed.\n")
    assert main([str(log)]) == 8
    out = capsys.readouterr().out
    assert "[layer-gpu-error]" in out and "layer: host; confidence: layer only" in out and "nvidia-smi topo -m" in out


def test_mpi_that_could_not_start_gives_way_to_the_pmi_cause_its_lines_name() -> None:
    lines = ["*** An error occurred in MPI_Init", "PMI2_Init failed to intialize.  Return code: 1"]
    assert [f.key for f in diagnose_lines(lines)] == ["mpi-without-pmi"]


def test_nccl_tests_that_printed_its_results_is_no_hang() -> None:
    """A result row (nccl-tests v2.17.6 src/util.cu line 424) or the closing average (line 644) means the
    collectives completed: the ranks' list is then no symptom."""
    ranks = ["#  Rank  0 Group  0 Pid   2741 on  gpu-a-017 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
             "#  Rank  1 Group  0 Pid   2741 on  gpu-a-017 device  1 [0000:2b:00] NVIDIA H100 80GB HBM3"]
    row = ("           8             2     float     sum      -1    28.41    0.00    0.00      0    27.98    0.00    "
           "0.00      0")
    assert diagnose_lines([*ranks, row]) == []
    assert diagnose_lines([*ranks, "# Avg bus bandwidth    : 112.4 "]) == []


def test_every_rank_joining_once_and_then_again_is_a_restart_not_a_rank_started_twice() -> None:
    joined = [f"Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/2" for r in (0, 1, 1, 0)]
    assert diagnose_lines([*joined, "Traceback (most recent call last):"]) == []
