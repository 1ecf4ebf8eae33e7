"""The job scripts on a real three-node Slurm cluster (tests/slurm/up.sh), submitted as a user would.

Each job trains the regression workload (CONFIG=regression) on 2 of the 3 nodes x 2 CPU ranks, through
the CPU smoke image (`apptainer exec`, as ddpuser); DDP_SLURM_TEST_IMAGE=none runs the host's torchrun
instead. The uninterrupted run is shared by the training test and the tests that stop a job and resume it
(a preemption, a bad node left out), which compare final parameters with it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from app.check import protocol
from app.host.common import exitcodes
from app.host.diagnose import diagnose
from tests.fixtures.slurm import REPO, Job, SlurmCluster
from tests.security.test_store_attacker import ATTACKER, NAMED, TAMPERED, as_attacker, refusals_of_the_attack
from tests.trainer_runs import clean_env, free_port

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

JOBSCRIPTS = REPO / "jobscripts"
PBS_EMULATION = REPO / "tests" / "slurm" / "pbs-emulation.sh"
#: 16 steps per epoch on 4 ranks: long enough to be signalled mid-run, a few seconds of compute
TRAIN = ["train", "train.epochs=40"]
TRAIN_ENV = {"CONFIG": "regression", "GPUS_PER_NODE": "2"}
#: For the jobs whose test is about something else: the preflight has tests of its own (the training test, a bad
#: node, nodes without HCAs, the attacker), and each run of it costs a job about 15 s
NO_PREFLIGHT = {"PREFLIGHT": "0"}
#: What node2 calls itself (tests/slurm/up.sh): not its Slurm name, which is what leaving it out takes
NODE2_HOST = "x1000c0s1b0n0"
#: node1's address on the test cluster's fabric (ib0), where the head node's rendezvous store is reached
NODE1_IB0 = "10.78.0.11"
#: The ranks of a training job (2 nodes of GPUS_PER_NODE ranks): the attacker's forged plan names a node for each
ATTACKED_WORLD_SIZE = 2 * int(TRAIN_ENV["GPUS_PER_NODE"])


def rdzv_port(output: str) -> int:
    """The job's rendezvous port as its log says (RDZV_PORT unset: chosen at random on the head node)."""
    match = re.search(r"rendezvous on [^ ]+:(\d+) ", output)
    assert match, output[-3000:]
    return int(match.group(1))


@pytest.fixture(scope="module")
def image_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """IMAGE for the jobs: the smoke image, or none (host torchrun) with DDP_SLURM_TEST_IMAGE=none."""
    if os.environ.get("DDP_SLURM_TEST_IMAGE") == "none":
        return {"IMAGE": "none"}
    return {"IMAGE": str(request.getfixturevalue("smoke_image"))}


def assert_completed(job: Job) -> None:
    assert job.state == "COMPLETED" and job.exit_code == "0:0", (
        f"job {job.job_id}: {job.state} {job.exit_code}\n{job.output[-6000:]}")


def assert_trained_on_both_nodes(job: Job, world_size: int = 4) -> dict:
    summary = job.summary()
    assert summary["status"] == "completed"
    assert summary["world_size"] == world_size
    manifest = json.loads((job.run_dir / "manifest.json").read_text())
    assert manifest["hosts"] == ["node1", NODE2_HOST]
    assert list((job.run_dir / "snapshots").glob("step-*.pt")), "no snapshot written"
    return summary


@pytest.fixture(scope="module")
def uninterrupted(slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> Job:
    """`sbatch -N2 jobscripts/slurm.sh train ...`, run to the end."""
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), *TRAIN,
                                  env={**TRAIN_ENV, **image_env})
    return slurm_cluster.wait(job_id, workdir)


def test_slurm_script_trains_across_both_nodes_to_a_snapshot_with_decreasing_loss(uninterrupted: Job) -> None:
    assert_completed(uninterrupted)
    summary = assert_trained_on_both_nodes(uninterrupted)
    losses = [m["loss"] for m in uninterrupted.metrics()]
    assert summary["step"] == len(losses) == 640
    assert sum(losses[-20:]) / 20 < 0.8 * sum(losses[:20]) / 20, "loss did not decrease"
    assert f"launcher check: one process on each of node1 {NODE2_HOST}" in uninterrupted.output
    # The site twin: node1's hostname resolves to its management address, the rendezvous is on its ib0
    assert (f"rendezvous on 10.78.0.11:{rdzv_port(uninterrupted.output)} (ib0 of head node node1; node1 hosts the store"
            in uninterrupted.output)


def test_in_a_job_a_valid_config_is_planned_for_the_allocation_before_the_preflight(uninterrupted: Job) -> None:
    """The config check (app/host/launch/config_check.py) of the training job, which runs the preflight: on the head
    node, for the allocation's world size, before the preflight starts (the refusals are in
    tests/jobscripts/test_jobscripts_config_check.py)."""
    assert_completed(uninterrupted)
    log = uninterrupted.output
    assert "# dry run: nothing started" in log and "4 (--world-size)" in log, log[-4000:]
    assert log.index("config check: python -m app.train") < log.index("preflight: python -m app.check")


def test_the_run_records_the_sha256_of_the_local_image_it_ran(uninterrupted: Job, image_env: dict[str, str]) -> None:
    """A local image is named by the sha256 `sha256sum` prints of it, in manifest.json and each attempt's line of
    history.jsonl (app/host/launch/image_sha256.py; a registry image by its digest: test_jobscripts_registry.py)."""
    if image_env["IMAGE"] == "none":
        pytest.skip("DDP_SLURM_TEST_IMAGE=none: no image file")
    assert_completed(uninterrupted)
    image = Path(image_env["IMAGE"])
    digest = "sha256:" + hashlib.sha256(image.read_bytes()).hexdigest()
    manifest = json.loads((uninterrupted.run_dir / "manifest.json").read_text())
    assert (manifest["image"]["image"], manifest["image"]["sha256"]) == (str(image), digest), manifest["image"]
    assert [entry["image_sha256"] for entry in history(uninterrupted) if "attempt" in entry] == [digest]
    assert f"IMAGE {image}: {digest} (hashed " in uninterrupted.output, uninterrupted.output[-6000:]


def test_usr1_snapshots_requeues_and_resumes_to_the_uninterrupted_result(
        slurm_cluster: SlurmCluster, image_env: dict[str, str], uninterrupted: Job) -> None:
    workdir = slurm_cluster.workdir()
    # An image cache of the job user's own, where the first run remembers the local image's sha256
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), *TRAIN, env={
        **TRAIN_ENV, **NO_PREFLIGHT, **image_env, "IMAGE_CACHE": str(workdir / "images")})
    metrics = workdir / "runs" / job_id / "metrics.jsonl"

    def steps_done() -> int:
        return len(metrics.read_text().splitlines()) if metrics.exists() else 0

    slurm_cluster.wait_for(lambda: steps_done() >= 50, timeout_s=120, what="50 training steps")
    # What `#SBATCH --signal=B:USR1@90` does 90 s before the time limit
    assert slurm_cluster.run("scancel", "--batch", "--signal=USR1", job_id).returncode == 0
    job = slurm_cluster.wait(job_id, workdir)

    assert_completed(job)
    summary = assert_trained_on_both_nodes(job)
    log = job.output
    assert "got SIGUSR1" in log and f"requeueing job {job_id}" in log, log[-6000:]
    assert "run #2" in log, "the job did not run again after the requeue"
    info = slurm_cluster.run("scontrol", "show", "job", job_id).stdout
    assert "Restarts=1" in info
    preempted_at = int(log.split("preempted at step ")[1].split()[0])
    assert 50 <= preempted_at < 640
    assert summary["steps_run"] == 640 - preempted_at, "the requeued run did not resume from the snapshot"
    assert summary["params_sha256"] == uninterrupted.summary()["params_sha256"]
    # Rank 0 read the snapshot and sent it to the 3 other ranks of both nodes (app/train/snapshot/broadcast.py)
    assert "read by rank 0 only, sent to 3 ranks over the process group" in log, log[-6000:]
    if image_env["IMAGE"] != "none":  # the image hashed by the first run, remembered for the second
        sha256s = [entry["image_sha256"] for entry in history(job) if "attempt" in entry]
        assert len(sha256s) == 2 and sha256s[0] == sha256s[1], sha256s
        assert f"IMAGE {image_env['IMAGE']}: {sha256s[0]} (remembered from an earlier job)" in log, log[-6000:]


def test_sharded_training_runs_through_the_job_script_unchanged(slurm_cluster: SlurmCluster,
                                                               image_env: dict[str, str]) -> None:
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), "train", "train.max_steps=30",
                                  "snapshot.every=15", "dist.strategy=fsdp",
                                  env={**TRAIN_ENV, **NO_PREFLIGHT, **image_env})
    job = slurm_cluster.wait(job_id, workdir)
    assert_completed(job)
    assert job.summary()["step"] == 30
    shards = sorted(p.name for p in (job.run_dir / "snapshots" / "step-00000030").glob("*.distcp"))
    assert shards == [f"__{rank}_0.distcp" for rank in range(4)]  # every rank of both nodes wrote its own
    # Resumed in the image: its Python (Debian 12's 3.11.2) pickles DCP's enums by name, which the readers of
    # `.metadata` and of the ranks' plans must take (app/train/snapshot/dcp_metadata.py, peer_pickles.py)
    again = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), "train", "train.max_steps=40",
                                 "snapshot.every=15", "dist.strategy=fsdp",
                                 env={**TRAIN_ENV, **NO_PREFLIGHT, **image_env, "RUN_DIR": str(job.run_dir)})
    resumed = slurm_cluster.wait(again, workdir)
    assert_completed(resumed)
    assert f"resuming from {job.run_dir}/snapshots/step-00000030 at step 30" in resumed.output, resumed.output[-6000:]
    assert json.loads((job.run_dir / "summary.json").read_text())["step"] == 40


def test_users_own_torchrun_script_runs_unchanged(slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    workdir = slurm_cluster.workdir()
    shutil.copy(REPO / "tests" / "data" / "multinode_tutorial.py", workdir / "my_train.py")
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), "my_train.py", "4", "2",
                                  "--batch_size", "64", env={"GPUS_PER_NODE": "2", **NO_PREFLIGHT, **image_env})
    job = slurm_cluster.wait(job_id, workdir)
    assert_completed(job)
    epochs = [line for line in job.output.splitlines() if line.startswith("epoch ")]
    assert len(epochs) == 4 and all(line.endswith(f"hosts node1,{NODE2_HOST}") for line in epochs), job.output[-4000:]
    assert (workdir / "snapshot.pt").exists()


def test_srun_one_task_per_gpu_trains_across_both_nodes_without_torchrun(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    """The users' Slurm multi-GPU guide's launch: `srun` starts one task per GPU, each runs python itself
    (LAUNCH=srun)."""
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "-N2", "--gres=gpu:2", str(JOBSCRIPTS / "slurm.sh"), "train",
                                  "train.max_steps=10",
                                  env={"CONFIG": "regression", "LAUNCH": "srun", **NO_PREFLIGHT, **image_env})
    job = slurm_cluster.wait(job_id, workdir)
    assert_completed(job)
    assert_trained_on_both_nodes(job)
    manifest = json.loads((job.run_dir / "manifest.json").read_text())
    assert manifest["launcher"] == "slurm"
    assert "step: srun --kill-on-bad-exit=1 --nodes=2 --ntasks=4 --ntasks-per-node=2" in job.output
    assert "setting MASTER_ADDR=10.78.0.11 " in job.output  # rank 0's store on the head node's ib0
    assert "torchrun" not in job.output.split("step: ")[1].splitlines()[0]


def test_the_preflight_stops_an_infiniband_job_on_nodes_without_hcas_before_training(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    """mn5.sh's fabric (NCCL_NET=IB) on nodes with no RDMA device: NCCL would fail at its first collective;
    the preflight says so before any training starts."""
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "--gres=gpu:2", str(JOBSCRIPTS / "mn5.sh"), "train",
                                  env={"CONFIG": "regression", **image_env})
    job = slurm_cluster.wait(job_id, workdir)
    assert job.state == "FAILED", job.output[-4000:]
    # The report's columns are as wide as the longest host name (node2's is an xname)
    assert re.search(r"FAIL +fabric: NCCL net plugin +all nodes +NCCL_NET=IB on a node without RDMA devices",
                     job.output)
    assert job.output.strip().splitlines()[-1].startswith("mn5.sh: error: the preflight failed")
    assert not (job.run_dir / "snapshots").exists() and not (job.run_dir / "history.jsonl").exists()


@pytest.mark.parametrize(("mode", "preflight"), [
    pytest.param(mode, preflight, id=f"{mode}-{'preflight' if preflight else 'training'}")
    for preflight in (True, False) for mode in ("replay", "forge", "garbage")])
def test_another_user_on_a_third_node_runs_no_code_in_the_job_and_makes_it_act_on_nothing(
        slurm_cluster: SlurmCluster, image_env: dict[str, str], uninterrupted: Job, mode: str, preflight: bool) -> None:
    """Another user on node3 (not in the job) attacks the rendezvous port of a two-node job submitted as usual:
    every key listed and read; the keys whose names are known written from the moment it connects with well-formed
    forgeries (a failing node report, a plan that stops the job, a hang verdict naming rank 1, the training's too)
    and every sealed value it lists with the job's own body behind a made-up tag (forge), with the job's own sealed
    values moved there and older ones written back (replay), or with crafted pickles, garbage and 6 MiB values
    (garbage), while it floods the port with connections (tests/security/test_store_attacker.py's attacker; the
    port is what any user of node1 reads in /proc/net/tcp, given here). With the preflight, the preflight meets it
    first; without it (PREFLIGHT=0), the training does: its attempt agreement, the process group's keys and its
    heartbeats. No code of its runs, nothing it can read holds the secret, no node is left out, and the job ends as
    the unattacked one did or stops naming the tampering with exit code 10, in a line that names a key the attacker
    wrote (the training's, without the preflight): a job that read none of its values proves nothing, except under
    replay, whose values exist only once the job has written them (a replay completed unread acted on nothing)."""
    secret = "a7" * 16
    port = free_port()
    attacker_dir = Path(tempfile.mkdtemp(prefix="ddp-attacker-"))
    attacker_dir.chmod(0o777)  # the attacker's own uid writes here
    proof, seen = attacker_dir / "proof", attacker_dir / "seen.txt"
    attacker = subprocess.Popen(
        ["ip", "netns", "exec", "sln3", *as_attacker([sys.executable, "-c", ATTACKER, str(port), str(proof), mode,
                                                       str(seen), NODE1_IB0, str(ATTACKED_WORLD_SIZE)])],
        env=clean_env(), cwd="/", stdout=subprocess.DEVNULL, stderr=(attacker_dir / "attacker.err").open("w"))
    try:
        workdir = slurm_cluster.workdir()
        job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), *TRAIN,
                                      env={**TRAIN_ENV, **image_env, **({} if preflight else NO_PREFLIGHT),
                                           "RDZV_PORT": str(port), "DDP_STORE_SECRET": secret})
        job = slurm_cluster.wait(job_id, workdir)
    finally:
        attacker.kill()
        attacker.wait()
    time.sleep(1)  # a command the attacker's pickle started would have run by now
    read = seen.read_text(errors="replace") if seen.exists() else ""
    refused = refusals_of_the_attack(mode, read, [job.output])
    problems = []  # every one found, so that a run on code without the protection shows all it allowed
    if "key " not in read:
        problems.append(f"the attacker listed no key: {(attacker_dir / 'attacker.err').read_text()[-2000:]}")
    if proof.exists():
        problems.append("the attacker's pickle ran as the job's user (its proof file appeared)")
    if secret in read:
        problems.append(f"the secret was in what the attacker read: {read[read.find(secret) - 80:][:160]}")
    if secret in job.output:
        problems.append("the secret was in the job's log")
    exclude = job.run_dir / "nodes-to-exclude.txt"
    if exclude.exists() and exclude.read_text().strip():
        problems.append(f"a node was blamed: nodes-to-exclude.txt holds {exclude.read_text().strip()!r}")
    if "Restarts=0" not in slurm_cluster.run("scontrol", "show", "job", job_id).stdout:
        problems.append("the job was requeued")
    if job.state == "COMPLETED":
        if job.summary()["params_sha256"] != uninterrupted.summary()["params_sha256"]:
            problems.append("the job completed with other parameters than the unattacked run's")
    elif TAMPERED not in job.output:
        problems.append(f"the job ended {job.state} {job.exit_code} without naming the tampering")
    elif job.exit_code != f"{exitcodes.STORE}:0":
        problems.append(f"the job named the tampering but ended {job.exit_code}, not {exitcodes.STORE}:0")
    written = sum(line.startswith("wrote ") for line in read.splitlines())
    # Replay's values exist only once the job has sealed them, so whether one lands at a key before the job reads
    # it is a race the attacker can lose: a replay that the job completed without reading acted on nothing
    if not refused and not (mode == "replay" and job.state == "COMPLETED"):
        problems.append(f"the job ({job.state} {job.exit_code}) refused none of the attacker's values at the {written} "
                        f"keys it wrote ({mode}): it read none, or acted on them")
    if refused and not preflight and not any(protocol.PREFIX + "/" not in key for key in refused_keys(read, refused)):
        problems.append(f"without the preflight, the job refused values at no key of the training's: {refused}")
    shutil.rmtree(attacker_dir, ignore_errors=True)
    print(f"attacked job ({mode}, {'with' if preflight else 'without'} the preflight): {job.state} {job.exit_code} "
          f"in {job.elapsed_s:.0f} s; {written} values written, the refusals: {refused}")
    assert not problems, "\n".join(problems) + "\n" + job.output[-5000:]


def refused_keys(read: str, refused: list[str]) -> set[str]:
    """The keys the attacker wrote (by their names in the store) that the tampering lines `refused` name: a key by its
    name in the store, a heartbeat by its name within its rank's prefixes (the check's heartbeats, under
    app/check/protocol.py's prefix, and the training's end alike)."""
    written = {line.split()[2] for line in read.splitlines() if line.startswith("wrote ")}
    named = {name for line in refused for name in NAMED.findall(line)}
    return {key for key in written if any(key == name or key.endswith("/" + name) for name in named)}


def test_check_passes_across_the_allocation(slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), "check",
                                  env={"GPUS_PER_NODE": "2", **image_env})
    job = slurm_cluster.wait(job_id, workdir)
    assert_completed(job)


def test_one_launcher_for_two_nodes_is_stopped_with_a_clear_message_in_seconds(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    workdir = slurm_cluster.workdir()
    start = time.monotonic()
    # The EAP tutorial's job: torchrun started once, on the head node only
    job_id = slurm_cluster.submit(workdir, str(PBS_EMULATION), env={
        **TRAIN_ENV, **image_env, "FABRIC": "none", "PBS_EMULATE_MISTAKE": "once"})
    job = slurm_cluster.wait(job_id, workdir)
    assert time.monotonic() - start < 30
    assert job.state == "FAILED" and job.exit_code == "2:0", job.output
    assert "started 1 process(es) on 1 node(s)" in job.output
    assert "needs exactly one torchrun per node" in job.output
    assert "mpiexec -n NNODES --ppn 1" in job.output
    assert not job.run_dir.exists(), "training started although the launch was wrong"
    assert cause_keys(job)[0] == "launcher-one-node"  # what `python -m app.diagnose ddp-<id>.out` says first


def cause_keys(job: Job) -> list[str]:
    """The causes `python -m app.diagnose` finds in the job's output file, most likely first."""
    return [finding.key for finding in diagnose([job.log])]


def history(job: Job) -> list[dict]:
    return [json.loads(line) for line in (job.run_dir / "history.jsonl").read_text().splitlines()]


def excluded_nodes(slurm_cluster: SlurmCluster, job_id: str) -> str:
    info = slurm_cluster.run("scontrol", "show", "job", "-o", job_id).stdout
    return info.split("ExcNodeList=")[1].split()[0]


def test_a_node_the_preflight_finds_bad_is_left_out_and_the_job_finishes_on_the_other_two(
        slurm_cluster: SlurmCluster, image_env: dict[str, str], uninterrupted: Job) -> None:
    workdir = slurm_cluster.workdir()
    # node2's ranks return wrong data in the preflight's correctness test, like a bad link or GPU; the check
    # blames the host by its hostname, and Slurm leaves out its node by the node's Slurm name
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), *TRAIN,
                                  env={**TRAIN_ENV, **image_env, "APP_CHECK_FAULT": f"corrupt@host={NODE2_HOST}"})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=300)
    assert_completed(job)
    assert "leaving out node2 and requeueing (1 of at most 3 in a row)" in job.output
    assert excluded_nodes(slurm_cluster, job_id) == "node2"
    assert json.loads((job.run_dir / "manifest.json").read_text())["hosts"] == ["node1", "node3"]
    assert job.summary()["params_sha256"] == uninterrupted.summary()["params_sha256"]
    requeue, attempt = history(job)
    assert requeue["event"] == "requeue" and requeue["hosts"] == ["node1", "node2"]
    assert requeue["excluded"] == ["node2"] and "preflight failed (step exit " in requeue["reason"]
    assert attempt["attempt"] == 1 and attempt["hosts"] == ["node1", "node3"] and attempt["start_step"] == 0
    assert attempt["previous_attempt"].startswith("requeue: preflight failed")


def test_a_training_hang_names_its_node_which_is_left_out_and_the_run_resumes_to_the_same_result(
        slurm_cluster: SlurmCluster, image_env: dict[str, str], uninterrupted: Job) -> None:
    workdir = slurm_cluster.workdir()
    # Both ranks of node2 freeze (SIGSTOP) when they start step 300, like a node that went away
    job_id = slurm_cluster.submit(
        workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), *TRAIN, "snapshot.every=100", "dist.hang_timeout_s=8",
        env={**TRAIN_ENV, **NO_PREFLIGHT, **image_env, "APP_TRAIN_FAULT": f"stop@host={NODE2_HOST}:step300"})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=300)
    assert_completed(job)
    assert f"({NODE2_HOST}) stopped answering" in job.output
    assert "hang-named" in cause_keys(job)  # the first attempt's verdict, though node2 was then left out
    assert excluded_nodes(slurm_cluster, job_id) == "node2"
    assert job.summary()["params_sha256"] == uninterrupted.summary()["params_sha256"]
    assert job.summary()["steps_run"] == 640 - 200  # resumed from the snapshot at step 200
    first, requeue, second = history(job)
    assert first["hosts"] == ["node1", NODE2_HOST] and second["hosts"] == ["node1", "node3"]
    assert requeue["excluded"] == ["node2"] and "the workload failed" in requeue["reason"]
    assert second["start_step"] == 200 and second["previous_attempt"].startswith("requeue: the workload failed")


def test_a_job_that_finds_a_bad_node_every_time_stops_at_max_requeues(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), *TRAIN, env={
        **TRAIN_ENV, **image_env, "APP_CHECK_FAULT": f"corrupt@host={NODE2_HOST},corrupt@host=node3",
        "MAX_REQUEUES": "1"})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=300)
    # The preflight step's code: app.check's own for a corrupt all-reduce (the node wrapper hands on the worker's
    # code), or 143 where srun --kill-on-bad-exit ended the step first
    assert job.state == "FAILED" and job.exit_code in (f"{exitcodes.WRONG_RESULTS}:0", "143:0"), job.output[-4000:]
    last = job.output.strip().splitlines()[-1]
    assert "giving up after 1 requeue(s) in a row for bad nodes (MAX_REQUEUES=1)" in last and "node3" in last
    assert [(h["event"], h["excluded"]) for h in history(job)] == [("requeue", ["node2"]), ("gave-up", ["node3"])]
    # The preflight's verdict on the last bad node, then the job scripts' giving up
    assert cause_keys(job)[:2] == ["check-verdict", "gave-up"], cause_keys(job)
    assert not (job.run_dir / "snapshots").exists(), "training started on a node the preflight failed"
