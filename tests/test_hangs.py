"""Naming the rank that holds a run up, from two reads of every heartbeat (app.train.hangs.name_the_hang),
and the trainer's test-only fault switch that makes one."""

from __future__ import annotations

import json
import time

import pytest

from app.common.errors import UsageError
from app.train.faults import from_environment
from app.train.hangs import Beat, name_the_hang
from app.train.summary import write_hang_summary


def beat(rank: int, count: int, step: int, phase: str) -> Beat:
    return Beat(rank, count, step, phase, f"node{rank}")


def test_a_rank_whose_heartbeat_stopped_is_named_with_where_the_others_wait():
    first = [beat(0, 5, 9, "forward/backward"), beat(1, 3, 4, "data"), beat(2, 5, 9, "forward/backward")]
    second = [beat(0, 7, 9, "forward/backward"), beat(1, 3, 4, "data"), beat(2, 7, 9, "forward/backward")]
    ranks, sentence = name_the_hang(first, second)
    assert ranks == [1]
    assert sentence == ("rank 1 (node1) stopped answering (no heartbeat; last heard at step 4, phase data) "
                        "while rank 0 waits at step 9, phase forward/backward")


def test_a_live_rank_behind_the_others_is_named():
    first = [beat(0, 5, 9, "forward/backward"), beat(1, 5, 9, "data")]
    second = [beat(0, 6, 9, "forward/backward"), beat(1, 6, 9, "data")]
    ranks, sentence = name_the_hang(first, second)
    assert ranks == [1] and sentence.startswith("rank 1 (node1) at step 9, phase data stopped making progress")


def test_a_snapshot_that_takes_too_long_names_rank_0_in_its_snapshot_phase():
    first = [beat(0, 5, 100, "snapshot"), beat(1, 5, 101, "forward/backward")]
    second = [beat(0, 6, 100, "snapshot"), beat(1, 6, 101, "forward/backward")]
    ranks, sentence = name_the_hang(first, second)
    assert ranks == [0] and "rank 0 (node0) at step 100, phase snapshot" in sentence


def test_a_rank_never_heard_from_is_named():
    ranks, sentence = name_the_hang([beat(0, 1, 1, "data"), None], [beat(0, 2, 1, "data"), None])
    assert ranks == [1] and "rank 1 sent no heartbeat" in sentence


def test_every_rank_in_the_same_collective_names_nobody():
    first = [beat(0, 5, 9, "forward/backward"), beat(1, 5, 9, "forward/backward")]
    second = [beat(0, 6, 9, "forward/backward"), beat(1, 6, 9, "forward/backward")]
    ranks, sentence = name_the_hang(first, second)
    assert ranks == [] and "the collective itself does not complete" in sentence


def test_the_trainer_fault_switch_targets_a_rank_or_every_rank_of_a_host():
    by_rank = from_environment({"APP_TRAIN_FAULT": "stop@rank1:step8"})
    assert by_rank.applies(1, "node7") and not by_rank.applies(0, "node7")
    by_host = from_environment({"APP_TRAIN_FAULT": "stop@host=node3:step20"})
    assert by_host.step == 20 and by_host.applies(0, "node3.cluster") and not by_host.applies(0, "node2")
    for bad in ("stop@node3:step2", "stop@host=:step2", "nap@rank1:step2"):
        with pytest.raises(UsageError):
            from_environment({"APP_TRAIN_FAULT": bad})


def test_the_first_hang_report_of_an_attempt_stands(tmp_path):
    """A frozen node woken by the scheduler's SIGCONT during teardown finds everyone gone and blames rank 0;
    that late report must not replace the one the survivors wrote (the job scripts leave its nodes out)."""
    attempt_started = time.time() - 60
    assert write_hang_summary(tmp_path, "hang: rank 2 (node2) stopped answering", [2], ["node2"], 236, 4,
                              attempt_started=attempt_started)
    assert not write_hang_summary(tmp_path, "hang: rank 0 stopped answering", [0], ["node1"], 236, 4,
                                  attempt_started=attempt_started)
    assert json.loads((tmp_path / "summary.json").read_text())["hang"]["hosts"] == ["node2"]
    assert (tmp_path / "nodes-to-exclude.txt").read_text() == "node2\n"
    # A later attempt's own hang is reported
    assert write_hang_summary(tmp_path, "hang: rank 1 (node3) ...", [1], ["node3"], 300, 4,
                              attempt_started=time.time() + 1)
