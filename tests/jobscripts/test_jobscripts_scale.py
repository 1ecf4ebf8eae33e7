"""The jobs at 1024 nodes (4 ranks a node): hostlists, the launcher check, exclude lists, history.jsonl and the
rendezvous settings, each correct and under a second.

Generated Slurm environments (SLURM_JOB_NODELIST as Cray EX and MareNostrum 5 name their nodes,
SLURM_TASKS_PER_NODE=`4(x1024)`, ...) for the Slurm job (jobscripts/mn5.sh, which starts app/host/launch/job.py, or one
part of that program) and PBS ones (a node file of FQDNs, a line per MPI slot) for the PBS job (gh200-pbs.sh, the
same program with app/host/launch/pbs_job.py's side). The
scheduler's commands are stand-ins modelled on the real ones, `scontrol show hostnames` the real Slurm
client where it is installed (bench/job_world.py describes each; `python -m bench.jobscripts_scale`
times the same calls).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from bench.job_world import (
    ALLOCATIONS,
    Allocation,
    World,
    bad_node_requeue,
    bad_node_requeue_pbs,
    check_launcher,
    check_launcher_pbs,
    cray_nids,
    history_event,
    make_world,
    pbs_env,
    pbs_gh200,
    pbs_nodes_seen,
    requeues_in_a_row,
    run_job_part,
    slurm_nodes_seen,
    whole_job,
    write_history,
)

NODES = 1024
#: Every part here, in CPU seconds of the job's process and its children (the job's python3 after its imports): what
#: a loaded shared machine does not inflate; bench/jobscripts_scale.py reports the wall-clock
BUDGET_S = 1.0
#: A whole job, in the same CPU seconds (all of `bash mn5.sh` or `bash gh200-pbs.sh`): one python3 and three steps
#: through the stand-in launcher. The Slurm job: 0.31-0.37 s at load 3 (3 runs; the bash main it replaced took
#: 1.34 s at load 6); the PBS bash main, 18 python3 starts, took 1.47 s at 1024 nodes on a 2-core machine at load 6.
#: A per-node loop in bash (1024 starts of at least 10 ms each) would still be several times this
WHOLE_JOB_BUDGET_S = 4.0
#: A message a person reads: the nodes that matter, not the 1023 that are fine
MESSAGE_CHARS = 2000


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return make_world(tmp_path_factory.mktemp("scale"))


@pytest.fixture
def cray() -> Allocation:
    return cray_nids(NODES)


@pytest.mark.parametrize("kind", sorted(ALLOCATIONS))
def test_a_slurm_hostlist_of_1024_nodes_gives_every_node_in_order_and_the_first_as_head(world: World,
                                                                                        kind: str) -> None:
    alloc = ALLOCATIONS[kind](NODES)
    run, nodes, summary = slurm_nodes_seen(world, alloc)
    assert run.returncode == 0, run.stderr
    assert nodes == alloc.nodes
    assert summary == f"nnodes={NODES} head={alloc.nodes[0]}"
    assert f"job 4242 on {alloc.nodelist}," in run.stdout  # the compressed form in the log, not 1024 names
    assert run.cpu_seconds < BUDGET_S


def test_a_pbs_node_file_with_a_line_per_slot_gives_each_of_1024_nodes_once_and_the_first_as_head(
        world: World) -> None:
    alloc = pbs_gh200(NODES)
    run, nodes, summary = pbs_nodes_seen(world, alloc)
    assert run.returncode == 0, run.stderr
    assert nodes == alloc.nodes
    assert summary == f"nnodes={NODES} head={alloc.nodes[0]}"
    assert run.cpu_seconds < BUDGET_S


@pytest.mark.parametrize("domain", ["", ".alps.cscs.ch"])
def test_the_launcher_check_counts_one_line_per_node_among_the_launchers_notices(world: World, domain: str) -> None:
    alloc = Allocation(cray_nids(NODES).nodes, cray_nids(NODES).nodelist, domain)
    run = check_launcher(world, alloc)
    assert run.returncode == 0, run.stderr
    # What each node calls itself -> its scheduler name, the pairs a bad-node requeue maps blamed hosts with
    pairs = [line.split()[1:] for line in run.stdout.splitlines() if line.startswith("name ")]
    assert len(pairs) == NODES and dict(pairs) == {alloc.hostname(node): node for node in alloc.nodes}
    (line,) = [line for line in run.stdout.splitlines() if "launcher check:" in line]
    assert f"one process on each of the {NODES} nodes" in line and len(line) < MESSAGE_CHARS
    assert run.cpu_seconds < BUDGET_S


@pytest.mark.parametrize("domain", ["", ".alps.cscs.ch"])
def test_a_node_whose_launcher_did_not_start_is_named_among_1024(world: World, domain: str) -> None:
    alloc = Allocation(cray_nids(NODES).nodes, cray_nids(NODES).nodelist, domain)
    run = check_launcher(world, alloc, skip=["nid001517"])
    assert run.returncode == 2
    assert "started 1023 process(es) on 1023 node(s) (none on nid001517) but this job has 1024 nodes" in run.stderr
    assert "Job step creation temporarily disabled" in run.stderr  # what srun said comes with it
    assert len(run.stderr) < MESSAGE_CHARS, run.stderr[:3000]
    assert run.cpu_seconds < BUDGET_S


def test_a_node_with_two_launchers_and_one_without_are_both_named(world: World, cray: Allocation) -> None:
    run = check_launcher(world, cray, skip=["nid001900"], twice=["nid001002"])
    assert run.returncode == 2
    assert "started 1024 process(es) on 1023 node(s) (none on nid001900; 2 on nid001002) but" in run.stderr
    assert len(run.stderr) < MESSAGE_CHARS


def test_many_missing_nodes_are_counted_and_the_first_named(world: World, cray: Allocation) -> None:
    run = check_launcher(world, cray, skip=cray.nodes[100:400])
    assert run.returncode == 2
    assert "started 724 process(es) on 724 node(s) (none on nid001100 nid001101 nid001102" in run.stderr
    assert "nid001115 ... (300 in all)) but this job has 1024 nodes" in run.stderr
    assert len(run.stderr) < MESSAGE_CHARS


def test_pbs_launcher_check_names_a_missing_node_by_its_node_file_name(world: World) -> None:
    alloc = pbs_gh200(NODES)
    assert check_launcher_pbs(world, alloc).returncode == 0
    run = check_launcher_pbs(world, alloc, skip=[alloc.nodes[700]])
    assert run.returncode == 2
    assert f"none on {alloc.nodes[700]}" in run.stderr
    assert len(run.stderr) < MESSAGE_CHARS
    assert run.cpu_seconds < BUDGET_S


def test_nodes_that_call_themselves_otherwise_than_the_node_file_pass_and_are_never_wrongly_named(
        world: World) -> None:
    """Cray EX under PBS: xnames in the node file, `uname -n` says nidNNNNNN. PALS gives each task its node's
    index, so the node without a process is named as the node file names it; where the launcher gives no index
    the count decides, and a failure lists the hostnames that answered rather than blame nodes it cannot match."""
    alloc = pbs_gh200(NODES)
    assert check_launcher_pbs(world, alloc, nids=True).returncode == 0
    run = check_launcher_pbs(world, alloc, skip=[alloc.nodes[700]], nids=True)
    assert run.returncode == 2
    assert f"started 1023 process(es) on 1023 node(s) (none on {alloc.nodes[700]})" in run.stderr
    assert len(run.stderr) < MESSAGE_CHARS
    run = check_launcher_pbs(world, alloc, skip=[alloc.nodes[700]], nids=True, node_index=False)
    assert run.returncode == 2
    assert "started 1023 process(es) on 1023 node(s) (nid000001 nid000002" in run.stderr
    assert "none on" not in run.stderr and len(run.stderr) < MESSAGE_CHARS


def test_three_bad_nodes_of_1024_are_left_out_by_their_scheduler_names(world: World) -> None:
    """The trainer and app.check name hosts as the nodes call themselves (FQDNs here); Slurm's exclude list
    wants its own node names, added to what the job already excluded."""
    alloc = Allocation(cray_nids(NODES).nodes, cray_nids(NODES).nodelist, ".alps.cscs.ch")
    run_dir = world.root / "run"
    (run_dir / "history.jsonl").unlink(missing_ok=True)
    Path(f"{world.log}.scontrol").unlink(missing_ok=True)
    blamed = ["nid002000.alps.cscs.ch", "nid001003.alps.cscs.ch", "nid001517.alps.cscs.ch"]
    run = bad_node_requeue(world, alloc, blamed, excluded_before="nid[001100-001101]")
    assert run.returncode == 75, run.stderr
    requeue, update = world.scontrol_calls()
    assert requeue == "scontrol requeue 4242"
    assert shlex.split(update) == ["scontrol", "update", "JobId=4242",
                                   "ExcNodeList=nid001100,nid001101,nid001003,nid001517,nid002000"]
    (line,) = (run_dir / "history.jsonl").read_text().splitlines()
    entry = json.loads(line)
    assert entry["excluded"] == ["nid001003", "nid001517", "nid002000"]
    assert entry["hosts"] == alloc.nodes and entry["event"] == "requeue"
    assert run.cpu_seconds < BUDGET_S


def test_after_max_requeues_in_a_row_over_a_long_history_the_job_gives_up_instead_of_requeueing(
        world: World, cray: Allocation) -> None:
    run_dir = world.root / "run"
    write_history(run_dir, cray.nodes, attempts=500, requeues_at_the_end=3)  # MAX_REQUEUES=3 reached
    Path(f"{world.log}.scontrol").unlink(missing_ok=True)
    run = bad_node_requeue(world, cray, ["nid001003"])
    assert run.returncode == 1
    assert "giving up after 3 requeue(s) in a row for bad nodes (MAX_REQUEUES=3)" in run.stderr
    assert world.scontrol_calls() == []
    last = json.loads((run_dir / "history.jsonl").read_text().splitlines()[-1])
    assert last["event"] == "gave-up" and last["excluded"] == ["nid001003"]
    assert run.cpu_seconds < BUDGET_S


def test_requeues_in_a_row_are_counted_right_over_a_long_history_of_1024_node_lines(world: World,
                                                                                    cray: Allocation) -> None:
    """500 attempts (about what Llama 3's 54 days saw in interruptions), a requeue after each; the last
    two made no progress. Every line names all 1024 hosts: a file of about 13 MB."""
    run_dir = world.root / "history-run"
    write_history(run_dir, cray.nodes, attempts=500, requeues_at_the_end=2)
    run = run_job_part(world, requeues_in_a_row(), world.env(RUN_DIR=str(run_dir)))
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "2"
    assert run.cpu_seconds < BUDGET_S


def test_a_history_event_takes_1024_fqdn_hosts(world: World) -> None:
    alloc = pbs_gh200(NODES)
    run_dir = world.root / "event-run"
    run_dir.mkdir(exist_ok=True)
    run = run_job_part(world, history_event(alloc.nodes[5]),
                       world.env(**pbs_env(alloc, world.root), RUN_DIR=str(run_dir)), "pbs")
    assert run.returncode == 0, run.stderr
    entry = json.loads((run_dir / "history.jsonl").read_text())
    assert entry["hosts"] == alloc.nodes and entry["excluded"] == [alloc.nodes[5]]
    assert run.cpu_seconds < BUDGET_S


def test_a_history_event_takes_4096_fqdn_hosts(world: World) -> None:
    alloc = pbs_gh200(4096)
    run_dir = world.root / "event-run-4096"
    run_dir.mkdir(exist_ok=True)
    run = run_job_part(world, history_event(alloc.nodes[5]),
                       world.env(**pbs_env(alloc, world.root, mpiprocs=1), RUN_DIR=str(run_dir)), "pbs")
    assert run.returncode == 0, run.stderr
    entry = json.loads((run_dir / "history.jsonl").read_text())
    assert entry["hosts"] == alloc.nodes and entry["excluded"] == [alloc.nodes[5]]


def test_a_4096_node_pbs_job_is_submitted_again_as_it_was_and_its_history_names_every_node(world: World) -> None:
    """PBS cannot leave a node out: the bad-node requeue submits the job again with the options `qstat -f` shows, after
    this one, and history.jsonl names all 4096 FQDN hosts (143 KB of names: each its own argument, none near 128
    KiB)."""
    alloc = pbs_gh200(4096)
    (world.root / "run" / "history.jsonl").unlink(missing_ok=True)
    Path(f"{world.log}.qsub").unlink(missing_ok=True)
    blamed = alloc.nodes[700].split(".")[0]  # as the node calls itself (`uname -n`)
    run = bad_node_requeue_pbs(world, alloc, [blamed])
    assert run.returncode == 75, run.stderr
    (qsub,) = world.qsub_calls()
    assert shlex.split(qsub) == [
        "qsub", "-A", "scale-proj", "-q", "gh200", "-N", "ddp", "-l", "place=scatter",
        "-l", "select=4096:ncpus=288:ngpus=4:mpiprocs=4", "-l", "walltime=01:00:00", "-V",
        "-W", "depend=afterany:4242.pbs01", str(world.root / "jobscripts" / "gh200-pbs.sh")]
    (line,) = [line for line in run.stdout.splitlines() if "requeueing as before" in line]
    # named as PBS's node file names it: the launch check paired each hostname with its node (PALS_NODEID)
    assert f"PBS cannot leave {alloc.nodes[700]} out" in line and len(line) < MESSAGE_CHARS
    entry = json.loads((world.root / "run" / "history.jsonl").read_text())
    assert entry["event"] == "requeue" and entry["hosts"] == alloc.nodes and entry["excluded"] == [alloc.nodes[700]]
    assert run.cpu_seconds < BUDGET_S


def _torchrun_args(argv: list[str]) -> dict[str, str]:
    return dict(arg.split("=", 1) for arg in argv if arg.startswith(("--nnodes", "--nproc-per-node", "--rdzv-")))


def test_a_1024_node_slurm_job_meets_on_the_head_node_one_torchrun_per_node(world: World, cray: Allocation) -> None:
    run = whole_job(world, cray)
    assert run.returncode == 0, run.stderr
    check, preflight, workload = world.launches()
    per_node = ["--kill-on-bad-exit=1", "--nodes=1024", "--ntasks=1024", "--ntasks-per-node=1", "--cpus-per-task=80"]
    assert check["argv"][:5] == per_node and check["argv"][5] == "/bin/sh"
    endpoint = _torchrun_args(workload["argv"])["--rdzv-endpoint"]
    assert re.fullmatch(r"nid001000:\d+", endpoint)  # the head node, a port chosen there
    expected = {"--nnodes": "1024", "--nproc-per-node": "4", "--rdzv-backend": "static",
                "--rdzv-endpoint": endpoint, "--rdzv-conf": "timeout=300"}
    assert workload["argv"][:5] == per_node
    assert _torchrun_args(workload["argv"]) == {**expected, "--rdzv-id": "4242"}
    # The preflight's own rendezvous: its agents must not join the workload's, which comes right after
    assert _torchrun_args(preflight["argv"]) == {**expected, "--rdzv-id": "4242-preflight"}
    assert run.cpu_seconds < WHOLE_JOB_BUDGET_S


def test_a_job_of_4_tasks_per_node_gives_4096_ranks_their_share_of_each_nodes_cpus(world: World,
                                                                                  cray: Allocation) -> None:
    """LAUNCH=srun, submitted as `sbatch -N1024 --ntasks-per-node=4 --cpus-per-task=20 --gres=gpu:4`
    (SLURM_TASKS_PER_NODE=4(x1024)): every rank a task of its own, each with 20 of the node's 80 CPUs."""
    run = whole_job(world, cray, "slurm", LAUNCH="srun", TASKS_PER_NODE="4")
    assert run.returncode == 0, run.stderr
    check, _, workload = world.launches()
    assert check["argv"][:4] == ["--kill-on-bad-exit=1", "--nodes=1024", "--ntasks=1024", "--ntasks-per-node=1"]
    assert workload["argv"][:5] == ["--kill-on-bad-exit=1", "--nodes=1024", "--ntasks=4096", "--ntasks-per-node=4",
                                    "--cpus-per-task=20"]
    assert "setting MASTER_ADDR=nid001000 (rank 0's rendezvous address)" in run.stdout
    assert re.search(r"setting MASTER_PORT=\d+ \(rank 0's rendezvous port\)", run.stdout)


def test_a_1024_node_pbs_job_meets_on_the_first_node_of_the_node_file(world: World) -> None:
    alloc = pbs_gh200(NODES)
    run = whole_job(world, alloc, "pbs")
    assert run.returncode == 0, run.stderr
    check, preflight, workload = world.launches()
    assert check["argv"][:6] == ["-n", "1024", "--ppn", "1", "--cpu-bind", "none"]
    assert workload["argv"][:6] == check["argv"][:6]
    endpoint = _torchrun_args(workload["argv"])["--rdzv-endpoint"]
    assert re.fullmatch(rf"{re.escape(alloc.nodes[0])}:\d+", endpoint)
    assert _torchrun_args(workload["argv"]) == {
        "--nnodes": "1024", "--nproc-per-node": "4", "--rdzv-backend": "static",
        "--rdzv-endpoint": endpoint, "--rdzv-id": "4242.pbs01", "--rdzv-conf": "timeout=300"}
    assert _torchrun_args(preflight["argv"])["--rdzv-id"] == "4242.pbs01-preflight"
    assert run.cpu_seconds < WHOLE_JOB_BUDGET_S
