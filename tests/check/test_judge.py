"""Rank 0's judgement as pure functions: results in, tables and checks out, no processes."""

from __future__ import annotations

import json

import pytest

from app.check.collectives import Scope
from app.check.judge import judge_collectives, judge_deadline, judge_process_group, merge_by_node
from app.check.protocol import Measurement, NodeReport, Plan, RankResults
from app.check.report import FAIL, OK, Check

NODES = ["n1", "n1", "n2", "n2"]
SCOPES = [Scope("inter", "across nodes (one rank per node, 2 ranks)", (0, 2)),
          Scope("all", "all ranks (4)", (0, 1, 2, 3))]
MIB = 1 << 20


def results(seconds: dict[int, float], wrong_on: int | None = None) -> list[RankResults]:
    """Four ranks that measured all_reduce of 1 MiB in every scope they belong to."""
    out = []
    for rank in range(4):
        rows, bad = {}, {}
        for scope in SCOPES:
            if rank in scope.ranks:
                wrong = 7 if rank == wrong_on else 0
                rows[scope.key] = [Measurement("all_reduce", MIB, MIB // 4, seconds[rank], wrong)]
                bad[f"{scope.key} all_reduce"] = [wrong_on] if wrong_on is not None else []
        out.append(RankResults(SCOPES, rows, bad))
    return out


def test_the_slowest_rank_sets_the_time_and_busbw_follows_nccl_tests():
    tables, _ = judge_collectives(results({0: 0.001, 1: 0.001, 2: 0.004, 3: 0.002}), NODES, {})
    row = tables["all"][0]
    assert row.time_us == pytest.approx(4000)
    assert row.algbw == pytest.approx(MIB / 0.004 / 1e9)
    assert row.busbw == pytest.approx(row.algbw * 2 * 3 / 4)


def test_wrong_elements_add_up_and_the_source_rank_and_node_are_named():
    _, checks = judge_collectives(results(dict.fromkeys(range(4), 0.001), wrong_on=2), NODES, {})
    by_name = {c.name: c for c in checks}
    assert by_name["correctness: all"].status == FAIL
    assert "7 wrong elements in 1 runs" in by_name["correctness: all"].detail
    assert "rank 2 on n2" in by_name["correctness: all"].detail


@pytest.mark.parametrize(("minimum", "status"), [(0.0, OK), (0.1, OK), (100.0, FAIL)])
def test_bandwidth_is_judged_per_scope_kind_against_its_threshold(minimum, status):
    _, checks = judge_collectives(results(dict.fromkeys(range(4), 0.001)), NODES, {"inter": minimum})
    inter = next(c for c in checks if c.name == "bandwidth: inter")
    assert inter.status == status
    assert (f"below {minimum:g} GB/s" in inter.detail) == (status == FAIL)
    assert next(c for c in checks if c.name == "bandwidth: all").status == OK  # no threshold for 'all'


def test_each_rank_that_could_not_join_the_process_group_is_named_with_its_node():
    checks = judge_process_group(["", "", "timed out", ""], NODES, "gloo")
    assert [(c.status, c.where) for c in checks] == [(FAIL, "n2 r2")]
    assert judge_process_group(["", ""], NODES[:2], "gloo")[0].detail == "2 ranks joined (gloo)"


def test_a_deadline_names_the_stragglers_by_node_and_rank():
    check = judge_deadline("collectives", 20, [3], "rank 3 stopped answering", NODES)
    assert (check.status, check.stage, check.where) == (FAIL, "deadline", "n2 r3")


def test_identical_node_results_merge_into_one_line_for_all_nodes():
    same = [Check("gpu: devices", OK, "none"), Check("gpu: devices", OK, "none")]
    assert [c.where for c in merge_by_node(same, ["n1", "n2"], ["n1", "n2"])] == ["all nodes"]


def test_records_survive_the_trip_through_the_store_as_json():
    sent = results(dict.fromkeys(range(4), 0.001), wrong_on=1)[0]
    assert RankResults.from_json(json.loads(json.dumps(sent.to_json()))) == sent
    report = NodeReport({"rank": 0}, [Check("launch", OK, "torchrun")])
    assert NodeReport.from_json(json.loads(json.dumps(report.to_json()))) == report
    assert Plan.from_json(json.loads(json.dumps(Plan(True, 0, ["n1"]).to_json()))) == Plan(True, 0, ["n1"])


def test_one_rank_measures_no_bandwidth_and_no_site_threshold_applies():
    alone = [RankResults([Scope("all", "all ranks (1)", (0,))],
                         {"all": [Measurement("all_reduce", MIB, MIB // 4, 0.001, 0)]}, {})]
    _, checks = judge_collectives(alone, ["n1"], {"all": 45.0})
    bandwidth = next(c for c in checks if c.name == "bandwidth: all")
    assert bandwidth.status == OK
    assert "nothing measured" in bandwidth.detail and "below" not in bandwidth.detail


@pytest.mark.parametrize(("thresholds", "status"), [
    ({"all": 1000.0, "intra": 0.1}, OK), ({"all": 0.1, "intra": 1000.0}, FAIL),
    ({"all": 1000.0}, FAIL),  # no intra figure: the one given for 'all' is all there is
])
def test_a_scope_within_one_node_is_held_to_the_intra_threshold_not_the_cross_node_one(thresholds, status):
    one_node = ["n1", "n1", "n1", "n1"]
    scopes = [Scope("all", "all ranks (4)", (0, 1, 2, 3))]
    ranks = [RankResults(scopes, {"all": [Measurement("all_reduce", MIB, MIB // 4, 0.001, 0)]}, {})
             for _ in range(4)]
    _, checks = judge_collectives(ranks, one_node, thresholds)
    bandwidth = next(c for c in checks if c.name == "bandwidth: all")
    assert bandwidth.status == status
    assert "within one node" in bandwidth.detail
