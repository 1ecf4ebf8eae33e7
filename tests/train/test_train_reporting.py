"""What a user watches while a run trains, tested on real runs: the validation loss, the per-step metrics,
the progress bar on a real pseudo-terminal, and the TensorBoard and offline W&B copies of the metrics."""

from __future__ import annotations

import fcntl
import glob
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

from tests.trainer_runs import (
    REPO,
    TIMEOUT_S,
    clean_env,
    finish,
    metrics,
    run,
    start,
    summary,
    torchrun_command,
    train_command,
    wait_for_step,
    workers,
)

pytestmark = pytest.mark.slow

GPT = ["--config", "demo", "data.tokens=200000", "run.log_every=1"]


def test_validation_is_measured_on_held_out_data_and_survives_a_kill_bit_identical(tmp_path):
    args = [*GPT, "train.max_steps=70", "snapshot.every=25", "model.dropout=0.1", "train.eval_every=20",
            "train.eval_steps=3"]
    plain = run(torchrun_command(2, *GPT, "train.max_steps=70", "snapshot.every=25", "model.dropout=0.1",
                                 "train.eval_every=0", f"run.dir={tmp_path / 'no-eval'}"))
    reference = run(torchrun_command(2, *args, f"run.dir={tmp_path / 'reference'}"))
    assert plain.returncode == 0 and reference.returncode == 0, reference.stderr[-3000:]
    agent = start(torchrun_command(2, *args, f"run.dir={tmp_path / 'killed'}", max_restarts=1))
    wait_for_step(tmp_path / "killed", 45, agent)
    os.kill(workers(agent.pid)[-1], signal.SIGKILL)
    stderr = finish(agent)
    assert agent.returncode == 0, stderr[-3000:]
    assert "resuming from" in stderr

    def validations(name: str) -> dict[int, float]:
        return {r["step"]: r["val_loss"] for r in metrics(tmp_path / name) if "val_loss" in r}

    assert sorted(validations("reference")) == [20, 40, 60, 70]  # every 20 steps and at the end
    assert validations("killed") == validations("reference")
    # Evaluating changes nothing the run trains: same parameters with and without it, and after the kill
    assert not any("val_loss" in r for r in metrics(tmp_path / "no-eval"))
    digests = {summary(tmp_path / name)["params_sha256"] for name in ("no-eval", "reference", "killed")}
    assert len(digests) == 1
    done = summary(tmp_path / "reference")
    assert done["val_loss"] == validations("reference")[70]
    # Held-out text of the same language: it learns, and the validation loss follows the training loss
    first, last = validations("reference")[20], validations("reference")[70]
    assert last < first - 0.5
    assert abs(last - done["final_loss"]) < 0.5
    assert "validation " in reference.stderr and "val_loss" in reference.stderr


def test_every_step_records_wall_time_gradient_norm_data_seen_and_memory(tmp_path):
    result = run(torchrun_command(2, *GPT, "train.max_steps=12", "train.batch_size=8", f"run.dir={tmp_path}"))
    assert result.returncode == 0, result.stderr[-3000:]
    records = metrics(tmp_path)
    # 2 ranks x 8 samples of 64 tokens per step
    assert [r["samples"] for r in records] == [16 * step for step in range(1, 13)]
    assert [r["tokens"] for r in records] == [16 * 64 * step for step in range(1, 13)]
    times = [r["time"] for r in records]
    assert times == sorted(times) and abs(times[-1] - time.time()) < 120
    assert all(r["grad_norm"] > 0 for r in records) and all(r["peak_memory_gib"] > 0.05 for r in records)
    assert records[0]["lr"] < records[9]["lr"]  # warmup


def test_clipping_limits_the_update_but_the_record_keeps_the_norm_before_clipping(tmp_path):
    for clip in ("0", "0.01"):
        result = run(train_command(*GPT, "train.max_steps=3", f"optim.grad_clip={clip}", f"run.dir={tmp_path / clip}"))
        assert result.returncode == 0, result.stderr[-3000:]
    unclipped, clipped = metrics(tmp_path / "0"), metrics(tmp_path / "0.01")
    assert clipped[0]["grad_norm"] == pytest.approx(unclipped[0]["grad_norm"], rel=1e-6)
    assert clipped[0]["grad_norm"] > 0.01
    assert summary(tmp_path / "0")["params_sha256"] != summary(tmp_path / "0.01")["params_sha256"]


def run_on_a_terminal(command: list[str], columns: int, rows: int = 24) -> str:
    """Run with stdin, stdout and stderr on a pseudo-terminal of the given size; return what it drew."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(command, env=clean_env(TERM="xterm"), cwd=REPO, stdin=follower, stdout=follower,
                               stderr=follower, start_new_session=True)
    os.close(follower)
    drawn = bytearray()
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            drawn += chunk
        elif process.poll() is not None:
            break
    process.wait(timeout=10)
    os.close(leader)
    assert process.returncode == 0, drawn.decode(errors="replace")[-3000:]
    return drawn.decode()


BAR = re.compile(r"^ *\d+%\|.*\| *\d+/\d+ \[")
LOG = re.compile(r"^\d\d:\d\d:\d\d \S+:\d+ (INFO|WARNING|ERROR) ")


def test_the_progress_bar_fits_an_80_column_terminal_shows_an_eta_and_never_tangles_with_log_lines(tmp_path):
    drawn = run_on_a_terminal(train_command("--config", "demo", "data.tokens=200000", "train.max_steps=150",
                                            "train.eval_every=60", f"run.dir={tmp_path}"), columns=80)
    pieces = [p for p in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", drawn)) if p.strip()]
    bars = [p for p in pieces if BAR.match(p)]
    assert len(bars) >= 3, pieces
    assert all(len(bar) <= 80 for bar in bars), max(bars, key=len)
    assert any(re.search(r"\[\d\d:\d\d<\d\d:\d\d, ", bar) for bar in bars)  # elapsed<ETA
    assert "150/150" in bars[-1] and "loss " in bars[-1]
    # Every other piece is a whole line of its own: a log line or a validation line, nothing glued to a bar
    others = [p for p in pieces if not BAR.match(p)]
    assert others and all(LOG.match(p) or p.startswith("step ") for p in others), others
    assert any("val_loss" in p for p in others) and any("completed at step 150" in p for p in others)


def test_a_batch_log_gets_plain_periodic_lines_and_no_bar(tmp_path):
    result = run(train_command("--config", "demo", "data.tokens=200000", "train.max_steps=40", "run.log_every=10",
                               f"run.dir={tmp_path}"))
    assert result.returncode == 0, result.stderr[-3000:]
    # each through the log (its time, host:rank), the epoch counted from 1, this attempt's ETA last
    assert re.findall(r"^\d\d:\d\d:\d\d \S+:0 INFO step (\d+)/40 \| epoch 1/1 \|.* \| ETA \d+:\d\d:\d\d$",
                      result.stderr, re.M) == ["10", "20", "30", "40"], result.stderr[-3000:]
    assert "(epoch 1)" in result.stderr
    assert "\r" not in result.stderr and "%|" not in result.stderr


def test_tensorboard_events_hold_each_steps_metrics(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = run(train_command(*GPT, "train.max_steps=30", "train.eval_every=10", "run.tensorboard=true",
                               f"run.dir={tmp_path}"))
    assert result.returncode == 0, result.stderr[-3000:]
    events = EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    losses = {event.step: event.value for event in events.Scalars("loss")}
    assert losses == pytest.approx({r["step"]: r["loss"] for r in metrics(tmp_path)}, rel=1e-6)
    assert [event.step for event in events.Scalars("val_loss")] == [10, 20, 30]
    assert {"grad_norm", "lr", "tokens_per_s", "peak_memory_gib"} <= set(events.Tags()["scalars"])


def wandb_history(run_dir: Path) -> list[dict]:
    """The history records of an offline W&B run file: LevelDB-log blocks of protobuf `Record`s."""
    from wandb.proto import wandb_internal_pb2

    records: list[dict] = []
    for path in sorted(glob.glob(str(run_dir / "wandb" / "offline-run-*" / "run-*.wandb"))):
        data, pos, pending = Path(path).read_bytes(), 7, b""  # 7: the ':W&B' header
        while pos + 7 <= len(data):
            if 32768 - pos % 32768 < 7:  # a block's tail too short for a header is padding
                pos += 32768 - pos % 32768
                continue
            _, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
            if kind == 0 and length == 0:
                break
            pending += data[pos + 7:pos + 7 + length]
            pos += 7 + length
            if kind in (1, 4):  # a whole record, or the last piece of one
                record = wandb_internal_pb2.Record()
                record.ParseFromString(pending)
                pending = b""
                if record.WhichOneof("record_type") == "history":
                    records.append({item.key or "/".join(item.nested_key): json.loads(item.value_json)
                                    for item in record.history.item})
    return records


def test_an_offline_wandb_run_holds_the_metrics_and_a_resumed_attempt_logs_to_the_same_run(tmp_path):
    args = [*GPT, "run.wandb_project=demo", f"run.dir={tmp_path}"]
    for steps in ("10", "20"):
        result = run(train_command(*args, f"train.max_steps={steps}"))
        assert result.returncode == 0, result.stderr[-3000:]
    run_id = (tmp_path / "wandb-run-id").read_text().strip()
    assert {Path(p).name.rsplit("-", 1)[-1] for p in glob.glob(str(tmp_path / "wandb" / "offline-run-*"))} == {run_id}
    history = wandb_history(tmp_path)
    assert [h["_step"] for h in history] == list(range(1, 21))
    assert [h["loss"] for h in history] == pytest.approx([r["loss"] for r in metrics(tmp_path)], rel=1e-6)


def test_activation_checkpointing_recomputes_to_the_same_parameters(tmp_path):
    args = [*GPT, "train.max_steps=15", "model.dropout=0.1"]
    for name, extra in (("plain", []), ("recomputed", ["train.activation_checkpointing=true"])):
        result = run(torchrun_command(2, *args, *extra, f"run.dir={tmp_path / name}"))
        assert result.returncode == 0, result.stderr[-3000:]
    assert summary(tmp_path / "plain")["params_sha256"] == summary(tmp_path / "recomputed")["params_sha256"]
    # Snapshots keep the plain model's parameter names (no wrapper module in the path)
    from tests.trainer_runs import final_state

    assert set(final_state(tmp_path / "plain")["model"]) == set(final_state(tmp_path / "recomputed")["model"])


def test_validation_on_a_token_file_without_val_bin_stops_with_the_fix(tmp_path):
    (tmp_path / "train.bin").write_bytes(struct.pack("<20000H", *(i % 500 for i in range(20000))))
    result = run(train_command("--config", "demo", f"data.tokens_file={tmp_path / 'train.bin'}",
                               "train.eval_every=10", f"run.dir={tmp_path / 'run'}"))
    assert result.returncode == 2
    assert f"there is no {tmp_path / 'val.bin'} beside data.tokens_file" in result.stderr
    assert "Traceback" not in result.stderr
    # nanoGPT's prepare scripts write val.bin beside train.bin: found there
    (tmp_path / "val.bin").write_bytes(struct.pack("<3000H", *(i % 500 for i in range(3000))))
    result = run(train_command("--config", "demo", f"data.tokens_file={tmp_path / 'train.bin'}", "train.max_steps=10",
                               "train.eval_every=10", f"run.dir={tmp_path / 'run'}"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert summary(tmp_path / "run")["val_loss"] > 0


def test_a_dry_run_plans_what_the_run_then_does_without_joining_a_process_group(tmp_path):
    args = ["--config", "demo", "data.tokens=60000", "train.grad_accum=2"]
    # A 2-rank torchrun environment whose rendezvous nobody hosts: joining would fail (exit 3) or wait
    env = clean_env(RANK="0", WORLD_SIZE="2", LOCAL_RANK="0", LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                    MASTER_PORT="1")
    plan = run(train_command(*args, "--dry-run", f"run.dir={tmp_path / 'dry'}"), env=env, timeout=60)
    assert plan.returncode == 0, plan.stderr
    assert not (tmp_path / "dry").exists()
    out = plan.stdout
    assert "world size    2 (torchrun)" in out and "#     grad_accum: 2" in out
    assert "global batch  64 samples = 4,096 tokens per optimizer step (16 per rank x 2 micro-batch(es) x 2" in out
    planned_steps = int(re.search(r"^steps +(\d+) in total", out, re.M)[1])
    planned_params = int(re.search(r"^parameters +([\d,]+)", out, re.M)[1].replace(",", ""))
    rows = {m[1].strip(): (float(m[2]), float(m[3])) for m in re.finditer(r"^  (\w[\w ]+?) +([\d.]+)M +([\d.]+)M$",
                                                                           out, re.M)}
    for strategy in ("ddp", "fsdp"):
        result = run(torchrun_command(2, *args, f"dist.strategy={strategy}", f"run.dir={tmp_path / strategy}"))
        assert result.returncode == 0, result.stderr[-3000:]
        done, column = summary(tmp_path / strategy), ("ddp", "fsdp").index(strategy)
        assert done["step"] == planned_steps
        assert f"training gpt: {planned_params} parameters" in result.stderr
        assert rows["parameters"][column] * 2**20 == pytest.approx(done["param_bytes_per_rank"], rel=0.1)
        assert rows["optimizer"][column] * 2**20 == pytest.approx(done["optimizer_bytes_per_rank"], rel=0.1)
    printed = run(train_command(*args, "--print-config", "optim.lr=0.01"), timeout=60)
    assert printed.returncode == 0 and "  lr: 0.01\n" in printed.stdout and "  grad_accum: 2\n" in printed.stdout
