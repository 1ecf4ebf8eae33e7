"""The locked-memory limit: RDMA (InfiniBand verbs, RoCE, EFA) and Slingshot's cxi pin the memory they register,
and RLIMIT_MEMLOCK caps it (nccl-tests#206: 8 MiB made ibv_reg_mr fail)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from app.check.node.memlock import NAME, check_memlock, judge_memlock, memlock_limit
from app.check.node.network import scan
from app.check.node.probe import Probe
from app.check.report import FAIL, OK, WARN
from tests.check.check_helpers import DATA

LIMITS = """Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max locked memory         {soft:<20} {hard:<20} bytes
Max address space         unlimited            unlimited            bytes
"""


def fake_proc(node: Path, soft: str, hard: str = "unlimited") -> Probe:
    limits = node / "proc" / "self" / "limits"
    limits.parent.mkdir(parents=True)
    limits.write_text(LIMITS.format(soft=soft, hard=hard))
    return Probe.tree(node)


def test_the_soft_limit_is_read_from_proc_self_limits(tree) -> None:
    assert memlock_limit(fake_proc(tree("ib-node"), "8388608")) == 8 << 20
    assert memlock_limit(fake_proc(tree("roce-node"), "unlimited")) == math.inf
    assert memlock_limit(Probe.tree(DATA / "mgmt-node")) is None  # no proc/self/limits in the tree: unknown


@pytest.mark.parametrize(("limit", "fabric", "status"), [
    (math.inf, "InfiniBand", OK),
    (64 << 30, "InfiniBand", WARN),
    (8 << 20, "InfiniBand", FAIL),
    (64 << 10, "Slingshot", FAIL),
    (64 << 10, "", OK),                # no RDMA device: nothing registers memory with a NIC
])
def test_a_finite_limit_on_a_node_with_rdma_is_flagged(limit: float, fabric: str, status: str) -> None:
    [check] = judge_memlock(limit, fabric)
    assert check.name == NAME and check.status == status, check.detail
    if status != OK:
        assert "ulimit -l" in check.remedy and "PropagateResourceLimitsExcept=MEMLOCK" in check.remedy


def test_the_check_names_the_fabric_of_the_node(tree) -> None:
    node = tree("ib-node")
    probe = fake_proc(node, "65536")
    [check] = check_memlock(probe, scan(probe))
    assert check.status == FAIL and "64 KiB" in check.detail and "InfiniBand" in check.detail
    assert check_memlock(Probe.tree(DATA / "mgmt-node"), scan(Probe.tree(DATA / "mgmt-node"))) == []
