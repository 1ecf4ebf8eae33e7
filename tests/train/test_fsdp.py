"""dist.strategy=fsdp end to end, in real torchrun processes on gloo: sharded training, sharded snapshots,
exact resume after a SIGKILL, resharding between world sizes, and the export to one plain file."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys

import pytest
import torch

from app.train.summary import params_sha256
from tests.trainer_runs import (
    REPO,
    finish,
    metrics,
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
FSDP = [*GPT, "dist.strategy=fsdp"]


def test_fsdp_holds_half_the_state_per_rank_and_learns_what_ddp_learns(tmp_path):
    common = [*GPT, "train.max_steps=20", "snapshot.every=10", "train.grad_accum=2"]
    for strategy in ("ddp", "fsdp"):
        result = run(torchrun_command(2, *common, f"run.dir={tmp_path / strategy}", f"dist.strategy={strategy}"))
        assert result.returncode == 0, result.stderr[-3000:]
    ddp, fsdp = summary(tmp_path / "ddp"), summary(tmp_path / "fsdp")
    assert fsdp["param_bytes_per_rank"] <= 0.55 * ddp["param_bytes_per_rank"]
    assert fsdp["optimizer_bytes_per_rank"] <= 0.55 * ddp["optimizer_bytes_per_rank"]
    # Same data, same updates; the sums run in another order (reduce-scatter against all-reduce)
    ddp_losses = [r["loss"] for r in metrics(tmp_path / "ddp")]
    fsdp_losses = [r["loss"] for r in metrics(tmp_path / "fsdp")]
    assert fsdp_losses == pytest.approx(ddp_losses, rel=1e-4)
    # The norm of the whole gradient, not of rank 0's shard (which would be about 1/sqrt(2) of it)
    ddp_norms = [r["grad_norm"] for r in metrics(tmp_path / "ddp")]
    assert [r["grad_norm"] for r in metrics(tmp_path / "fsdp")] == pytest.approx(ddp_norms, rel=1e-4)
    snapshot = tmp_path / "fsdp" / "snapshots" / "step-00000020"
    assert sorted(p.name for p in snapshot.iterdir()) == [
        ".metadata", "__0_0.distcp", "__1_0.distcp", "extras.json", "manifest.json"]
    assert set(json.loads((snapshot / "manifest.json").read_text())) == {
        ".metadata", "__0_0.distcp", "__1_0.distcp", "extras.json"}


def test_fsdp_gathers_each_block_once_per_optimizer_step_and_learns_the_same_bits(tmp_path):
    """dist.gather_once_per_step, 4 micro-batches a step, 4 blocks: each block and the root are gathered once a
    step (5 all-gathers), not before each micro-batch's forward and again before its backward (4 x (2 x 4 + 1)
    = 36, what the setting false does and all the trainer did before it). Bit-identical, not just close: the
    gathered parameters are the same bits however often they are gathered (nothing updates them within a
    step), and the gradients accumulate and are reduced in the same order."""
    args = [*FSDP, "model.n_layer=4", "train.grad_accum=4", "train.max_steps=4", "snapshot.every=0"]
    gathers = {}
    for once in ("true", "false"):
        run_dir = tmp_path / once
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "-m",
                   "tests.train.counted_gathers", *args, f"run.dir={run_dir}", f"dist.gather_once_per_step={once}"]
        result = run(command)
        assert result.returncode == 0, result.stderr[-3000:]
        gathers[once] = [json.loads((run_dir / f"gathers-rank{rank}.json").read_text()) for rank in (0, 1)]
    assert gathers == {"true": [[5] * 4] * 2, "false": [[36] * 4] * 2}
    assert [r["loss"] for r in metrics(tmp_path / "true")] == [r["loss"] for r in metrics(tmp_path / "false")]
    assert summary(tmp_path / "true")["params_sha256"] == summary(tmp_path / "false")["params_sha256"]


def test_a_fsdp_worker_killed_mid_run_and_restarted_by_torchrun_ends_bit_identical(tmp_path):
    # Two micro-batches a step: the blocks stay gathered through each step (dist.gather_once_per_step)
    args = [*FSDP, "train.max_steps=60", "snapshot.every=25", "model.dropout=0.1", "train.grad_accum=2",
            "data.tokens=400000"]
    reference = run(torchrun_command(2, *args, f"run.dir={tmp_path / 'reference'}"))
    assert reference.returncode == 0, reference.stderr[-3000:]

    agent = start(torchrun_command(2, *args, f"run.dir={tmp_path / 'killed'}", max_restarts=1))
    wait_for_step(tmp_path / "killed", 35, agent)
    wait_for_path(tmp_path / "killed" / "snapshots" / "step-00000025", agent)  # published in the background
    os.kill(workers(agent.pid)[-1], signal.SIGKILL)
    stderr = finish(agent)
    assert agent.returncode == 0, stderr[-3000:]
    assert "resuming from" in stderr and "step-00000025" in stderr
    assert summary(tmp_path / "killed")["params_sha256"] == summary(tmp_path / "reference")["params_sha256"]
    assert [r["step"] for r in metrics(tmp_path / "killed")] == list(range(1, 61))


def test_a_sharded_snapshot_written_before_the_snapshot_manager_resumes_where_a_fresh_run_is(tmp_path):
    """tests/data/snapshots/fsdp-format1: written by commit 2e96edc (`--config regression dist.strategy=fsdp
    train.max_steps=5` on 2 ranks), before one snapshot manager replaced the two checkpointers, on an AMD
    EPYC. A CPU with other vector units (an AVX-512 Xeon) sums in another order from the first step, so the
    resumed run is compared with a fresh one here to float tolerance, step by step, not bit for bit."""
    args = ["--config", "regression", "dist.strategy=fsdp", "train.max_steps=12"]
    shutil.copytree(REPO / "tests" / "data" / "snapshots" / "fsdp-format1", tmp_path / "resumed" / "snapshots")
    resumed = run(torchrun_command(2, *args, f"run.dir={tmp_path / 'resumed'}"))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "step-00000005 at step 5" in resumed.stderr
    reference = run(torchrun_command(2, *args, f"run.dir={tmp_path / 'ref'}"))
    assert reference.returncode == 0, reference.stderr[-3000:]
    resumed_losses = [r["loss"] for r in metrics(tmp_path / "resumed")]
    reference_losses = [r["loss"] for r in metrics(tmp_path / "ref")][5:]
    assert len(resumed_losses) == 7
    torch.testing.assert_close(resumed_losses, reference_losses, rtol=1e-5, atol=1e-7)


def test_a_sharded_snapshot_written_in_the_background_holds_the_bytes_a_synchronous_one_holds(tmp_path):
    """dcp.async_save copies the shards at the snapshot step; later steps must not leak into the files."""
    logs = {}
    for mode in ("true", "false"):
        result = run(torchrun_command(2, *FSDP, f"run.dir={tmp_path / mode}", "train.max_steps=30",
                                      "snapshot.every=10", "snapshot.keep=5", f"snapshot.background={mode}"))
        assert result.returncode == 0, result.stderr[-3000:]
        logs[mode] = result.stderr
    assert "step-00000010 (step 10" in logs["true"] and "in the background, sharded; the loop waited" in logs["true"]
    assert "in the background" not in logs["false"]
    for step in (10, 20, 30):
        snapshots = [tmp_path / mode / "snapshots" / f"step-{step:08d}" for mode in ("true", "false")]
        shards = [{k: v for k, v in json.loads((s / "manifest.json").read_text()).items() if k.endswith(".distcp")}
                  for s in snapshots]
        assert len(shards[0]) == 2 and shards[0] == shards[1], step  # model and optimizer shards, bit for bit
        background, synchronous = ({k: v for k, v in json.loads((s / "extras.json").read_text()).items()
                                    if k != "config"} for s in snapshots)
        assert background == synchronous  # position, schedule, scaler


def test_a_partial_sharded_snapshot_is_skipped_with_a_warning(tmp_path):
    args = [*FSDP, f"run.dir={tmp_path}", "snapshot.every=10"]
    assert run(torchrun_command(2, *args, "train.max_steps=20")).returncode == 0
    (tmp_path / "snapshots" / "step-00000020" / "__1_0.distcp").write_bytes(b"torn")
    resumed = run(torchrun_command(2, *args, "train.max_steps=25"))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "step-00000020 is unusable: '__1_0.distcp': sha256" in resumed.stderr  # names quoted: they may hold newlines
    assert "resuming from" in resumed.stderr and "step-00000010 at step 10" in resumed.stderr


@pytest.mark.parametrize(("first", "then"), [(2, 4), (4, 2)])
def test_a_sharded_snapshot_resumes_on_another_world_size_where_its_data_stopped(tmp_path, first, then):
    args = [*FSDP, f"run.dir={tmp_path}", "snapshot.every=0"]
    assert run(torchrun_command(first, *args, "train.max_steps=10")).returncode == 0
    saved = metrics(tmp_path)[-1]
    resumed = run(torchrun_command(then, *args, "train.max_steps=14"))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"written with world size {first} on world size {then}" in resumed.stderr
    records = metrics(tmp_path)
    assert [r["step"] for r in records] == list(range(1, 15))
    # The data position carries over (10 steps of 16 samples per rank), and the model did: the first
    # resumed step's loss continues from the saved model's, far below the untrained one's.
    assert f"the data order continues at sample {10 * 16 * first} of epoch 1" in resumed.stderr
    assert records[10]["loss"] < records[0]["loss"] - 0.3 and abs(records[10]["loss"] - saved["loss"]) < 0.3


def test_a_ddp_snapshot_starts_a_fsdp_run_whose_snapshot_continues_under_ddp(tmp_path):
    """Switching strategy mid-run (say, to fit a larger batch): each resumes from the other's snapshot, and
    the three legs learn what one DDP run learns."""
    common = [*GPT, "snapshot.every=0"]
    straight = run(torchrun_command(2, *common, f"run.dir={tmp_path / 'straight'}", "train.max_steps=30"))
    assert straight.returncode == 0, straight.stderr[-3000:]
    mixed = tmp_path / "mixed"
    for strategy, steps in (("ddp", 10), ("fsdp", 20), ("ddp", 30)):
        leg = run(torchrun_command(2, *common, f"run.dir={mixed}", f"dist.strategy={strategy}",
                                   f"train.max_steps={steps}"))
        assert leg.returncode == 0, leg.stderr[-3000:]
        if steps > 10:
            assert f"at step {steps - 10} " in leg.stderr.split("resuming from")[1].splitlines()[0]
    assert sorted(p.name for p in (mixed / "snapshots").iterdir()) == [
        "step-00000010.pt", "step-00000010.pt.sha256", "step-00000020", "step-00000030.pt",
        "step-00000030.pt.sha256"]
    losses = [r["loss"] for r in metrics(mixed)]
    assert losses == pytest.approx([r["loss"] for r in metrics(tmp_path / "straight")], rel=1e-4)


def test_export_writes_the_whole_model_to_one_file_loadable_with_weights_only(tmp_path):
    run_dir = tmp_path / "run"
    assert run(torchrun_command(2, *FSDP, f"run.dir={run_dir}", "train.max_steps=12")).returncode == 0
    out = tmp_path / "model.pt"
    exported = run([sys.executable, "-m", "app.train.export", str(run_dir / "snapshots" / "step-00000012"), str(out)])
    assert exported.returncode == 0, exported.stderr
    state = torch.load(out, weights_only=True)
    assert "blocks.0.attn.qkv.weight" in state and state["head.weight"].shape == state["token_embedding.weight"].shape
    # The same bits as the model the run ended with (the summary's digest of the gathered model)
    assert params_sha256(state) == summary(run_dir)["params_sha256"]


def test_strategy_settings_that_do_not_fit_are_one_line_exit_2(tmp_path):
    result = run(train_command(*GPT, f"run.dir={tmp_path}", "dist.reshard_after_forward=false"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "error: dist.reshard_after_forward=False applies to dist.strategy=fsdp only (DDP does not shard); "
        "example: dist.reshard_after_forward=false with dist.strategy=fsdp")
