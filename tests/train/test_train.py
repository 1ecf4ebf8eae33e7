"""The trainer end to end, started the way users start it: plain python, torchrun, srun- and mpiexec-style."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import torch

from tests.trainer_runs import (
    REPO,
    TIMEOUT_S,
    assert_step_times_account_for_the_run,
    clean_env,
    emulated_nodes,
    final_state,
    finish,
    finish_all,
    free_port,
    launcher_env,
    metrics,
    output_so_far,
    run,
    start,
    summary,
    torchrun_command,
    train_command,
    wait_for_path,
    wait_for_step,
    workers,
)

pytestmark = pytest.mark.slow

GPT = ["--config", "demo", "data.tokens=200000", "run.log_every=1"]


def spmd(ranks: int, launcher: str, args: list[str], tmp: Path) -> list[subprocess.Popen]:
    """Start `ranks` processes the way srun or mpiexec does: each with its own rank variables."""
    port = str(free_port())
    return [start(train_command(*args), clean_env(**launcher_env(launcher, rank, ranks, tmp), MASTER_ADDR="127.0.0.1",
                                                   MASTER_PORT=port)) for rank in range(ranks)]


def test_a_single_process_run_learns_and_leaves_a_complete_run_directory(tmp_path):
    result = run(train_command(*GPT, f"run.dir={tmp_path}", "train.max_steps=60", "run.breakdown=true"))
    assert result.returncode == 0, result.stderr
    records = metrics(tmp_path)
    assert [r["step"] for r in records] == list(range(1, 61))
    assert records[-1]["loss"] < records[0]["loss"] - 1.0
    assert {"loss", "lr", "step_time_s", "samples_per_s", "tokens_per_s", "epoch"} <= set(records[0])
    done = summary(tmp_path)
    assert done["status"] == "completed" and done["step"] == 60 and done["world_size"] == 1
    assert set(done["breakdown_ms_per_step"]) == {"data", "compute", "comm_wait", "optimizer"}
    assert "time per step: data" in result.stderr
    manifest = (tmp_path / "manifest.json").read_text()
    assert '"torch": "' + torch.__version__ in manifest and '"launcher": "single process"' in manifest
    assert (tmp_path / "config.yaml").exists()
    assert [p.name for p in (tmp_path / "snapshots").glob("*.pt")] == ["step-00000060.pt"]


def test_step_times_and_snapshot_writes_account_for_the_whole_run(tmp_path):
    """The metrics' step times are the steps' (not the time between two reads of already finished
    results); with the snapshot writes they add up to the run's wall clock."""
    result = run(train_command(*GPT, f"run.dir={tmp_path}", "train.max_steps=40", "snapshot.every=15"))
    assert result.returncode == 0, result.stderr
    assert_step_times_account_for_the_run(tmp_path, result.stderr)


def test_log_lines_carry_host_and_rank(tmp_path):
    result = run(torchrun_command(2, *GPT, f"run.dir={tmp_path}", "train.max_steps=3"))
    assert result.returncode == 0, result.stderr
    assert f"{os.uname().nodename}:0 INFO training gpt" in result.stderr


def test_two_ranks_with_batch_b_end_where_one_rank_with_batch_2b_ends(tmp_path):
    # SGD without clipping: the update is linear in the gradient, so a wrongly scaled average shows
    # (Adam would normalise it away).
    common = [*GPT, "train.max_steps=12", "train.grad_accum=2", "optim.name=sgd", "optim.lr=0.5",
              "optim.momentum=0.9", "optim.grad_clip=0"]
    two = run(torchrun_command(2, *common, f"run.dir={tmp_path / 'two'}", "train.batch_size=4"))
    one = run(train_command(*common, f"run.dir={tmp_path / 'one'}", "train.batch_size=8"))
    assert two.returncode == 0 and one.returncode == 0, two.stderr + one.stderr
    two_model, one_model = final_state(tmp_path / "two")["model"], final_state(tmp_path / "one")["model"]
    for name, tensor in one_model.items():
        torch.testing.assert_close(two_model[name], tensor, rtol=1e-4, atol=1e-6, msg=name)
    assert summary(tmp_path / "two")["world_size"] == 2


def test_a_worker_killed_mid_run_and_restarted_by_torchrun_ends_bit_identical(tmp_path):
    args = [*GPT, "train.max_steps=90", "snapshot.every=25", "model.dropout=0.1"]
    reference = run(torchrun_command(2, *args, f"run.dir={tmp_path / 'reference'}"))
    assert reference.returncode == 0, reference.stderr

    agent = start(torchrun_command(2, *args, f"run.dir={tmp_path / 'killed'}", max_restarts=1))
    wait_for_step(tmp_path / "killed", 40, agent)
    wait_for_path(tmp_path / "killed" / "snapshots" / "step-00000025.pt", agent)  # published in the background
    os.kill(workers(agent.pid)[-1], signal.SIGKILL)
    stderr = finish(agent)
    assert agent.returncode == 0, stderr
    assert "resuming from" in stderr and "step-00000025.pt" in stderr
    assert summary(tmp_path / "killed")["params_sha256"] == summary(tmp_path / "reference")["params_sha256"]
    steps = [r["step"] for r in metrics(tmp_path / "killed")]
    assert steps == list(range(1, 91)), "metrics of redone steps must not be duplicated"


def test_a_restart_counted_by_one_agent_only_still_resumes_bit_identical(tmp_path):
    """torchrun's agents count restarts each for itself: the agent whose worker died counts one; an agent
    whose worker was still running restarts it for the new round without counting (_invoke_run in
    torch/distributed/elastic/agent/server/api.py). An NCCL rank waiting on a dead peer is still running
    (seen on an H100, two ranks on emulated nodes): the restarted ranks then differ in
    TORCHELASTIC_RESTART_COUNT yet must meet in one attempt. A SIGSTOPped rank stands in for it here."""
    args = [*GPT, "train.max_steps=60", "snapshot.every=20"]
    reference = emulated_nodes(2, "app.train", *args, f"run.dir={tmp_path / 'reference'}", env=clean_env())
    outputs = finish_all(reference)
    assert [a.returncode for a in reference] == [0, 0], outputs

    killed = tmp_path / "killed"
    # LOGLEVEL=INFO: the agents say why they restart (torch/distributed/elastic/utils/logging.py)
    agents = emulated_nodes(2, "app.train", *args, f"run.dir={killed}", env=clean_env(LOGLEVEL="INFO"),
                            max_restarts=1)
    wait_for_step(killed, 30, agents[0])
    waiting = workers(agents[0].pid)[-1]
    os.kill(waiting, signal.SIGSTOP)  # to its agent a running worker, like the NCCL rank
    os.kill(workers(agents[1].pid)[-1], signal.SIGKILL)
    deadline = time.monotonic() + 60
    while "new nodes from group_rank" not in output_so_far(agents[0]) and time.monotonic() < deadline:
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):  # gone already if its agent had to kill it
        os.kill(waiting, signal.SIGCONT)  # it goes on, finds its peer gone and is replaced by the new round
    outputs = finish_all(agents)
    assert [a.returncode for a in agents] == [0, 0], "\n---\n".join(o[-3000:] for o in outputs)
    assert "Detected 1 new nodes from group_rank" in outputs[0]  # a membership change: not counted
    assert "1/1 attempts left; will restart worker group" in outputs[1]  # a counted failure
    assert summary(killed)["params_sha256"] == summary(tmp_path / "reference")["params_sha256"]
    assert [r["step"] for r in metrics(killed)] == list(range(1, 61))


def test_after_a_kill_and_restart_every_step_is_in_the_metrics_once(tmp_path):
    """Metrics are flushed every run.log_every steps; a snapshot must not be published ahead of its steps'
    lines, else a kill between the snapshot and the next flush leaves a hole the resumed run never fills."""
    run_dir = tmp_path / "killed"
    args = [*GPT, "run.log_every=10", "train.max_steps=60", "snapshot.every=25", f"run.dir={run_dir}"]
    agent = start(torchrun_command(2, *args, max_restarts=1))
    published = run_dir / "snapshots" / "step-00000025.pt.sha256"
    deadline = time.monotonic() + TIMEOUT_S
    while not published.exists():
        assert agent.poll() is None and time.monotonic() < deadline, finish(agent)
        time.sleep(0.005)
    os.kill(workers(agent.pid)[-1], signal.SIGKILL)  # before step 30's flush
    stderr = finish(agent)
    assert agent.returncode == 0, stderr
    assert "resuming from" in stderr and "step-00000025.pt" in stderr
    assert [r["step"] for r in metrics(run_dir)] == list(range(1, 61))


@pytest.mark.parametrize(("launcher", "stop_signal"), [("slurm", signal.SIGUSR1), ("pbs", signal.SIGTERM)])
def test_a_signal_stops_every_rank_with_a_snapshot_and_the_rerun_matches_an_uninterrupted_run(
    tmp_path, launcher, stop_signal
):
    args = [*GPT, "train.max_steps=90", "snapshot.every=1000"]
    ranks = spmd(2, launcher, [*args, f"run.dir={tmp_path / 'stopped'}"], tmp_path)
    wait_for_step(tmp_path / "stopped", 20, ranks[0])
    ranks[0].send_signal(stop_signal)  # one rank is enough: the flag travels with the step statistics
    outputs = [finish(rank) for rank in ranks]
    assert [rank.returncode for rank in ranks] == [75, 75], outputs
    stopped = summary(tmp_path / "stopped")
    assert stopped["status"] == "preempted" and stopped["signal"] == stop_signal.name
    assert 20 <= stopped["step"] < 90
    assert (tmp_path / "stopped" / "snapshots" / f"step-{stopped['step']:08d}.pt").exists()

    resumed = [finish(rank) for rank in spmd(2, launcher, [*args, f"run.dir={tmp_path / 'stopped'}"], tmp_path)]
    assert "resuming from" in resumed[0]
    # The same launcher for the reference: torchrun would also set OMP_NUM_THREADS=1, and another
    # thread count sums in another order.
    reference = [finish(rank) for rank in spmd(2, launcher, [*args, f"run.dir={tmp_path / 'reference'}"], tmp_path)]
    assert summary(tmp_path / "reference")["status"] == "completed", reference[0]
    assert summary(tmp_path / "stopped")["params_sha256"] == summary(tmp_path / "reference")["params_sha256"]
    assert summary(tmp_path / "stopped")["status"] == "completed"


def test_sigterm_to_torchrun_reaches_the_workers_which_snapshot_before_exiting(tmp_path):
    agent = start(torchrun_command(2, *GPT, "train.epochs=3", "snapshot.every=1000", f"run.dir={tmp_path}"))
    wait_for_step(tmp_path, 15, agent)
    agent.send_signal(signal.SIGTERM)
    finish(agent)
    stopped = summary(tmp_path)
    assert stopped["status"] == "preempted" and stopped["signal"] == "SIGTERM"
    assert (tmp_path / "snapshots" / f"step-{stopped['step']:08d}.pt").exists()


def test_ctrl_c_finishes_the_step_writes_a_snapshot_and_exits_75(tmp_path):
    process = start(train_command(*GPT, "train.epochs=3", "snapshot.every=1000", f"run.dir={tmp_path}"))
    wait_for_step(tmp_path, 10, process)
    process.send_signal(signal.SIGINT)
    output = finish(process)
    assert process.returncode == 75, output
    stopped = summary(tmp_path)
    assert stopped["status"] == "preempted" and stopped["signal"] == "SIGINT"
    assert (tmp_path / "snapshots" / f"step-{stopped['step']:08d}.pt").exists()
    assert "Traceback" not in output


@pytest.mark.parametrize(("run_dir_mode", "file_mode"), [(None, 0o600), (0o750, 0o640)])
def test_run_files_are_their_owners_unless_the_run_dir_lets_the_group_read(tmp_path, run_dir_mode, file_mode):
    """Under umask 022 too: weights, config, metrics and history are private to the owner; a run directory the
    owner made 0750 (RUN_DIR_MODE=750 in the job scripts) lets teammates read them, and no one else."""
    run_dir = tmp_path / "run"
    if run_dir_mode is not None:
        run_dir.mkdir(mode=run_dir_mode)
        run_dir.chmod(run_dir_mode)
    command = ["sh", "-c", 'umask 022 && exec "$@"', "sh", *train_command(*GPT, "train.max_steps=3",
                                                                          f"run.dir={run_dir}")]
    result = run(command, env=clean_env())
    assert result.returncode == 0, result.stderr
    modes = {p.relative_to(run_dir).as_posix(): p.stat().st_mode & 0o777 for p in run_dir.rglob("*") if p.is_file()}
    assert {"metrics.jsonl", "history.jsonl", "summary.json", "config.yaml"} <= set(modes), modes
    assert set(modes.values()) == {file_mode}, modes


def test_resuming_on_another_world_size_says_what_changes_and_finishes(tmp_path):
    first = run(torchrun_command(2, *GPT, "train.max_steps=10", f"run.dir={tmp_path}"))
    assert first.returncode == 0, first.stderr
    second = run(train_command(*GPT, "train.max_steps=20", f"run.dir={tmp_path}"))
    assert second.returncode == 0, second.stderr
    assert "written with world size 2 on world size 1: samples per step change from 32 to 16" in second.stderr
    assert summary(tmp_path)["step"] == 20


def test_a_rank_that_never_arrives_fails_the_rendezvous_with_exit_3_instead_of_hanging(tmp_path):
    env = clean_env(RANK="0", WORLD_SIZE="2", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    started = time.monotonic()
    result = run(train_command(*GPT, "dist.timeout_s=3", f"run.dir={tmp_path}"), env=env, timeout=60)
    assert result.returncode == 3, result.stderr
    assert "rank 0 of 2 could not join the process group at 127.0.0.1:" in result.stderr
    assert "one launcher per node" in result.stderr and "Traceback" not in result.stderr
    assert time.monotonic() - started < 30


def test_blocks_compiled_one_by_one_train_resume_and_keep_the_plain_models_names(tmp_path):
    """train.compile_scope=blocks compiles each block in place (torch.compile on CPU too: inductor's C++
    backend); run.deterministic is accepted on CPU; the snapshot's keys are the uncompiled model's."""
    args = [*GPT, "train.compile=true", "train.compile_scope=blocks", "run.deterministic=true",
            f"run.dir={tmp_path}", "snapshot.every=10"]
    first = run(train_command(*args, "train.max_steps=10"))
    assert first.returncode == 0, first.stderr[-3000:]
    assert "compiled (blocks)" in first.stderr
    resumed = run(train_command(*args, "train.max_steps=20"))
    assert resumed.returncode == 0 and "at step 10" in resumed.stderr, resumed.stderr[-3000:]
    assert all("_orig_mod" not in key for key in final_state(tmp_path)["model"])
    assert [r["step"] for r in metrics(tmp_path)] == list(range(1, 21))


def test_a_users_own_workload_trains_from_an_import_path(tmp_path):
    result = run(torchrun_command(2, "workload.name=tests.data.user_workload:build", "train.epochs=3",
                                  "optim.lr=0.01", "run.log_every=1", f"run.dir={tmp_path}"))
    assert result.returncode == 0, result.stderr
    records = metrics(tmp_path)
    assert len(records) == 3 * 512 // 32
    assert records[-1]["loss"] < records[0]["loss"]


def test_the_regression_workload_runs_the_tutorials_setup(tmp_path):
    result = run(torchrun_command(2, "--config", "regression", "train.epochs=2", f"run.dir={tmp_path}"))
    assert result.returncode == 0, result.stderr
    assert summary(tmp_path)["step"] == 2 * 2048 // 64


@pytest.mark.slow
@pytest.mark.parametrize(("fault", "said"), [
    # A frozen process (SIGSTOP): its heartbeat stops.
    ("stop@rank1:step8", "rank 1 ({host}) stopped answering (no heartbeat; last heard at step"),
    # A live process stuck before its step's collective (a data loader that never returns): it is behind.
    ("hang@rank1:step8", "rank 1 ({host}) at step 8, phase data stopped making progress while rank 0 waits at step 8,"
                         " phase forward/backward"),
])
def test_a_rank_that_stops_answering_is_named_and_the_job_ends_with_exit_4(tmp_path, fault, said):
    started = time.monotonic()
    result = run(torchrun_command(2, *GPT, f"run.dir={tmp_path}", "train.max_steps=200", "snapshot.every=5",
                                  "dist.timeout_s=30", "dist.hang_timeout_s=8"),
                 env=clean_env(APP_TRAIN_FAULT=fault), timeout=120)
    elapsed = time.monotonic() - started
    expected = said.format(host=os.uname().nodename)
    assert f"hang: {expected}" in result.stderr, result.stderr[-3000:]
    assert "exitcode  : 4" in result.stderr  # rank 0's code, as torchrun reports it
    assert f'File "{REPO / "app"}' not in result.stderr  # no traceback from our code (torchrun prints its own)
    done = summary(tmp_path)
    assert done["status"] == "hung" and done["hang"]["ranks"] == [1] and expected in done["hang"]["message"]
    # The node to leave out of the next attempt, for the job scripts (one hostname a line, as app.check writes)
    assert done["hang"]["hosts"] == [os.uname().nodename]
    assert (tmp_path / "nodes-to-exclude.txt").read_text() == os.uname().nodename + "\n"
    assert done["step"] == 7
    assert [r["step"] for r in metrics(tmp_path)] == list(range(1, 8))  # every completed step, none partial
    assert sorted(p.name for p in (tmp_path / "snapshots").glob("*.pt")) == ["step-00000005.pt"]
    assert "while rank 0 waits at step 8, phase forward/backward" in done["hang"]["message"]
    # Deadline 8 s, a few beats to judge, start-up, and torchrun's 30 s SIGTERM grace for a stopped rank.
    assert elapsed < 90, elapsed


def test_a_last_snapshot_slower_than_the_hang_deadline_is_not_a_hang(tmp_path):
    """Rank 0 writes the run's last snapshot for longer than dist.hang_timeout_s while rank 1 is done: the
    run completes, nobody is named, no node is left out (through a real run)."""
    result = run(torchrun_command(2, *GPT, f"run.dir={tmp_path}", "train.max_steps=6", "snapshot.every=100",
                                  "dist.timeout_s=60", "dist.hang_timeout_s=3"),
                 env=clean_env(APP_TRAIN_FAULT="slowsnapshot@rank0:step6"), timeout=120)
    assert "APP_TRAIN_FAULT: slowsnapshot on rank 0 at step 6" in result.stderr, result.stderr[-3000:]
    assert result.returncode == 0, result.stderr[-3000:]
    assert "hang:" not in result.stderr
    assert summary(tmp_path)["status"] == "completed"
    assert not (tmp_path / "nodes-to-exclude.txt").exists()
    assert sorted(p.name for p in (tmp_path / "snapshots").glob("*.pt")) == ["step-00000006.pt"]


def test_each_attempt_of_a_run_is_a_line_of_its_history_with_how_the_previous_one_ended(tmp_path):
    common = [*GPT, f"run.dir={tmp_path}", "snapshot.every=5"]
    first = run(train_command(*common, "train.max_steps=40"), env=clean_env(APP_TRAIN_FAULT="usr1@rank0:step5",
                                                                          SLURM_JOB_ID="1001"))
    assert first.returncode == 75, first.stderr[-2000:]
    second = run(train_command(*common, "train.max_steps=10"), env=clean_env(SLURM_JOB_ID="1002"))
    assert second.returncode == 0, second.stderr[-2000:]
    (tmp_path / "summary.json").unlink()  # as if the next attempt had been SIGKILLed before writing one
    third = run(train_command(*common, "train.max_steps=15"))
    assert third.returncode == 0, third.stderr[-2000:]
    history = [json.loads(line) for line in (tmp_path / "history.jsonl").read_text().splitlines()]
    assert [h["attempt"] for h in history] == [1, 2, 3]
    assert [h["job_id"] for h in history] == ["1001", "1002", None]
    assert [h["start_step"] for h in history] == [0, 5, 10]  # step 5 is a snapshot step: it stops there
    assert history[0]["previous_attempt"] is None
    assert history[1]["previous_attempt"] == "preempted by SIGUSR1 at step 5"
    assert history[2]["previous_attempt"].startswith("left no summary: killed")
    assert history[0]["hosts"] == [os.uname().nodename] and history[0]["launcher"] == "single process"


@pytest.mark.slow
@pytest.mark.parametrize(("env", "said"), [
    # torchrun's agent serves the store (its default): rank 0's heartbeat stops like any other's
    ({}, "hang: rank 0 ({host}) stopped answering (no heartbeat"),
    # rank 0 serves the store itself (TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1, or srun/mpiexec without torchrun)
    ({"TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"},
     "hang: rank 0 stopped answering: the rendezvous store it serves does not answer"),
])
def test_a_frozen_rank_0_is_named_by_the_others(tmp_path, env, said):
    result = run(torchrun_command(2, *GPT, f"run.dir={tmp_path}", "train.max_steps=200", "snapshot.every=5",
                                  "dist.timeout_s=30", "dist.hang_timeout_s=8"),
                 env=clean_env(APP_TRAIN_FAULT="stop@rank0:step8", **env), timeout=150)
    assert said.format(host=os.uname().nodename) in result.stderr, result.stderr[-3000:]
    assert "exitcode  : 4" in result.stderr
    done = summary(tmp_path)  # written by rank 1
    assert done["status"] == "hung" and done["hang"]["ranks"] == [0] and done["step"] == 7
    assert (tmp_path / "nodes-to-exclude.txt").read_text() == os.uname().nodename + "\n"
