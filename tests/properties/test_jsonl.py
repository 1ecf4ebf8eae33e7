"""The JSON-lines readers on any bytes: history.jsonl (the job scripts' requeue count, the trainer's start) and
metrics.jsonl (cut back on resume). Damaged lines cost themselves, never the run."""

from __future__ import annotations

import json

from hypothesis import example, given
from hypothesis import strategies as st

from app.host.common.history import append_attempt, main, requeues_in_a_row
from app.host.common.jsonl import MAX_LINE_BYTES, json_object, json_objects
from app.train.outputs import _metrics_truncated_to
from tests.bounded import within
from tests.properties.strategies import (
    SECONDS_PER_EXAMPLE,
    SPECIAL,
    awkward_text,
    fresh_directory,
    lines_of,
    place,
    record_like,
)

counts = st.integers(min_value=0, max_value=10**6)
history_lines = lines_of(record_like({"attempt": counts, "start_step": counts, "event": st.sampled_from(
    ["requeue", "gave-up"]), "reason": awkward_text, "started_unix": st.floats(), "excluded": st.lists(
    awkward_text, max_size=3)}))
metrics_lines = lines_of(record_like({"step": counts, "loss": st.floats(), "step_time_s": st.floats(min_value=0)}))


@given(history_lines | st.binary())
# A reason holding an escaped lone surrogate: the next line's previous_attempt carries it, and no byte encodes it
@example(b'{"attempt": 0, "event": "requeue", "excluded": [], "reason": "\\ud800"}')
def test_the_bad_node_requeues_count_and_the_trainers_start_read_any_history(data):
    with fresh_directory() as run_dir, within(SECONDS_PER_EXAMPLE):
        (run_dir / "history.jsonl").write_bytes(data)
        before = json_objects(run_dir / "history.jsonl")
        assert requeues_in_a_row(run_dir) >= 0
        assert main(["requeues-in-a-row", str(run_dir)]) == 0
        entry = append_attempt(run_dir, start_step=0, hosts=["node1"], launcher="torchrun", env={})
        assert entry["attempt"] == sum("attempt" in e for e in before) + 1
        assert json_objects(run_dir / "history.jsonl")[-1]["attempt"] == entry["attempt"], "a line of its own"


@given(metrics_lines | st.binary(), counts)
def test_resume_cuts_any_metrics_file_back_to_whole_records_up_to_its_step(data, step):
    with fresh_directory() as run_dir, within(SECONDS_PER_EXAMPLE):
        path = run_dir / "metrics.jsonl"
        path.write_bytes(data)
        _metrics_truncated_to(path, step)
        kept = [json.loads(line) for line in path.read_text().splitlines()]
        assert all(isinstance(r["step"], int) and r["step"] <= step for r in kept)
        _metrics_truncated_to(path, step)
        assert [json.loads(line) for line in path.read_text().splitlines()] == kept, "a second cut changes nothing"


@given(st.sampled_from(SPECIAL), st.booleans())
def test_a_special_file_as_history_is_refused_by_the_bad_node_requeue_in_one_line(special, event):
    with fresh_directory() as run_dir, within(SECONDS_PER_EXAMPLE):
        place(run_dir / "history.jsonl", special)
        argv = ["event", str(run_dir), "requeue", "slow"] if event else ["requeues-in-a-row", str(run_dir)]
        assert main(argv) == 2


#: Lines as long as the streaming reader's bound and longer: one byte each side of it, and far beyond.
long_lines = st.sampled_from([MAX_LINE_BYTES - 1, MAX_LINE_BYTES, MAX_LINE_BYTES + 1, 3 * MAX_LINE_BYTES + 5]).map(
    lambda length: b'{"step": 1, "pad": "' + b"x" * max(0, length - 22) + b'"}')


@given(st.lists(metrics_lines | long_lines | st.binary(max_size=30), max_size=6).map(b"\n".join))
def test_the_streaming_reader_keeps_every_record_a_whole_file_read_keeps_up_to_its_line_bound(data):
    with fresh_directory() as directory, within(SECONDS_PER_EXAMPLE):
        path = directory / "metrics.jsonl"
        path.write_bytes(data)
        # A line of up to MAX_LINE_BYTES (its newline aside) is read, a longer one skipped whole
        whole = [json_object(piece) for line in data.split(b"\n") if len(line) <= MAX_LINE_BYTES
                 for piece in line.splitlines()]
        assert json_objects(path) == [entry for entry in whole if entry is not None]
