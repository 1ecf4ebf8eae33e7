"""app/launch/launch_check.py: one process on every node, judged from the launcher's reports, at 1024 nodes too."""

from __future__ import annotations

import time

import pytest

from app.launch.launch_check import MARKER, passed, read_reports, scheduler_names, verdict

NODES = [f"nid{n:06d}" for n in range(1000, 2024)]


def reports(hosts):
    return "\n".join(["srun: Step created for StepId=17.0", *(f"{MARKER} {host} - -" for host in hosts)])


def test_every_node_once_passes_and_learns_each_hosts_scheduler_name():
    check = read_reports(f"{MARKER} node1 node1 -\n{MARKER} x1000c0s2b0n0 node3 -\nsite motd\n", ["node1", "node3"])
    assert verdict(check, 2, ["node1", "node3"], "srun ", "") == ""
    assert check.names == {"node1": "node1", "x1000c0s2b0n0": "node3"}
    assert passed(check, 2) == "launcher check: one process on each of node1 x1000c0s2b0n0"


def test_a_pbs_index_names_the_node_as_the_node_file_does():
    nodes = ["node1.example.org", "node2.example.org"]
    check = read_reports(f"{MARKER} x1000c0s0b0n0 - 1\n", nodes)
    assert check.names == {"x1000c0s0b0n0": "node2.example.org"}
    assert "(none on node1.example.org)" in verdict(check, 2, nodes, "m ", "")


def test_at_1024_nodes_a_missing_and_a_doubled_node_are_named_in_a_short_line_at_once():
    started = time.process_time()
    hosts = [node for node in NODES if node != "nid001900"] + ["nid001002"]
    said = verdict(read_reports(reports(hosts), NODES), len(NODES), NODES, "srun --ntasks-per-node=1 ", "srun: hi ")
    assert said.startswith("the launcher started 1024 process(es) on 1023 node(s) (none on nid001900; 2 on nid001002)")
    assert said.endswith("; it said on stderr: srun: hi ") and len(said) < 2000
    assert passed(read_reports(reports(NODES), NODES), len(NODES)) == (
        "launcher check: one process on each of the 1024 nodes")
    assert time.process_time() - started < 0.5


def test_many_missing_nodes_are_counted_and_the_first_named():
    said = verdict(read_reports(reports(NODES[:100] + NODES[400:]), NODES), len(NODES), NODES, "srun ", "")
    assert "(none on nid001100 nid001101" in said and "nid001115 ... (300 in all)) but this job has 1024" in said


def test_without_a_node_list_the_hosts_seen_are_named():
    check = read_reports(reports(["node1"]), [])
    assert "started 1 process(es) on 1 node(s) (node1 ) but this job has 2 nodes" in verdict(check, 2, [], "l ", "")


@pytest.mark.parametrize("hosts, name_of, names", [
    (["x1000c0s2b0n0", "node1.ddp.local"], {"x1000c0s2b0n0": "node3", "node1": "node1"}, ["node3", "node1"]),
    (["nid001517.alps.cscs.ch"], {"nid001517.alps.cscs.ch": "nid001517"}, ["nid001517"]),
    (["unseen.example.org"], {"other": "n9"}, ["unseen.example.org"]),  # kept as given
    (["node2"], {"node2": ""}, ["node2"]),  # an empty name is no name
])
def test_blamed_hosts_become_the_names_the_scheduler_leaves_out(hosts, name_of, names):
    assert scheduler_names(hosts, name_of) == names
