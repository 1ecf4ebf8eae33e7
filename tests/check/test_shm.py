"""The /dev/shm check: NCCL's shared-memory transport and torch's DataLoader workers live there."""

from __future__ import annotations

import pytest

from app.check.node.probe import Probe
from app.check.node.shm import NAME, check_shm, judge_shm
from app.check.report import FAIL, OK, WARN

MIB = 1 << 20


@pytest.mark.parametrize(("total", "free", "status"), [
    (24 << 30, 24 << 30, OK),          # a node's own tmpfs: half its memory
    (1 << 30, 1 << 30, OK),            # NCCL's troubleshooting guide: --shm-size=1g
    (512 * MIB, 512 * MIB, WARN),      # may do for a few GPUs, not for 8 with DataLoader workers
    (64 * MIB, 64 * MIB, FAIL),        # Docker's default (NVIDIA/nccl#342)
    (16 * MIB, 16 * MIB, FAIL),        # a CI container's (pytorch/torchtitan#853)
    (24 << 30, 100 * MIB, WARN),       # large but nearly full: stale /dev/shm/nccl-* files
])
def test_shm_size_is_judged_against_what_nccl_needs(total: int, free: int, status: str) -> None:
    check = judge_shm((total, free), gpus=4)
    assert check.name == NAME and check.status == status, check.detail
    if status != OK:
        assert "APPTAINER_ARGS" in check.remedy and "BINDS=/dev/shm" in check.remedy


def test_a_small_dev_shm_only_warns_where_no_two_local_ranks_share_it() -> None:
    """NCCL's shared-memory transport runs between ranks on one node; one GPU leaves only DataLoader workers."""
    assert judge_shm((64 * MIB, 64 * MIB), gpus=1).status == WARN
    assert judge_shm((64 * MIB, 64 * MIB), gpus=2).status == FAIL


def test_a_node_without_dev_shm_fails(tmp_path) -> None:
    (tmp_path / "dev").mkdir()
    [check] = check_shm(Probe.tree(tmp_path), gpus=4)
    assert check.status == FAIL and "no /dev/shm" in check.detail


def test_the_size_is_read_from_the_filesystem_at_dev_shm(tmp_path) -> None:
    (tmp_path / "dev" / "shm").mkdir(parents=True)
    [check] = check_shm(Probe.tree(tmp_path), gpus=4)
    assert check.name == NAME and ("GiB" in check.detail or "MiB" in check.detail)
