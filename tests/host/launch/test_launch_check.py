"""app/host/launch/launch_check.py: one process on every node, judged from the launcher's reports, at 1024 nodes too."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch.launch_check import MARKER, passed, read_reports, run_launch_check, scheduler_names, verdict

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


def launcher_stub(bin_dir: Path, nodes: dict[str, str], stderr: str = "") -> Path:
    """A launcher running its command once per (hostname, scheduler name), with `uname -n` and SLURMD_NODENAME
    as each node would give them, after writing STDERR as srun's notices do."""
    runs = "\n".join(f'printf "%s\\n" "{host}" >"$d/uname-n"; SLURMD_NODENAME={name} PATH="$d:$PATH" "$@"'
                     for host, name in nodes.items())
    script = bin_dir / "launch"
    script.write_text(f'#!/bin/bash\nd=$(mktemp -d)\nprintf \'#!/bin/sh\\ncat %s/uname-n\\n\' "$d" >"$d/uname"\n'
                      f'chmod +x "$d/uname"\nprintf "{stderr}" >&2\n{runs}\n')
    script.chmod(0o755)
    return script


def test_the_launch_check_runs_the_report_through_the_launcher_and_learns_each_nodes_scheduler_name(
        tmp_path: Path) -> None:
    """The launcher's notices on stderr are not processes; each node's report pairs its hostname with its name."""
    launch = launcher_stub(tmp_path, {"node1": "node1", "x1000c0s2b0n0": "node3"},
                           stderr="srun: Job step creation temporarily disabled, retrying (Requested nodes are busy)\n"
                                  "srun: Step created for StepId=17.0\n")
    check = run_launch_check([str(launch)], ["node1", "node3"], 2)
    assert passed(check, 2) == "launcher check: one process on each of node1 x1000c0s2b0n0"
    # What each node calls itself, beside its scheduler name: what a bad-node requeue leaves out
    # (app/host/launch/bad_node_requeue.py)
    assert check.names == {"node1": "node1", "x1000c0s2b0n0": "node3"}


def test_a_launcher_that_misses_a_node_is_refused_with_what_it_said(tmp_path: Path) -> None:
    launch = launcher_stub(tmp_path, {"node1": "node1"}, stderr="srun: warning: something\n")
    with pytest.raises(UsageError) as refused:
        run_launch_check([str(launch)], ["node1", "node2"], 2)
    assert "started 1 process(es) on 1 node(s) (none on node2) but this job has 2 nodes" in str(refused.value)
    assert str(refused.value).endswith("it said on stderr: srun: warning: something")
