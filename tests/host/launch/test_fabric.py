"""app/host/launch/fabric.py: FABRIC checked against the head node before any step."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch.fabric import check_fabric


def node(root: Path, *files: str) -> str:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).touch()
    return str(root)


@pytest.mark.parametrize("fabric, files, said", [
    ("infiniband", ["sys/class/infiniband/mlx5_0/ports"], []),
    ("infiniband", [], ["warning: FABRIC=infiniband but no device under /sys/class/infiniband on gpu01: NCCL will "
                        "stop with 'Failed to initialize any NET plugin' (NCCL 2.26 and older: 'network IB not "
                        "found'); wrong partition, or set FABRIC=none"]),
    ("roce", [], ["warning: FABRIC=roce but no RDMA device under /sys/class/infiniband on gpu01: NCCL will stop "
                  "with 'Failed to initialize any NET plugin' (NCCL 2.26 and older: 'network IB not found'); wrong "
                  "nodes, or set FABRIC=none"]),
    ("slingshot", ["dev/cxi0"], []),
    ("slingshot", ["dev/cxi"], ["warning: FABRIC=slingshot but no {root}/dev/cxi* on gpu01: libfabric's cxi "
                                "provider will find no NIC; wrong nodes, or set FABRIC=none"]),
    ("none", [], ["FABRIC=none: no NCCL network settings (single node, or TCP sockets)"]),
])
def test_a_fabric_the_head_node_lacks_is_a_warning_in_the_log(tmp_path, fabric, files, said):
    root = node(tmp_path, *files)
    got = check_fabric(fabric, "", root, "", host="gpu01")
    assert got == (fabric, [line.format(root=root) for line in said])


def test_auto_takes_what_the_policy_detected_and_says_so(tmp_path):
    got = check_fabric("auto", "slingshot", node(tmp_path, "dev/cxi0"), "", host="h")
    assert got == ("slingshot", ["FABRIC=auto: detected slingshot"])


@pytest.mark.parametrize("fabric, detected, provider, message", [
    ("ib", "", "", "FABRIC=ib is not one of infiniband, roce, slingshot, auto, none; example: FABRIC=none (plain "
                   "Ethernet: NCCL's TCP sockets), or FABRIC=infiniband"),
    ("sockets", "", "", "FABRIC=sockets is not one of infiniband, roce, slingshot, auto, none; example: FABRIC=none "
                        "(plain Ethernet"),  # the docs' word for it once; FABRIC=infiniband set NCCL_NET=IB
    ("auto", "", "", "FABRIC= is not one of"),  # the policy detected nothing
    ("slingshot", "", "efa", "FI_PROVIDER=efa is AWS's provider and does not exist on Slingshot; unset it (the fabric "
                             "policy sets FI_PROVIDER=cxi) or set FI_PROVIDER=cxi"),
])
def test_a_bad_fabric_stops_the_job_in_one_line(tmp_path, fabric, detected, provider, message):
    with pytest.raises(UsageError) as raised:
        check_fabric(fabric, detected, str(tmp_path), provider, host="h")
    assert str(raised.value).startswith(message)
