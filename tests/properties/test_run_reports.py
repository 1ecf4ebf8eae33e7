"""app.report's reading of a run directory (app/host/report/run_record.py) and its text, on any metrics, history and
summary files: the report's lines or the one-line UsageError of a directory that is not a run."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.host.common.errors import UsageError
from app.host.report.run_record import read_run
from app.host.report.text import summary_lines
from tests.bounded import within
from tests.properties.strategies import (
    SECONDS_PER_EXAMPLE,
    SPECIAL,
    awkward_text,
    fresh_directory,
    json_line,
    json_values,
    lines_of,
    place,
    record_like,
)

counts = st.integers(min_value=0, max_value=10**6)
losses = st.floats() | st.integers()  # a run that diverged writes NaN
finite = st.floats(allow_nan=False, allow_infinity=False) | st.integers()
metrics = lines_of(record_like({"step": counts, "loss": losses, "step_time_s": finite, "time": finite,
                                "val_loss": losses, "tokens_per_s": finite, "samples_per_s": finite, "tokens": finite,
                                "peak_memory_gib": finite}, required=("step", "loss", "step_time_s", "samples_per_s")))
history = lines_of(record_like({"attempt": counts, "start_step": counts, "total_steps": counts | st.none(),
                                "started_unix": finite, "event": st.sampled_from(["requeue", "gave-up"]),
                                "reason": awkward_text, "excluded": st.lists(awkward_text, max_size=3)}))
summaries = (record_like({"status": st.sampled_from(["completed", "preempted", "hung", "crashed"]), "step": counts})
             .map(json_line) | json_values.map(json_line) | st.binary(max_size=50))


@given(metrics, history, st.none() | summaries, st.floats(allow_nan=False, allow_infinity=False))
def test_any_run_directory_reads_back_as_report_lines(metrics_file, history_file, summary_file, now):
    with fresh_directory() as run_dir, within(SECONDS_PER_EXAMPLE):
        (run_dir / "metrics.jsonl").write_bytes(metrics_file)
        (run_dir / "history.jsonl").write_bytes(history_file)
        if summary_file is not None:
            (run_dir / "summary.json").write_bytes(summary_file)
        lines = summary_lines(read_run(run_dir), now=now)
        assert lines and all(isinstance(line, str) and line.isprintable() for line in lines), "one line, no escapes"


@given(st.sampled_from(["metrics.jsonl", "history.jsonl", "summary.json"]), st.sampled_from(SPECIAL))
def test_a_special_file_in_a_run_directory_is_refused_in_one_line_or_passed_over(name, special):
    with fresh_directory() as run_dir, within(SECONDS_PER_EXAMPLE):
        if name != "metrics.jsonl":
            (run_dir / "metrics.jsonl").write_bytes(b'{"step": 1, "loss": 1.0, "step_time_s": 0.1}\n')
        place(run_dir / name, special)
        try:
            summary_lines(read_run(run_dir))
        except UsageError as err:
            assert name in str(err) and "\n" not in str(err)
