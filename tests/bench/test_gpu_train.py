"""bench/gpu_train.py on the CPU: the hand loop's DDP forms change the cost of a step, never the model; an MFU case
that runs out of memory is measured again with activation checkpointing."""

from __future__ import annotations

import argparse

import pytest

from bench import gpu_train
from bench.gpu_train import HandLoop, hand_loop


def test_the_hand_loops_three_forms_train_the_same_model():
    losses = {name: hand_loop("tiny", 2, 3, 1, HandLoop.named(name, compile=False))["loss"]
              for name in ("plain", "ddp", "ddp-stats")}
    assert losses["plain"] == losses["ddp"] == losses["ddp-stats"], losses


@pytest.mark.parametrize(("name", "ddp", "stats"), [("plain", False, False), ("ddp", True, False),
                                                    ("ddp-stats", True, True)])
def test_each_form_is_named_as_the_command_line_names_it(name, ddp, stats):
    loop = HandLoop.named(name)
    assert (loop.ddp, loop.stats, loop.name) == (ddp, stats, name)


def test_a_size_whose_compiled_step_runs_out_of_memory_is_measured_again_with_activation_checkpointing(
        monkeypatch, tmp_path):
    """The eager probe fits, but the trainer's step holds more (its buckets, its statistics): the case is not lost."""
    calls = []

    def run_app(size, batch, steps, warmup, run_dir, *overrides, **shape):
        calls.append(overrides)
        if "train.activation_checkpointing=false" in overrides:
            raise RuntimeError("... torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB ...")
        return {"tokens_per_s": 1000.0, "peak_memory_gib": 1.0}

    monkeypatch.setattr(gpu_train, "run_child", lambda args: {"fits": True, "peak_memory_gib": 130.0})
    monkeypatch.setattr(gpu_train, "run_app", run_app)
    records = []
    args = argparse.Namespace(steps=12, warmup=6, mfu_grad_accum=2)
    gpu_train.measure_mfu("gpt2-xl:16:2048", args, tmp_path, records.append)
    assert [o[1] for o in calls] == ["train.activation_checkpointing=false", "train.activation_checkpointing=true"]
    (record,) = records
    assert record["activation_checkpointing"] is True and record["out_of_memory_without"] is True


def test_any_other_failure_of_the_trainer_is_not_retried(monkeypatch, tmp_path):
    def run_app(*args, **kwargs):
        raise RuntimeError("app.train failed (1): a config error")

    monkeypatch.setattr(gpu_train, "run_child", lambda args: {"fits": True, "peak_memory_gib": 1.0})
    monkeypatch.setattr(gpu_train, "run_app", run_app)
    with pytest.raises(RuntimeError, match="a config error"):
        gpu_train.measure_mfu("gpt2:16:1024", argparse.Namespace(steps=2, warmup=1, mfu_grad_accum=1), tmp_path,
                              print)


def test_the_sharded_part_runs_fsdp_with_each_gathering_named_and_holds_only_the_default_to_its_target(
        monkeypatch, tmp_path):
    speeds = {"ddp": 100.0, "true": 95.0, "false": 40.0}  # the once-a-step fsdp meets 0.9, the other does not

    def run_app(size, batch, steps, warmup, run_dir, *overrides, ranks=1, **shape):
        gathering = [o.split("=")[1] for o in overrides if o.startswith("dist.gather_once_per_step=")]
        strategy = "ddp" if "dist.strategy=ddp" in overrides else gathering[0]
        return {"tokens_per_s": speeds[strategy], "peak_memory_gib": 1.0}

    monkeypatch.setattr(gpu_train, "run_app", run_app)
    records = []
    args = argparse.Namespace(steps=4, warmup=1, size_scope="blocks", fsdp_gathering=["once", "per-micro-batch"])
    gpu_train.measure_sharded("gpt2", 8, args, tmp_path, records.append)
    assert [(r["who"], r["gathering"], r["ranks"], r["ratio"]) for r in records] == [
        ("ddp", None, 1, None), ("fsdp", "once", 1, 0.95), ("ddp", None, 2, None), ("fsdp", "once", 2, 0.95),
        ("fsdp", "per-micro-batch", 1, 0.4), ("fsdp", "per-micro-batch", 2, 0.4)]
    assert gpu_train.misses(records) == []  # the per-micro-batch runs are the comparison, not the trainer
    assert gpu_train.misses([{**r, "ratio": 0.5} if r["gathering"] == "once" else r for r in records]) == [
        ("sharded", "gpt2", 8)]
