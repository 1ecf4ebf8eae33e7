"""bench/gpu_profile.py on the CPU: which step the profiler records, what it writes, what it leaves out."""

from __future__ import annotations

import gzip
import json

import pytest
import torch
from torch.profiler import record_function

from bench import gpu_profile


def train(steps: int) -> None:
    """A loop of `steps` optimizer steps, each marked with its number (1-based) in the profile."""
    model = torch.nn.Linear(8, 8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1, steps + 1):
        with record_function(f"marked-step-{step}"):
            model(torch.randn(4, 8)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()


def test_the_step_recorded_is_wait_plus_two_and_only_that_one(tmp_path):
    gpu_profile.profiled(lambda: train(6), tmp_path / "loop", "a loop", wait=2)
    ops = json.loads((tmp_path / "loop.json").read_text())["ops"]
    assert [name for name in ops if name.startswith("marked-step-")] == ["marked-step-4"]
    assert ops["aten::addmm"]["calls"] == 1
    table = (tmp_path / "loop.txt").read_text()
    assert table.startswith("a loop: one optimizer step") and "== by self host time" in table
    with gzip.open(tmp_path / "loop.trace.json.gz") as trace:
        assert any(e.get("name") == "marked-step-4" for e in json.load(trace)["traceEvents"])


def test_a_run_too_short_to_reach_the_recorded_step_says_so(tmp_path):
    with pytest.raises(SystemExit, match="fewer than 4 optimizer steps"):
        gpu_profile.profiled(lambda: train(3), tmp_path / "loop", "a loop", wait=2)


def test_a_trace_over_the_limit_is_left_out_and_the_table_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(gpu_profile, "TRACE_LIMIT_BYTES", 100)
    gpu_profile.profiled(lambda: train(6), tmp_path / "loop", "a loop", wait=2)
    assert not (tmp_path / "loop.trace.json.gz").exists()
    assert "the chrome trace is left out: loop.trace.json.gz" in (tmp_path / "loop.txt").read_text()


def step(**ops: tuple[float, int]) -> dict:
    """A recorded step as write_outputs leaves it: each operator's self host time (us) and calls."""
    return {"label": "x", "device": "cpu", "torch": "t", "step_host_ms": 1.0, "device_ms": 0.0,
            "ops": {name: {"self_device_us": 0.0, "self_host_us": us, "calls": n} for name, (us, n) in ops.items()}}


def test_the_comparison_lists_the_largest_differences_first(tmp_path):
    text = gpu_profile.compare(tmp_path / "c.txt", step(mm=(1000.0, 4), hook=(3000.0, 1)),
                               step(mm=(900.0, 4), only_hand=(500.0, 2)))
    lines = text.splitlines()
    table = lines[lines.index(next(line for line in lines if line.startswith("operator "))) + 1 :]
    assert [line.split()[0] for line in table] == ["hook", "only_hand", "mm"]
    assert "+3.00" in table[0] and "-0.50" in table[1]
    assert (tmp_path / "c.txt").read_text() == text


def test_each_suspect_sums_the_operators_where_it_shows():
    app = step(**{"DistributedDataParallel.forward": (2000.0, 4), "nccl:all_reduce": (300.0, 1),
                  "c10d::allreduce_": (100.0, 1), "aten::cat": (50.0, 1), "aten::mm": (9000.0, 76)})
    lines = gpu_profile.suspects(app, step(**{"aten::mm": (8000.0, 76)}))
    rows = {line[:68].strip(): line[68:].split() for line in lines[1:]}
    assert rows["DDP's wrapper and reducer on the host"] == ["2.00/0.00", "(4)", "0.00/0.00", "(0)"]
    assert rows["collectives (the buckets' all-reduce, the statistics' ride)"][:2] == ["0.40/0.00", "(2)"]
    assert rows["concatenations (the statistics hook joins them to the last bucket)"][:2] == ["0.05/0.00", "(1)"]


def kernel(start_us: float, duration_us: float, name: str = "k") -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "ts": start_us, "dur": duration_us}


def test_the_device_timeline_counts_busy_time_once_and_the_idle_time_by_tenth_of_the_step():
    events = [kernel(0, 100), kernel(50, 100),  # overlapping: busy 0-150
              kernel(900, 100),  # 750 us idle before it: half the second tenth, the third to the ninth
              {"ph": "X", "cat": "gpu_user_annotation", "name": "DistributedDataParallel.forward", "ts": 0,
               "dur": 1000},  # a range, not work: not counted
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 5000}]
    timeline = gpu_profile.device_timeline(events)
    assert timeline["span_ms"] == pytest.approx(1.0) and timeline["busy_ms"] == pytest.approx(0.25)
    assert timeline["idle_ms"] == pytest.approx(0.75)
    assert sum(timeline["idle_ms_by_tenth"]) == pytest.approx(0.75) and timeline["idle_ms_by_tenth"][0] == 0
    assert timeline["idle_ms_by_tenth"][1] == pytest.approx(0.05) and timeline["idle_ms_by_tenth"][5] == 0.1
    assert timeline["idle_ms_by_tenth"][9] == 0


def test_a_host_only_step_has_an_empty_device_timeline():
    assert gpu_profile.device_timeline([{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0, "dur": 9}]) == {
        "span_ms": 0.0, "busy_ms": 0.0, "idle_ms": 0.0, "idle_ms_by_tenth": [0.0] * 10}
