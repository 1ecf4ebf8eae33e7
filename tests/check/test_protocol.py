"""app/check/protocol.py: what rank 0 and the others read back from the store is checked before it is used. A
damaged or forged record (not JSON, wrong types, another rank's report, out-of-range ranks or codes, oversized)
reads as absent: no traceback, and it never names a node or sets an exit code."""

from __future__ import annotations

import json

import pytest
import torch.distributed as dist

from app.check import protocol
from app.check.report import FAIL, OK, Check
from app.common import exchange

FACTS = {"rank": 1, "local_rank": 0, "hostname": "node2", "launcher_node": "", "versions": {"torch": "2.13.0"},
         "env": {"NCCL_NET": "IB"}, "gpu_count": 4, "fast_fabric": True, "world_size": 2}


def store_with(key: str, raw: str | bytes) -> dist.Store:
    store = dist.PrefixStore(protocol.PREFIX, dist.HashStore())
    store.set(key, raw)
    return store


def plan(**changes) -> str:
    return json.dumps({"go": True, "code": 0, "nodes": ["node1", "node2"], **changes})


@pytest.mark.parametrize("raw", [
    "not json", "[]", b"\xff", json.dumps({"go": True}), plan(extra=1), plan(go="yes"), plan(code=-1),
    plan(code=True), plan(code=256), plan(nodes=["node1"]), plan(nodes=["node1", 7]), plan(nodes="node1,node2"),
    plan(nodes=["node1", "n" * 100_000]), " " * (exchange.MAX_VALUE_BYTES + 1),
])
def test_a_damaged_or_forged_plan_reads_as_absent(raw: str | bytes) -> None:
    assert protocol.receive_plan(store_with(protocol.PLAN, raw), world_size=2) is None


def test_a_plan_as_rank_0_sends_it_is_read() -> None:
    assert protocol.receive_plan(store_with(protocol.PLAN, plan()), 2) == protocol.Plan(True, 0, ["node1", "node2"])


def report(facts: dict | None = None, checks: list | None = None) -> str:
    checks = [Check("gpu: devices", OK, "4 x H100").__dict__] if checks is None else checks
    return json.dumps({"facts": FACTS if facts is None else facts, "checks": checks})


@pytest.mark.parametrize("raw", [
    "{", report({**FACTS, "rank": 0}), report({**FACTS, "rank": -1}), report({k: v for k, v in FACTS.items()
                                                                              if k != "hostname"}),
    report({**FACTS, "hostname": 7}), report({**FACTS, "versions": []}), report({**FACTS, "env": {"A": 1}}),
    report({**FACTS, "gpu_count": "four"}), report(checks={}), report(checks=[{"name": "x", "status": "EVIL"}]),
    report(checks=[{"name": "x", "status": FAIL, "detail": "d" * 100_000}]),
    report(checks=[{"name": "x", "status": FAIL, "detail": "bad", "nodes": ["node1"]}] * 10_000),
])
def test_a_node_report_that_is_damaged_forged_or_claims_another_rank_reads_as_absent(raw: str) -> None:
    store = store_with(protocol.node_key(1), raw)
    protocol.send(store, protocol.node_key(0), protocol.NodeReport({**FACTS, "rank": 0, "hostname": "node1"}, []))
    reports = protocol.receive_node_reports(store, 2)
    assert reports[0] is not None and reports[1] is None


@pytest.mark.parametrize(("raw", "code"), [("0", 0), ("3", 3), ("-1", None), ("300", None), ('"0"', None),
                                           ("true", None), ("x", None)])
def test_an_exit_code_read_back_is_a_whole_number_an_exit_status_can_hold(raw: str, code: int | None) -> None:
    assert protocol.receive_code(store_with(protocol.VERDICT, raw), protocol.VERDICT) == code
