"""`python -m app.check` in real processes: 2 and 4 ranks on gloo (CPU), started by torchrun or, as srun
and mpiexec would, one process per rank with RANK/WORLD_SIZE. Faults come from the test-only
APP_CHECK_FAULT variable (app/common/injected_faults.py). Every launch is bounded by PROCESS_TIMEOUT_S."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from app.host.common import exitcodes
from tests.check.check_helpers import DATA, PROCESS_TIMEOUT_S, REPO, clean_env, free_port, spawn_ranks

pytestmark = pytest.mark.slow

DEADLINE = 10
#: What a rank may take past its deadline to report and exit, counted from its first line of output so that
#: start-up on a loaded machine (36 s for four ranks under CI's load) is not charged to the deadline.
EXIT_MARGIN_S = 10
FAST = ["--sizes", "4K", "256K"]


def torchrun(*args: str, **env: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "torch.distributed.run", *args]
    return subprocess.run(
        cmd, cwd=REPO, env=clean_env(**env), capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S
    )


def test_healthy_two_ranks_under_torchrun_pass_with_json_and_plot(tmp_path):
    out = torchrun(
        "--standalone",
        "--nproc-per-node=2",
        "-m",
        "app.check",
        "--json",
        str(tmp_path / "c.json"),
        "--plot",
        str(tmp_path / "c.png"),
    )
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[-1].startswith("VERDICT: PASS")
    assert "# == collectives: all ranks (2) ==" in out.stdout
    report = json.loads((tmp_path / "c.json").read_text())
    rows = scope_rows(report, "all")
    assert {r["collective"] for r in rows} == {
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "broadcast",
        "sendrecv",
    }
    assert all(r["wrong"] == 0 and r["busbw"] > 0 for r in rows)
    assert f"plot: {tmp_path / 'c.png'}" in out.stdout
    import matplotlib.image

    assert matplotlib.image.imread(str(tmp_path / "c.png")).shape[:2] == (600, 1000)


def scope_rows(report: dict, scope: str) -> list[dict]:
    return next(s["rows"] for s in report["scopes"] if s["scope"] == scope)


def test_four_ranks_on_two_emulated_nodes_measure_each_scope(tmp_path):
    """Two torchrun agents (one per 'node', as srun --ntasks-per-node=1 torchrun would start them)."""
    port = str(free_port())
    common = ["--nnodes=2", "--nproc-per-node=2", "--master-addr=127.0.0.1", f"--master-port={port}"]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "torch.distributed.run",
                *common,
                f"--node-rank={n}",
                "-m",
                "app.check",
                *FAST,
                "--json",
                str(tmp_path / f"n{n}.json"),
            ],
            cwd=REPO,
            env=clean_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for n in (0, 1)
    ]
    outs = [p.communicate(timeout=PROCESS_TIMEOUT_S)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    report = json.loads((tmp_path / "n0.json").read_text())
    scopes = report["scopes"]
    assert sorted(s["kind"] for s in scopes) == ["all", "inter", "intra", "intra"]
    assert {s["title"] for s in scopes if s["kind"] == "all"} == {"all ranks (4)"}
    # Both emulated nodes measure within themselves at once on this machine's cores: not compared.
    [slow] = [c for c in report["checks"] if c["name"] == "bandwidth: slow node"]
    assert "share a machine" in slow["detail"], slow


def test_a_slow_node_among_three_is_named_from_pairwise_bandwidth(tmp_path):
    """Three torchrun agents stand for three nodes; the third one's collectives crawl (test-only fault)."""
    port, exclude = str(free_port()), tmp_path / "exclude"
    common = ["--nnodes=3", "--nproc-per-node=1", "--master-addr=127.0.0.1", f"--master-port={port}"]
    procs = [
        subprocess.Popen([sys.executable, "-m", "torch.distributed.run", *common, f"--node-rank={n}", "-m",
                          "app.check", "--preflight", "--exclude-file", str(exclude)],
                         cwd=REPO, env=clean_env(APP_CHECK_FAULT="slow@rank2"), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
        for n in range(3)
    ]
    outs = [p.communicate(timeout=PROCESS_TIMEOUT_S)[0] for p in procs]
    report = next(out for out in outs if "VERDICT" in out)
    slow = next(line for line in report.splitlines() if line.startswith("FAIL    bandwidth: slow node"))
    node = f"{socket.gethostname()}/agent2"
    assert node in slow, report
    assert exclude.read_text() == f"{socket.gethostname()}\n"  # the host behind the emulated node


def test_healthy_four_ranks_started_one_process_per_rank_pass():
    ranks = spawn_ranks(4, FAST)
    assert ranks.codes == [0] * 4, ranks.report
    assert ranks.report.strip().splitlines()[-1].startswith("VERDICT: PASS")


@pytest.mark.parametrize("launcher", ["slurm", "pbs"])
def test_srun_and_pbs_mpiexec_variables_are_understood(launcher):
    """srun one task per GPU (SLURM_PROCID, address from SLURM_STEP_NODELIST), PALS mpiexec (PMI_RANK,
    address from PBS_NODEFILE): the same detection as the trainer."""
    ranks = spawn_ranks(2, FAST, launcher=launcher)
    assert ranks.codes == [0, 0], ranks.report
    assert f"{launcher}: world size 2" in ranks.report
    master = next(line for line in ranks.report.splitlines() if "rendezvous: MASTER_ADDR" in line)
    assert "localhost:" in master
    assert ranks.report.strip().splitlines()[-1].startswith("VERDICT: PASS")


@pytest.mark.parametrize("variable", ["GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME"])
def test_nonexistent_socket_interface_is_a_preflight_failure(variable):
    ranks = spawn_ranks(2, ["--deadline", str(DEADLINE)], **{variable: "nosuch0"})
    assert ranks.codes == [exitcodes.PREFLIGHT] * 2, ranks.report
    assert f"FAIL    network: {variable}" in ranks.report and "nosuch0 matches no interface" in ranks.report
    assert ranks.seconds_after_first_line < DEADLINE + EXIT_MARGIN_S


def test_unreachable_master_addr_is_a_rendezvous_failure_within_the_deadline():
    # An address no local route answers (no answer or refused, depending on the network here).
    ranks = spawn_ranks(2, ["--deadline", str(DEADLINE)], master_addr="10.255.255.1")
    assert ranks.codes == [exitcodes.RENDEZVOUS] * 2, ranks.outputs
    assert "is not an address of rank 0's node" in ranks.outputs[0]
    tcp = next(line for line in ranks.outputs[1].splitlines() if line.startswith("FAIL    rendezvous: TCP connect"))
    assert "10.255.255.1" in tcp and f"kept trying for {DEADLINE}s" in tcp
    assert ranks.seconds_after_first_line < DEADLINE + EXIT_MARGIN_S


def test_rank_that_sleeps_forever_is_named_and_everyone_exits_with_timeout():
    ranks = spawn_ranks(4, [*FAST, "--deadline", str(DEADLINE)], APP_CHECK_FAULT="sleep@rank2:collectives")
    assert ranks.codes == [exitcodes.TIMEOUT] * 4, ranks.report
    # It fell asleep entering the stage: its last step was the one before.
    host = os.uname().nodename
    assert f"rank 2 ({host}) at 'rendezvous: process group' stopped making progress while rank 0 waits" in ranks.report
    assert ranks.report.strip().splitlines()[-1].startswith("VERDICT: FAIL (a stage or collective exceeded")
    assert ranks.seconds_after_first_line < DEADLINE + EXIT_MARGIN_S


def test_rank_that_hangs_before_reporting_its_node_is_named():
    ranks = spawn_ranks(2, ["--deadline", str(DEADLINE)], APP_CHECK_FAULT="sleep@rank1:preflight")
    assert ranks.codes == [exitcodes.TIMEOUT] * 2, ranks.report
    assert f"rank 1 ({os.uname().nodename}) at 'start' stopped making progress while rank 0 waits at 'preflight'" \
        in ranks.report


def test_rank_that_corrupts_its_contribution_gives_wrong_results_and_is_named(tmp_path):
    exclude = tmp_path / "exclude"
    ranks = spawn_ranks(4, [*FAST, "--exclude-file", str(exclude)], APP_CHECK_FAULT="corrupt@rank1")
    assert ranks.codes == [exitcodes.WRONG_RESULTS] * 4, ranks.report
    correctness = next(line for line in ranks.report.splitlines() if line.startswith("FAIL    correctness"))
    assert "data from: rank 1 on" in correctness
    assert exclude.read_text() == f"{socket.gethostname()}\n"  # its node, for sbatch --exclude


def test_preflight_runs_two_collectives_at_two_sizes_and_names_a_bad_node(tmp_path):
    exclude, report = tmp_path / "exclude", tmp_path / "report.json"
    ranks = spawn_ranks(4, ["--preflight", "--exclude-file", str(exclude), "--json", str(report)],
                        APP_CHECK_FAULT="corrupt@rank1")
    assert ranks.codes == [exitcodes.WRONG_RESULTS] * 4, ranks.report
    rows = scope_rows(json.loads(report.read_text()), "all")
    assert [(r["collective"], r["size"]) for r in rows] == [("all_reduce", 1 << 10), ("all_reduce", 4 << 20),
                                                            ("all_gather", 1 << 10), ("all_gather", 4 << 20)]
    assert exclude.read_text() == f"{socket.gethostname()}\n"


def test_rank_with_another_version_fails_consistency_and_is_named():
    ranks = spawn_ranks(2, [], APP_CHECK_FAULT="version@rank1")
    assert ranks.codes == [exitcodes.PREFLIGHT] * 2, ranks.report
    line = next(line for line in ranks.report.splitlines() if "consistency: torch version" in line)
    assert "+fault on" in line and "(rank 1)" in line
    assert "== collectives" not in ranks.report  # stopped before the collectives


def test_bandwidth_below_the_threshold_exits_slow():
    ranks = spawn_ranks(2, [*FAST, "--min-busbw", "all=100000"])
    assert ranks.codes == [exitcodes.SLOW] * 2, ranks.report
    assert "below 100000 GB/s" in ranks.report


def run_node_only(tree: str, **env: str) -> subprocess.CompletedProcess:
    args = ["--node-only", "--sys-root", str(DATA / tree / "sys"), "--dev-root", str(DATA / tree / "dev")]
    return subprocess.run(
        [sys.executable, "-m", "app.check", *args],
        cwd=REPO,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=PROCESS_TIMEOUT_S,
    )


def test_node_only_on_an_ib_node_with_a_down_port_passes_with_a_warning():
    out = run_node_only("ib-node", NCCL_IB_HCA="mlx5_0")
    assert "WARN    network: RDMA" in out.stdout and "mlx5_0:1 ACTIVE 200 Gb/sec InfiniBand -> ib0" in out.stdout
    # this machine's own libraries decide the verbs line; the RDMA/IB_HCA lines come from the fake tree
    assert out.returncode in (exitcodes.OK, exitcodes.PREFLIGHT)


def test_node_only_on_slingshot_with_efa_provider_fails_preflight():
    out = run_node_only("slingshot-node", FI_PROVIDER="efa")
    assert out.returncode == exitcodes.PREFLIGHT
    assert "FI_PROVIDER=efa but this node has no AWS EFA device" in out.stdout
    assert out.stdout.strip().splitlines()[-1].startswith("VERDICT: FAIL (a node check failed)")


def test_rank_0_reports_each_stage_and_each_size_as_it_completes(tmp_path):
    """The slow fault spreads the sweep over seconds: each size's line must arrive when that size is done,
    not with the report at the end."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "-m",
               "app.check", "--sizes", "4K", "64K", "1M", "--collectives", "all_reduce"]
    process = subprocess.Popen(command, cwd=REPO, env=clean_env(APP_CHECK_FAULT="slow@rank1"),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    arrivals = []  # (seconds since start, line)
    started = time.monotonic()
    for line in process.stdout:
        arrivals.append((time.monotonic() - started, line.rstrip("\n")))
    assert process.wait(timeout=PROCESS_TIMEOUT_S) == 0, "\n".join(line for _, line in arrivals)
    progress = [(t, line) for t, line in arrivals if line.startswith("# app.check [")]
    texts = [line.split("] ", 1)[1] for _, line in progress]
    assert texts[0] == "node checks: 2 rank(s) on 1 node(s) reported, 0 FAIL, 0 WARN"
    assert texts[1] == "process group: 2 ranks joined (gloo)"
    assert [text.split()[4] for text in texts[2:]] == ["4096", "65536", "1048576"]
    assert all(text.startswith("all ranks (2): all_reduce") and "#wrong 0" in text for text in texts[2:])
    report_at = next(t for t, line in arrivals if line.startswith("== app.check: node and job checks =="))
    first_size_at, last_size_at = progress[2][0], progress[-1][0]
    assert last_size_at - first_size_at > 0.5 and report_at >= last_size_at
