from datetime import timedelta

import pytest
import torch
import torch.distributed as dist

from app.check.collectives import (
    COLLECTIVES,
    Scope,
    bus_factor,
    check_correctness,
    make_op,
    plan_scopes,
    time_op,
)
from app.common import injected_faults


@pytest.fixture(scope="module")
def single_rank_group():
    """A real one-rank gloo group (collectives on several ranks are tested in test_check_processes.py)."""
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1, timeout=timedelta(seconds=30))
    yield Scope("all", "all ranks (1)", (0,))
    dist.destroy_process_group()


def test_scopes_within_nodes_across_nodes_and_all():
    scopes = plan_scopes(["a", "a", "b", "b"])
    assert [(s.key, s.ranks) for s in scopes] == [
        ("intra:a", (0, 1)),
        ("intra:b", (2, 3)),
        ("inter", (0, 2)),
        ("all", (0, 1, 2, 3)),
    ]


def test_scopes_equal_to_all_ranks_are_not_repeated():
    assert [s.key for s in plan_scopes(["a", "a"])] == ["all"]
    assert [s.key for s in plan_scopes(["a", "b", "c"])] == ["all"]


@pytest.mark.parametrize(
    ("collective", "n", "factor"),
    [
        ("all_reduce", 8, 1.75),
        ("all_gather", 4, 0.75),
        ("reduce_scatter", 2, 0.5),
        ("broadcast", 8, 1.0),
        ("sendrecv", 8, 1.0),
    ],
)
def test_bus_factors_are_nccl_tests_ones(collective, n, factor):
    assert bus_factor(collective, n) == factor


@pytest.mark.parametrize("collective", [c for c in COLLECTIVES if c != "sendrecv"])
def test_known_values_come_back_right(single_rank_group, collective):
    result = check_correctness(collective, single_rank_group, None, 0, torch.device("cpu"), count=1000)
    assert result.wrong == 0 and result.bad_sources == []


@pytest.mark.parametrize("collective", ["all_reduce", "all_gather", "broadcast"])
def test_a_corrupted_contribution_is_counted_element_by_element(single_rank_group, collective):
    injected_faults.arm("check", {"APP_CHECK_FAULT": "corrupt@rank0"}, 0)
    try:
        result = check_correctness(collective, single_rank_group, None, 0, torch.device("cpu"), count=1000)
    finally:
        injected_faults.arm("check", {}, 0)
    assert result.wrong == 1000
    if collective != "all_reduce":
        assert result.bad_sources == [0]


def test_timed_op_reports_seconds_per_call(single_rank_group):
    op, count, nbytes = make_op("all_reduce", single_rank_group, None, 0, torch.device("cpu"), 4096)
    assert (count, nbytes) == (1024, 4096)
    assert 0 < time_op(op, 5, torch.device("cpu"), None) < 1
