"""What rank 0 sends the others on a restart travels as JSON and arrives as the value it sent, types included;
what JSON cannot carry faithfully, or too much of it, stops every rank with one line. In this process, a world of
one on an in-memory store (the two-rank restart: test_snapshot_broadcast.py)."""

from __future__ import annotations

import json
import math
from collections import OrderedDict, defaultdict
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

from app.common.distributed import broadcast_bytes
from app.train.snapshot import dcp_metadata, wire
from app.train.snapshot.wire import NotSent, from_rank_zero
from tests.train.test_snapshot_broadcast import FIXTURES, described


@pytest.fixture
def world_of_one():
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def sent(value, **options):
    return from_rank_zero(value, what="the test's value", limit=options.pop("limit", 1 << 20), **options)


def test_what_json_alone_would_change_arrives_as_it_was_sent(world_of_one):
    state_dict = OrderedDict(weight=1.5)
    state_dict._metadata = OrderedDict([("", {"version": 1})])  # as Module.state_dict leaves it
    value = {
        "betas": (0.9, 0.95), "params": [0, 1], "state": {0: {"step": 3}, 1: {}}, "keys": {(1, "a"): None, True: 0},
        "model": state_dict, "floats": [0.1, -0.0, 1e308, 2.0**-1074], "big": 2**80, "text": "ü\ud800",
        "torch": [torch.Size([2, 3]), torch.bfloat16, torch.strided, torch.channels_last], "path": Path("/a/b"),
        "empty": ((), {}, []),
    }
    arrived = sent(value)
    assert described(arrived) == described(value)
    assert arrived["model"]._metadata == state_dict._metadata
    assert math.isnan(sent(float("nan"))) and sent(float("-inf")) == float("-inf")


def test_dcp_metadata_arrives_as_its_dataclasses_and_only_those_named_are_made(world_of_one):
    metadata = dcp_metadata.read(FIXTURES / "fsdp-format1" / "step-00000005" / ".metadata")
    arrived = sent(metadata, kinds=dcp_metadata.DATACLASSES)
    assert arrived == metadata and described(arrived) == described(metadata)
    with pytest.raises(NotSent, match=r"^rank 0 could not send the test's value: it holds a "
                                      r"torch\.distributed\.checkpoint\.metadata\.Metadata at the top"):
        sent(metadata)  # not among the kinds this exchange expects
    forged = {"dataclass": ["Popen", {"args": "touch /tmp/x"}]}
    with pytest.raises(KeyError):
        wire.decode(forged, {cls.__name__: cls for cls in dcp_metadata.DATACLASSES})


@pytest.mark.parametrize("value, where", [
    ({"optimizer": {"state": {0: {"tags": {"a"}}}}}, r"\['optimizer'\]\['state'\]\[0\]\['tags'\]"),
    ([1, b"bytes"], r"\[1\]"),
    ({"n": torch.tensor(1)}, r"\['n'\]"),
    ({"order": OrderedDict(a=1), "counts": defaultdict(int)}, r"\['counts'\]"),  # a subclass would arrive as dict
])
def test_a_type_json_does_not_carry_stops_with_one_line_naming_it_and_where_it_lies(world_of_one, value, where):
    with pytest.raises(NotSent, match=rf"^rank 0 could not send the test's value: it holds a \S+ at {where}, a type "
                                      r"ranks do not exchange \([^\n]*\)$"):
        sent(value)


def test_a_value_over_the_limit_and_a_problem_of_rank_0_stop_every_rank_with_one_line(world_of_one):
    with pytest.raises(NotSent, match=r"^rank 0 could not send the test's value: it is 1\d{4} bytes as JSON, "
                                      r"over the 10000 that ranks exchange$"):
        sent(["x" * 100] * 100, limit=10_000)
    with pytest.raises(NotSent, match=r"^rank 0 could not send the test's value: OSError: disk gone$"):
        sent(None, problem="OSError: disk gone")


def test_nothing_arrives_that_is_not_what_rank_0_writes():
    for forged in ({"tuple": 5}, {"size": [1.5]}, {"dtype": "manual_seed"}, {"tuple": [], "dict": {}},
                   {"odict": {"items": [[1]], "metadata": None}}, {"path": 1}, {"exec": "x"}):
        with pytest.raises((ValueError, KeyError, TypeError)):
            wire.decode(json.loads(json.dumps(forged)), {})


def test_a_length_over_the_limit_is_refused_before_its_bytes_are_received(world_of_one):
    """A forged length would otherwise make every rank allocate what it says."""
    with pytest.raises(ValueError, match=r"^rank 0 sent 20 bytes where 10 at most were due$"):
        broadcast_bytes(b"x" * 20, limit=10)
    assert broadcast_bytes(b"x" * 10, limit=10) == b"x" * 10
