"""The launch check's verdict (standard library only): did the launcher start exactly one process on every node?

The job script runs a one-line report through the launcher (`MARKER HOSTNAME SCHEDULER_NAME INDEX` a process)
and hands its stdout here. Only marked lines count: srun and SPANK plugins write notices to stderr, and a
site's prologue may print to stdout. Each report gives the node's scheduler name beside its hostname (Slurm:
SLURMD_NODENAME; PBS: the node's index in the job, which Cray PALS exports as PALS_NODEID and TM as PBS_NODENUM,
into the node file's names): the names the nodes call themselves are what app.check and the trainer write into
nodes-to-exclude.txt, and what leaving them out needs is the scheduler's. A failure names the nodes without a
process (or with two), 16 at most: at 1024 nodes the 1023 that answered are no help.
"""

import shlex
import subprocess
from typing import Dict, List, NamedTuple, Sequence

from app.host.common.errors import UsageError
from app.host.launch.numbers import is_whole

MARKER = "ddp-launch-check"
#: What each process reports, through `sh -c` (its $0 is MARKER)
REPORT = 'echo "$0 $(uname -n) ${SLURMD_NODENAME:--} ${PALS_NODEID:-${PBS_NODENUM:--}}"'

#: Names a message lists before it says how many there were in all
SHOWN = 16


class LaunchCheck(NamedTuple):
    """What the launcher started: processes seen, hostname -> scheduler name, processes per short node name."""

    started: int
    names: Dict[str, str]
    per_node: Dict[str, int]


def short(name: str) -> str:
    return name.split(".", 1)[0]


def scheduler_names(hosts: Sequence[str], name_of: Dict[str, str]) -> List[str]:
    """HOSTS (as app.check and the trainer write them) as the scheduler names the nodes, which is what it takes to
    leave them out (Slurm's ExcNodeList): a hostname need not be the node's Slurm name (slurm.conf NodeHostname).
    NAME_OF: the launch check's pairs; a host it did not see is tried short (an FQDN's first label), then kept."""
    return [name_of.get(host) or name_of.get(short(host)) or host for host in hosts]


def first_lines(count: int, lines: Sequence[str]) -> List[str]:
    """The first COUNT, then how many there were in all when there were more."""
    return list(lines[:count]) + ([f"... ({len(lines)} in all)"] if len(lines) > count else [])


def read_reports(out: str, nodes: Sequence[str]) -> LaunchCheck:
    """Each marked line of OUT: its hostname, and its scheduler name (the node file's name at its index, where it
    gives one; else SLURMD_NODENAME; else the hostname)."""
    started, names, per_node = 0, {}, {}  # type: int, Dict[str, str], Dict[str, int]
    for line in out.splitlines():
        fields = line.split(None, 3)
        if len(fields) < 2 or fields[0] != MARKER:
            continue
        host = fields[1]
        name = fields[2] if len(fields) > 2 and fields[2] != "-" else host
        index = fields[3].strip() if len(fields) > 3 else ""
        if is_whole(index) and int(index) < len(nodes):
            name = nodes[int(index)]
        started += 1
        names[host] = name
        per_node[short(name)] = per_node.get(short(name), 0) + 1
    return LaunchCheck(started, names, per_node)


def gaps(check: LaunchCheck, nnodes: int, nodes: Sequence[str]) -> str:
    """What the check saw wrong: the nodes of NODES with no process, those with more than one (SHOWN of each at
    most, then how many). Without NODES, or where the nodes call themselves otherwise than the node list does
    (PBS node files of xnames), the processes' own hostnames instead."""
    none = [node for node in nodes if check.per_node.get(short(node), 0) == 0]
    more = sorted((f"{count} on {node}" for node, count in check.per_node.items() if count > 1),
                  key=lambda said: (said.split(" ", 2)[2], said))
    parts = []
    # Every node seen is one of NODES when the names line up: then exactly N - seen are missing
    if not nodes or len(none) > nnodes - len(check.per_node):
        parts.append("".join(name + " " for name in first_lines(SHOWN, sorted(check.names))))
    elif none:
        parts.append("none on " + " ".join(first_lines(SHOWN, none)))
    if more:
        parts.append(",".join(first_lines(SHOWN, more)))
    return "; ".join(parts)


def verdict(check: LaunchCheck, nnodes: int, nodes: Sequence[str], launcher: str, said: str) -> str:
    """'' when the launcher started exactly one process on each of the NNODES nodes, else the message that says
    which nodes and how to launch (LAUNCHER: the command as the job ran it; SAID: what it wrote on stderr)."""
    if check.started == nnodes and len(check.per_node) == nnodes:
        return ""
    return (f"the launcher started {check.started} process(es) on {len(check.per_node)} node(s) "
            f"({gaps(check, nnodes, nodes)}) but this job has {nnodes} nodes and needs exactly one torchrun per node, "
            "else the rendezvous waits for the missing nodes until it times out; the launcher was: "
            f"{launcher} (PBS: mpiexec -n NNODES --ppn 1; Slurm: srun --ntasks-per-node=1)"
            + ("; it said on stderr: " + said if said else ""))


def passed(check: LaunchCheck, nnodes: int) -> str:
    """The log line of a check that passed: the hostnames, up to SHOWN nodes."""
    if nnodes <= SHOWN:
        return "launcher check: one process on each of " + " ".join(sorted(check.names))
    return f"launcher check: one process on each of the {nnodes} nodes"


def run_launch_check(launcher: Sequence[str], nodes: Sequence[str], nnodes: int) -> LaunchCheck:
    """The report run once through LAUNCHER; UsageError when the launcher fails or the processes it started are not
    one on each node. The tutorial's mistake, torchrun on the head node only, is caught here in seconds, not at
    torchrun's join timeout."""
    command = " ".join(shlex.quote(word) for word in launcher)
    try:
        done = subprocess.run(  # noqa: UP022 (Python 3.6 has no capture_output=)
            [*launcher, "/bin/sh", "-c", REPORT, MARKER], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, check=False)
    except OSError as cause:
        raise UsageError(f"the launcher failed to start a process on the nodes: {command} cannot run "
                         f"({cause.strerror})") from None
    out, err = (stream.decode("utf-8", "surrogateescape") for stream in (done.stdout, done.stderr))
    said = " ".join(first_lines(10, err.splitlines()))
    if done.returncode:
        raise UsageError(f"the launcher failed to start a process on the nodes (exit {done.returncode}): {command} "
                         f"said: {said or 'nothing'} {' '.join(first_lines(10, out.splitlines()))}")
    check = read_reports(out, nodes)
    failed = verdict(check, nnodes, nodes, command, said)
    if failed:
        raise UsageError(failed)
    return check
