"""Finding the slow node: per-node and pairwise bandwidth compared among the nodes (app.check.localise)."""

from __future__ import annotations

from app.check.localise import SLOW_FRACTION, judge_slow_nodes, pair_scopes
from app.check.report import FAIL, OK


def test_node_pairs_form_a_ring_of_node_leaders_from_three_nodes_on():
    three = pair_scopes(["n1", "n1", "n2", "n2", "n3", "n3"])
    assert [(s.key, s.ranks) for s in three] == [("pair:n1+n2", (0, 2)), ("pair:n2+n3", (2, 4)),
                                                 ("pair:n3+n1", (4, 0))]
    assert pair_scopes(["n1", "n2"]) == []  # one pair cannot say which of its two nodes is slow


def test_the_node_in_every_slow_pair_is_named():
    pairs = {("n1", "n2"): 10.0, ("n2", "n3"): 1.0, ("n3", "n1"): 1.2}
    [check] = judge_slow_nodes({}, pairs)
    assert check.status == FAIL and check.nodes == ["n3"]
    assert "n3" in check.detail and "n1+n2 10.00" in check.detail


def test_a_node_much_slower_within_itself_than_the_others_is_named():
    [check] = judge_slow_nodes({"n1": 20.0, "n2": 21.0, "n3": 2.0}, {})
    assert check.status == FAIL and check.nodes == ["n3"]


def test_ordinary_spread_and_uniform_slowness_name_nobody():
    spread = {"n1": 20.0, "n2": 20.0 * SLOW_FRACTION * 1.5}
    uniform = {("n1", "n2"): 1.0, ("n2", "n3"): 1.0, ("n3", "n1"): 1.0}
    assert [c.status for c in judge_slow_nodes(spread, uniform)] == [OK]
    assert judge_slow_nodes({"n1": 5.0}, {}) == []  # nothing to compare with


def test_nodes_that_share_a_machine_are_not_compared_within_themselves():
    """Nodes on one machine (torchrun agents on one host, network namespaces of one kernel) measure within
    themselves at the same time, on the same cores: one of two such agents on a loaded 2-core machine
    measured a fifteenth of the other's busbw."""
    agents = {"vm/agent0": 0.46, "vm/agent1": 0.03}
    [shared] = judge_slow_nodes(agents, {}, dict.fromkeys(agents, "boot-1"))
    assert shared.status == OK
    assert "vm/agent0, vm/agent1 share a machine" in shared.detail
    mixed = {"n1": 20.0, "n2": 21.0, "n3": 2.0, "n4": 20.0, "n5": 1.0}
    [check] = judge_slow_nodes(mixed, {}, {"n4": "boot-4", "n5": "boot-4"})
    assert check.status == FAIL and check.nodes == ["n3"]
    assert "n5" not in check.detail.split("(")[0]


def test_pairs_are_compared_even_when_their_nodes_share_a_machine():
    """The pairs take turns (the ring makes each wait for the one before), so a shared machine does not skew them."""
    pairs = {("n1", "n2"): 10.0, ("n2", "n3"): 1.0, ("n3", "n1"): 1.2}
    [check] = judge_slow_nodes({}, pairs, dict.fromkeys(["n1", "n2", "n3"], "boot-1"))
    assert check.status == FAIL and check.nodes == ["n3"]
