"""app/host/launch/rendezvous.py: the head node's fast address, or the one you give, and who hosts the store."""

from __future__ import annotations

import pytest

from app.host.common.errors import UsageError
from app.host.launch.rendezvous import rendezvous

IP = {"lo": "1: lo    inet 127.0.0.1/8 scope host lo", "eth0": "2: eth0    inet 10.0.0.5/24 scope global eth0",
      "ib0": "3: ib0    inet 10.1.2.3/16 brd 10.1.255.255 scope global ib0"}


def head_node(argv):
    """`ip`, `getent` and `uname` as a head node answers: ib0 beside lo and the management eth0, named nid001000."""
    if argv[0] == "uname":
        return "nid001000\n"
    if argv[0] == "getent":
        return {"localhost": "127.0.0.1 STREAM localhost\n127.0.0.1 DGRAM\n"}.get(argv[2], "")
    return IP.get(argv[-1], "") + "\n" if argv[-2] == "dev" else "\n".join(IP.values()) + "\n"


@pytest.mark.parametrize("head", ["node1", "x1000c0s0b0n0"])
def test_the_first_fast_interface_wins_and_this_node_hosts_the_store(head):
    meeting = rendezvous(head, "29400", "", "hsn0 ib0", False, head_node)
    assert (meeting.host, meeting.owner) == ("10.1.2.3", "nid001000")
    assert f"(ib0 of head node {head}; nid001000 hosts the store" in meeting.said


def test_without_a_fast_interface_the_head_nodes_name_and_still_this_node_hosts():
    assert rendezvous("node1.example.org", "1", "", "hsn0", False, head_node)[:2] == ("node1.example.org", "nid001000")


@pytest.mark.parametrize("given", ["10.1.2.3", "localhost"])
def test_an_address_of_the_head_node_you_give_is_hosted_here(given):
    assert rendezvous("node1", "1", given, "ib0", False, head_node)[:2] == (given, "nid001000")


def test_an_address_of_no_node_here_is_refused_with_one_that_is():
    with pytest.raises(UsageError, match=r"its addresses: 127.0.0.1 10.0.0.5 10.1.2.3 \); give one of them, e.g. "
                                         r"RDZV_HOST=10.0.0.5, or unset RDZV_HOST"):
        rendezvous("node1", "1", "10.9.9.9", "ib0", False, head_node)


def test_without_ip_torchrun_decides_and_a_dry_run_asks_this_machine_nothing():
    assert rendezvous("node1", "1", "10.9.9.9", "ib0", False, lambda argv: "").owner == ""
    planned = rendezvous("node1", "29400", "", "ib0", True, lambda argv: pytest.fail(f"ran {argv}"))
    assert (planned.host, planned.owner) == ("node1", "")
