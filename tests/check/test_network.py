import os
import shutil
import subprocess
import sys

import pytest

from app.check.node.network import Selector, check_network, scan
from app.check.node.probe import Probe
from app.check.report import FAIL, OK, WARN
from tests.check.check_helpers import DATA, REPO


def by_name(checks):
    return {c.name: c for c in checks}


def test_rdma_ports_map_to_their_netdevs_like_ibdev2netdev():
    inv = scan(Probe.tree(DATA / "ib-node"))
    ports = {(p.device, p.port): p for p in inv.rdma}
    assert ports[("mlx5_0", 1)].netdev == "ib0" and ports[("mlx5_0", 1)].active
    assert ports[("mlx5_1", 1)].netdev == "ib1" and not ports[("mlx5_1", 1)].active
    assert ports[("mlx5_0", 1)].rate.startswith("200 Gb/sec") and ports[("mlx5_0", 1)].link_layer == "InfiniBand"


def test_a_down_rdma_port_warns_and_names_the_active_ones():
    inv = scan(Probe.tree(DATA / "ib-node"))
    rdma = by_name(check_network({}, inv))["network: RDMA (InfiniBand/RoCE)"]
    assert rdma.status == WARN and "NCCL_IB_HCA=mlx5_0:1" in rdma.remedy


@pytest.mark.parametrize(
    ("value", "name", "expected"),
    [
        ("ib", "ib0", True),
        ("ib", "eth0", False),
        ("=ib0", "ib0", True),
        ("=ib0", "ib01", False),
        ("^docker,lo", "eth0", True),
        ("^docker,lo", "docker0", False),
        ("^=eth0", "eth0", False),
        ("^=eth0", "eth01", True),
        ("mlx5_0:1,mlx5_1:1", "mlx5_1", True),
        ("hsn", "hsn3", True),
    ],
)
def test_nccl_selector_prefix_exact_and_exclude_rules(value, name, expected):
    assert Selector.parse(value).matches(name) is expected


def test_socket_ifname_naming_a_missing_interface_fails_and_suggests_one():
    inv = scan(Probe.tree(DATA / "ib-node"))
    check = by_name(check_network({"NCCL_SOCKET_IFNAME": "=ib9"}, inv))["network: NCCL_SOCKET_IFNAME"]
    assert check.status == FAIL and "ib0" in check.detail and "NCCL_SOCKET_IFNAME=ib0" in check.remedy


def test_socket_ifname_matching_only_down_interfaces_fails():
    inv = scan(Probe.tree(DATA / "ib-node"))
    check = by_name(check_network({"NCCL_SOCKET_IFNAME": "=ib1"}, inv))["network: NCCL_SOCKET_IFNAME"]
    assert check.status == FAIL and "down" in check.detail


def test_gloo_socket_ifname_takes_exact_names_only():
    inv = scan(Probe.tree(DATA / "ib-node"))
    assert by_name(check_network({"GLOO_SOCKET_IFNAME": "ib"}, inv))["network: GLOO_SOCKET_IFNAME"].status == FAIL
    assert by_name(check_network({"GLOO_SOCKET_IFNAME": "ib0"}, inv))["network: GLOO_SOCKET_IFNAME"].status == OK


def test_ib_hca_must_name_an_existing_active_device():
    inv = scan(Probe.tree(DATA / "ib-node"))
    assert by_name(check_network({"NCCL_IB_HCA": "mlx5"}, inv))["network: NCCL_IB_HCA"].status == OK
    assert by_name(check_network({"NCCL_IB_HCA": "=mlx5_1"}, inv))["network: NCCL_IB_HCA"].status == FAIL
    missing = by_name(check_network({"NCCL_IB_HCA": "mlx4"}, inv))["network: NCCL_IB_HCA"]
    assert missing.status == FAIL and "mlx5_0" in missing.detail


def test_nccl_default_on_an_ib_node_picks_ib_so_no_management_warning():
    inv = scan(Probe.tree(DATA / "ib-node"))
    assert by_name(check_network({}, inv))["network: fabric vs management Ethernet"].status == OK


def test_management_ethernet_chosen_while_ib_exists_warns():
    inv = scan(Probe.tree(DATA / "ib-node"))
    check = by_name(check_network({"NCCL_SOCKET_IFNAME": "eth"}, inv))["network: fabric vs management Ethernet"]
    assert check.status == WARN and "NCCL_SOCKET_IFNAME=ib0" in check.remedy


def test_slingshot_node_without_socket_ifname_warns_towards_hsn():
    inv = scan(Probe.tree(DATA / "slingshot-node"))
    check = by_name(check_network({}, inv))["network: fabric vs management Ethernet"]
    assert check.status == WARN and "nmn0" in check.detail and "NCCL_SOCKET_IFNAME=hsn" in check.remedy
    assert (
        by_name(check_network({"NCCL_SOCKET_IFNAME": "hsn"}, inv))["network: fabric vs management Ethernet"].status
        == OK
    )


def test_cxi_devices_map_to_hsn_and_a_missing_dev_node_fails(tree):
    root = tree("slingshot-node")
    inv = scan(Probe.tree(root))
    assert [(d.name, d.netdev) for d in inv.cxi] == [("cxi0", "hsn0"), ("cxi1", "hsn1")]
    assert by_name(check_network({}, inv))["network: Slingshot cxi"].status == OK
    (root / "dev/cxi1").unlink()
    check = by_name(check_network({}, scan(Probe.tree(root))))["network: Slingshot cxi"]
    assert check.status == FAIL and "--bind /dev/cxi1" in check.remedy


def test_management_only_node_has_no_fabric_lines():
    inv = scan(Probe.tree(DATA / "mgmt-node"))
    checks = by_name(check_network({}, inv))
    assert checks["network: interfaces"].status == OK
    assert "network: fabric vs management Ethernet" not in checks and "network: Slingshot cxi" not in checks


def test_ib_disable_on_an_ib_node_warns():
    inv = scan(Probe.tree(DATA / "ib-node"))
    assert (
        by_name(check_network({"NCCL_IB_DISABLE": "1"}, inv))["network: fabric vs management Ethernet"].status == WARN
    )


def test_an_ethernet_carrying_an_active_roce_port_is_the_fabric_not_management():
    """A user's RoCE node: `ibdev2netdev` shows mlx5_N port 1 ==> ethN, and NCCL_SOCKET_IFNAME=eth0 is the fix
    it documents; eth0 is the fabric there, and the check must not condemn it or suggest it as the cure."""
    inv = scan(Probe.tree(DATA / "roce-node"))
    checks = by_name(check_network({"NCCL_SOCKET_IFNAME": "eth0"}, inv))
    assert checks["network: fabric vs management Ethernet"].status == OK
    roce = checks["network: RoCE"]
    assert roce.status == OK
    assert "mlx5_0:1->eth0" in roce.detail and "mlx5_1:1->eth1" in roce.detail
    assert "NCCL_IB_TC" in roce.detail  # the traffic class is the site's to give


@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_interfaces_are_those_of_the_process_network_namespace_not_of_whoever_mounted_sys():
    """A process in its own network namespace with the host's /sys (nsenter --net, some container runtimes,
    every node of the Slurm test cluster): sysfs lists the host's interfaces, NCCL and gloo see the
    namespace's. A fresh namespace has only `lo`, down until someone brings it up."""
    code = "from app.check.node.network import scan; print([(i.name, i.kind, i.state) for i in scan().interfaces])"
    out = subprocess.run(["unshare", "--net", sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[('lo', 'loopback', 'down')]"
