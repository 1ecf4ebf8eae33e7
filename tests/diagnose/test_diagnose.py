"""app.diagnose on real failure logs: the seeds' outputs, logs quoted in public issue threads (each file in
logs/ starts with a `# source:` line), the messages of Slurm's and this project's sources, and unrelated logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.host.diagnose import Line, diagnose, diagnose_lines
from app.host.diagnose.causes import CAUSES
from app.host.diagnose.cli import FOUND, NOTHING_RECOGNISED, UNREADABLE, main

LOGS = Path(__file__).with_name("logs")
REPO = Path(__file__).resolve().parents[2]

# (log, the cause its thread or seed established, first)
ESTABLISHED = [
    ("seed004-eap-one-torchrun.log", "rendezvous-one-node"),
    ("seed004-aws-ofi-efa.log", "rendezvous-one-node"),
    ("seed000-mn5-watchdog.log", "nccl-watchdog"),
    ("seed000-mn5-connect.log", "nccl-connect"),
    ("pytorch-118369-watchdog.log", "nccl-watchdog"),
    ("torchtitan-1224-duplicate-gpu.log", "duplicate-gpu"),
    ("pytorch-107021-rendezvous-connect.log", "rendezvous-connect"),
    ("pytorch-18853-oom.log", "cuda-oom"),
    ("libfabric-975-verbs-driver.log", "no-verbs-driver"),
    ("aws-ofi-nccl-1020-no-devices.log", "no-fabric-provider"),
    ("awsome-292-fabric-abi.log", "libfabric-abi"),
    ("cscs-no-ofi-plugin.log", "no-ofi-plugin"),
    ("kokoro-401-exec-format.log", "image-arch"),
    ("metacentrum-pbs-walltime.log", "walltime"),
    ("slurm-time-limit.log", "walltime"),
    ("slurm-node-failure.log", "node-failure"),
    ("sbatch-gres.log", "slurm-gres"),
    ("sbatch-qos.log", "slurm-qos-account"),
    ("project-launcher-count.log", "launcher-one-node"),
    ("project-check-verdict.log", "check-verdict"),
    ("run-hung", "hang-named"),
]


@pytest.mark.parametrize(("log", "cause"), ESTABLISHED)
def test_each_log_is_diagnosed_with_the_cause_its_source_established(log: str, cause: str) -> None:
    findings = diagnose([LOGS / log])
    assert findings, f"{log}: nothing recognised"
    assert findings[0].key == cause, [f.key for f in findings]


def test_every_test_log_cites_its_source() -> None:
    for path in LOGS.glob("*.log"):
        assert path.read_text().startswith("# source: "), path


@pytest.mark.parametrize("log", ["unrelated-gcc.log", "unrelated-training.log"])
def test_unrelated_logs_are_not_recognised(log: str) -> None:
    assert diagnose([LOGS / log]) == []


@pytest.mark.parametrize("log", ["h200-one-gpu-2.28.9.log", "ib-two-nodes.log", "slingshot-ofi.log",
                                 "hpcx-ibext-nvls.log"])
def test_healthy_nccl_logs_are_not_recognised(log: str) -> None:
    assert diagnose([REPO / "tests/data/check/nccl" / log]) == []


def test_seed_004_names_the_one_node_torchrun_first_and_the_efa_provider_after() -> None:
    seed = Path("/work/shared/seeds/004_a986113bada6d445.txt")
    paths = [seed] if seed.exists() else [LOGS / "seed004-aws-ofi-efa.log"]
    keys = [f.key for f in diagnose(paths)]
    assert keys[0] == "rendezvous-one-node"
    assert "efa-on-slingshot" in keys


def test_rendezvous_timeout_with_a_torchrun_on_every_node_blames_the_network_not_the_launcher() -> None:
    lines = ["srun --ntasks-per-node=1 torchrun --nnodes=2 --nproc_per_node=4 train.py",
             "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"]
    assert [f.key for f in diagnose_lines(lines)] == ["rendezvous-unreachable"]


def test_socket_transport_counts_only_where_the_nodes_have_a_fabric() -> None:
    assert "socket-not-fabric" in [f.key for f in diagnose([REPO / "tests/data/check/nccl/socket-fallback.log"])]
    ethernet_only = ["gpu01:31:301 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.1.11<0>",
                     "gpu01:31:301 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0"]
    assert diagnose_lines(ethernet_only) == []


def test_efa_counts_only_on_slingshot() -> None:
    aws = ["libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list"]
    assert "efa-on-slingshot" not in [f.key for f in diagnose_lines(aws)]


def test_a_root_cause_ranks_above_its_consequence() -> None:
    lines = ["[0] NCCL INFO NET/Plugin : dlerror=/opt/cray/libfabric/1.22.0/lib64/libfabric.so.1: version "
             "`FABRIC_1.8' not found (required by /opt/aws-ofi-nccl/lib/libnccl-net.so)",
             "nid001:1:2 [0] net.cc:626 NCCL WARN Error: network AWS Libfabric not found."]
    assert [f.key for f in diagnose_lines(lines)] == ["libfabric-abi", "no-ofi-plugin"]


def test_a_finding_quotes_file_and_line_and_fills_in_the_message() -> None:
    [finding] = diagnose([LOGS / "torchtitan-1224-duplicate-gpu.log"])
    assert "rank 0 and rank 1 both on CUDA device 6000" in finding.cause
    assert finding.evidence[0] == Line(str(LOGS / "torchtitan-1224-duplicate-gpu.log"), 5,
                                       "[rank2]: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 6000")


def test_cause_keys_are_unique() -> None:
    assert len({c.key for c in CAUSES}) == len(CAUSES)


def test_exit_codes_found_nothing_and_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([str(LOGS / "sbatch-gres.log")]) == FOUND == 0
    assert main([str(LOGS / "unrelated-gcc.log")]) == NOTHING_RECOGNISED
    assert "nothing recognised" in capsys.readouterr().out
    assert main([str(tmp_path / "ddp-1.out")]) == UNREADABLE == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err and "Traceback" not in err
    assert main([str(tmp_path)]) == UNREADABLE


def test_the_report_gives_cause_lines_and_fix(capsys: pytest.CaptureFixture[str]) -> None:
    main([str(LOGS / "seed004-eap-one-torchrun.log")])
    out = capsys.readouterr().out
    assert out.startswith("1. torchrun was started on one node only")
    assert "seed004-eap-one-torchrun.log:28: torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError" in out
    assert "fix: start one torchrun per node" in out


# NCCL 2.27 and later no longer name the network that failed: `WARN("Failed to initialize any NET plugin")`
# (nccl src/plugin/net.cc, v2.27.3-1 to v2.30.7-1); up to 2.26 it was `WARN("Error: network %s not found.")`
# (src/plugin/net.cc at v2.26.6-1, src/net.cc before). Which network was asked for comes from the rest of the log.
NO_NET_2_30 = "nid001:4521:4590 [0] plugin/net.cc:334 NCCL WARN Failed to initialize any NET plugin"


@pytest.mark.parametrize(("context", "cause"), [
    ("[fabric slingshot] setting NCCL_NET=AWS Libfabric (multi-node: fail at start if the OFI plugin is missing)",
     "no-ofi-plugin"),
    ("nid001:4521:4590 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so.", "no-ofi-plugin"),
    ("export NCCL_NET=IB", "no-ib-network"),
    ("gpu01:31:301 [0] NCCL INFO NET/IB : No device found.", "no-ib-network"),
])
def test_the_net_plugin_failure_of_nccl_2_27_and_later_is_diagnosed_from_the_network_asked_for(context, cause):
    keys = [f.key for f in diagnose_lines([context, NO_NET_2_30])]
    assert keys and keys[0] == cause, keys


def test_the_net_plugin_failure_with_no_context_is_still_recognised():
    assert [f.key for f in diagnose_lines([NO_NET_2_30])] == ["no-ofi-plugin"]


@pytest.mark.parametrize("line", [
    # nccl src/init.cc, v2.21.5-1 to v2.29.7-1
    "[rank2]: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 6000",
    # nccl src/graph/topo.cc, v2.30.4-1
    "gpu01:31:301 [0] graph/topo.cc:1977 NCCL WARN Multiple ranks detected using the same GPU on this node. Set "
    "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
    # nccl src/init.cc, v2.30.7-1
    "gpu01:31:301 [0] init.cc:1057 NCCL WARN Multiple Ranks are using the same GPU/Partition. Set "
    "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
])
def test_two_ranks_on_one_gpu_is_recognised_in_each_nccl_versions_words(line):
    [finding] = diagnose_lines([INVALID_USAGE, line])
    assert finding.key == "duplicate-gpu" and "{" not in finding.cause


#: How torch reports the init NCCL failed (tests/diagnose/logs/torchtitan-1224-duplicate-gpu.log).
INVALID_USAGE = ("[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                 "NCCLUtils.cpp:77, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.26.5")


@pytest.mark.parametrize("lines", [
    ["Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40"],
    ["Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40", "Epoch 3: loss 0.41"],
])
def test_a_duplicate_gpu_line_with_no_failure_in_the_log_names_no_cause(lines):
    # NCCL prints it as it fails the init; quoted alone, with nothing that says the job failed, it is not read as
    # the job's cause (a user's own change that put two ranks on one GPU, reported as a bare line).
    assert diagnose_lines(lines) == []


def test_the_duplicate_gpu_fix_works_under_srun():
    # Under srun, --gpus-per-task implies --gpu-bind=per_task (Slurm's srun/sbatch docs): each task sees its
    # one GPU as device 0, and srun sets no LOCAL_RANK (SLURM_LOCALID instead).
    [finding] = diagnose_lines([INVALID_USAGE, "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 6000"])
    assert "SLURM_LOCALID" in finding.fix and "cuda:0" in finding.fix
    under_srun = finding.fix.split("under srun")[1]
    assert "LOCAL_RANK']" not in under_srun and "SLURM_LOCALID" in under_srun


def test_the_watchdog_fix_names_the_variable_that_dumps_the_flight_recorder():
    # torch's flight recorder buffer is on by default (2000 entries); TORCH_NCCL_DUMP_ON_TIMEOUT=1 dumps it.
    [finding] = diagnose_lines(["[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5)"])
    assert "TORCH_NCCL_DUMP_ON_TIMEOUT=1" in finding.fix and "TRACE_BUFFER_SIZE" not in finding.fix


def _watchdog(seq: int, timeout_ms: int) -> str:
    # torch 2.2 to 2.13 ProcessGroupNCCL.cpp: the watchdog's message with operator<<(WorkNCCL).
    return (f"[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: "
            f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)={timeout_ms}) "
            f"ran for {timeout_ms + 8} milliseconds before timing out.")


#: tqdm's meter (tqdm/std.py format_meter) as a program's own loop prints it.
PROGRESS = "Preparing test set...:  39%|###9      | 26/67 [24:51<30:30, 44.65s/it]"


@pytest.mark.parametrize("lines,keys", [
    # A timeout the program set, far below torch's defaults: the short timeout first, the watchdog after it.
    ([_watchdog(812, 60000)], ["pg-timeout-too-short", "nccl-watchdog"]),
    # torch before 2.2 names no SeqNum.
    (["[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=BROADCAST, Timeout(ms)=60000) ran for "
      "69479 milliseconds before timing out."], ["pg-timeout-too-short", "nccl-watchdog"]),
    # The default timeout: the collective stopped, no short timeout to blame.
    ([_watchdog(812, 1800000)], ["nccl-watchdog"]),
    ([PROGRESS, _watchdog(812, 1800000)], ["nccl-watchdog"]),
    ([_watchdog(3, 1800000)], ["nccl-watchdog"]),
    # One of the group's first collectives timed out while the program's own loop counted 26 steps: the others
    # waited for that rank's own work (preparing data), the program's timing, no infrastructure cause.
    ([PROGRESS, _watchdog(3, 1800000)], []),
    (["Preparing test set...:   2%|2         | 1/67 [00:41<45:00, 41.87s/it]", _watchdog(3, 1800000)],
     ["nccl-watchdog"]),
])
def test_a_watchdog_timeout_is_read_with_the_timeout_and_the_collective_it_names(lines, keys):
    assert [finding.key for finding in diagnose_lines(lines)] == keys


def test_the_out_of_memory_fix_names_the_allocator_variable_torch_reads_today():
    # torch >= 2.9: "PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead" (AllocatorConfig.cpp).
    [finding] = diagnose_lines(["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"])
    assert "`PYTORCH_ALLOC_CONF=expandable_segments:True`" in finding.fix


def test_a_watchdog_timeout_on_slingshot_points_at_the_opt_in_eager_workaround():
    # CSCS' known issue "NCCL watchdog timeout or hanging process": disable Slingshot eager messages.
    [finding] = diagnose_lines(["[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)"])
    assert "APP_FABRIC_OPT_IN=cxi-no-eager" in finding.fix
    assert "FI_CXI_RDZV_GET_MIN=0 FI_CXI_RDZV_THRESHOLD=0 FI_CXI_RDZV_EAGER_SIZE=0" in finding.fix


@pytest.mark.parametrize("line", ["gh200-pbs.sh: error: apptainer not found in PATH",
                                  "gh200-pbs.sh: error: torchrun is not in PATH (IMAGE=none)"])
def test_a_fix_that_relies_on_the_submit_environment_says_how_pbs_passes_it(line: str) -> None:
    """A job inherits a `module load` only through sbatch's default --export=ALL or qsub -V (qsub.1B): PBS users
    submitting with plain qsub must read that too."""
    (finding,) = diagnose_lines([line])
    assert "`sbatch`" in finding.fix and "`qsub -V`" in finding.fix, finding.fix
