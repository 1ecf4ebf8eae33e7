"""What each rank says about the machine it runs on (app/check/node/collect.py)."""

from __future__ import annotations

import socket
from pathlib import Path

from app.check.node.collect import machine_of, node_names
from app.check.node.probe import HOST, Probe


def test_the_machine_is_the_kernels_boot_id_shared_by_its_namespaces(tmp_path):
    boot_id = tmp_path / "proc/sys/kernel/random/boot_id"
    boot_id.parent.mkdir(parents=True)
    boot_id.write_text("0f4c1e0a-5b1e-4c8e-9d61-2f3a8b9c7d10\n")
    assert machine_of(Probe.tree(tmp_path)) == "0f4c1e0a-5b1e-4c8e-9d61-2f3a8b9c7d10"
    assert machine_of(HOST) == Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def test_without_a_boot_id_the_machine_is_the_hostname(tmp_path):
    assert machine_of(Probe.tree(tmp_path)) == socket.gethostname()


def test_agents_on_one_host_are_named_as_nodes_of_their_own():
    facts = [{"hostname": "vm", "launcher_node": "0"}, {"hostname": "vm", "launcher_node": "1"},
             {"hostname": "n2", "launcher_node": "2"}]
    assert node_names(facts) == ["vm/agent0", "vm/agent1", "n2"]
