"""Naming the rank that holds a run up, from two reads of every heartbeat (app.train.hangs.name_the_hang)."""

from __future__ import annotations

from app.train.hangs import Beat, name_the_hang


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
