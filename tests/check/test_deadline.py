from app.check.deadline import find_stragglers
from app.check.protocol import RankProgress


def test_the_rank_furthest_behind_is_named():
    progress = [RankProgress(0, 7, "all all_reduce 1024B"), RankProgress(1, 3, "collectives"), RankProgress(2, 7, "x")]
    ranks, sentence = find_stragglers(progress)
    assert ranks == [1] and "rank 1 stopped answering in 'collectives'" in sentence


def test_a_rank_never_heard_from_is_named():
    ranks, sentence = find_stragglers([RankProgress(0, 2, "preflight"), None])
    assert ranks == [1] and "never reported" in sentence


def test_waiting_peers_one_step_ahead_are_not_blamed():
    # Rank 2 hangs before step 5; ranks 0, 1 wait inside step 5; rank 3 (outside the subgroup) ran ahead.
    progress = [RankProgress(0, 5, "a"), RankProgress(1, 5, "a"), RankProgress(2, 4, "b"), RankProgress(3, 9, "c")]
    assert find_stragglers(progress)[0] == [2]


def test_all_ranks_at_the_same_step_means_the_operation_hangs():
    ranks, sentence = find_stragglers([RankProgress(0, 4, "inter all_reduce"), RankProgress(1, 4, "inter all_reduce")])
    assert ranks == [] and "does not complete" in sentence
