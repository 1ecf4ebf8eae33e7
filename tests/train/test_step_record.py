"""A metrics line is one typed record built in one place: its fields, in order, are the keys of each line of
metrics.jsonl, and the figures derived from a step's raw measurements come out as the readers expect."""

from __future__ import annotations

from dataclasses import fields
from types import SimpleNamespace

from app.train.plan import Position
from app.train.step_record import Evaluation, StepRecord, build_step_record
from tests.train.in_process import metrics, train_here

FIELDS = [field.name for field in fields(StepRecord)]


def test_each_metrics_line_holds_the_step_records_fields_in_their_order(tmp_path):
    train_here(tmp_path, "train.max_steps=4", "train.eval_every=2", "train.eval_steps=1", config="demo")
    lines = metrics(tmp_path)
    assert [line["step"] for line in lines] == [1, 2, 3, 4]
    for line in lines:
        assert list(line) == [name for name in FIELDS if name in line]
    optional = {"val_loss", "eval_time_s"}
    assert set(lines[1]) == set(FIELDS)  # an evaluated step of a token workload: every field
    assert set(lines[0]) == set(FIELDS) - optional


def test_the_builder_derives_loss_rates_and_data_seen_from_the_steps_measurements():
    plan = SimpleNamespace(dataset_size=100, tokens_per_sample=64)
    record = build_step_record(plan, step=7, position=Position(7, 1, 40), lr=0.5, global_samples=20,
                               loss_sum=30.0, grad_norm=2.0, step_time_s=0.25, peak_memory_gib=1.5,
                               wall_time=1234.56789, evaluation=Evaluation(val_loss=1.25, seconds=0.125))
    assert record.as_json() == {
        "step": 7, "epoch": 1, "lr": 0.5, "samples": 140, "tokens": 140 * 64, "val_loss": 1.25,
        "eval_time_s": 0.125, "loss": 1.5, "grad_norm": 2.0, "step_time_s": 0.25, "samples_per_s": 80.0,
        "tokens_per_s": 80.0 * 64, "peak_memory_gib": 1.5, "time": 1234.568,
    }


def test_a_workload_without_tokens_and_a_step_without_evaluation_leave_those_keys_out():
    plan = SimpleNamespace(dataset_size=100, tokens_per_sample=0)
    record = build_step_record(plan, step=1, position=Position(1, 0, 20), lr=0.1, global_samples=20,
                               loss_sum=10.0, grad_norm=1.0, step_time_s=0.5, peak_memory_gib=0.1, wall_time=1.0)
    assert list(record.as_json()) == ["step", "epoch", "lr", "samples", "loss", "grad_norm", "step_time_s",
                                      "samples_per_s", "peak_memory_gib", "time"]
