"""The readers of an earlier summary.json, whatever it holds: the trainer's hang report (app/train/summary.py)
and the next attempt's line in history.jsonl (app/host/common/history.py, how the previous attempt ended)."""

from __future__ import annotations

import json
import time

from hypothesis import given
from hypothesis import strategies as st

from app.host.common.history import previous_ending
from app.train.summary import write_hang_summary
from tests.bounded import within
from tests.properties.strategies import (
    SECONDS_PER_EXAMPLE,
    awkward_text,
    fresh_directory,
    json_line,
    json_values,
    record_like,
)

summaries = (record_like({"status": st.sampled_from(["completed", "preempted", "hung"]), "step": st.integers(),
                          "signal": awkward_text, "hang": st.fixed_dictionaries({"message": st.text()})})
             .map(json_line) | json_values.map(json_line) | st.binary(max_size=60))


@given(summaries)
def test_a_hang_is_reported_over_any_earlier_summary_but_a_hang_report_of_this_attempt(earlier):
    with fresh_directory() as run_dir, within(SECONDS_PER_EXAMPLE):
        (run_dir / "summary.json").write_bytes(earlier)
        written = write_hang_summary(run_dir, "hang: rank 2 (node2) stopped answering", [2], ["node2"], 7, 4,
                                     attempt_started=time.time() - 60)
        try:
            was_hang_report = json.loads(earlier).get("status") == "hung"
        except (ValueError, AttributeError):
            was_hang_report = False
        assert written != was_hang_report


@given(summaries, record_like({"started_unix": st.floats(), "event": awkward_text,
                               "reason": awkward_text}))
def test_the_next_attempt_says_how_the_previous_ended_whatever_its_summary_holds(earlier, previous):
    with fresh_directory() as run_dir, within(SECONDS_PER_EXAMPLE):
        (run_dir / "summary.json").write_bytes(earlier)
        assert isinstance(previous_ending(run_dir, previous), str)
