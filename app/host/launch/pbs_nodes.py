"""The nodes of a PBS job (standard library only): $PBS_NODEFILE read, each node once, checked to resolve.

PBS Pro writes the node file with one line per MPI process, a chunk's host once for each of its mpiprocs (PBS
Professional User's Guide, "The Job's Node File"); the first line is the mother superior, where the batch script
runs, so it comes first here too.
"""

import shutil
import socket
import subprocess
from typing import List, NamedTuple, Sequence

from app.host.common.errors import UsageError

#: At most this many unknown names are looked up one by one to be named (the rest cost a DNS timeout each)
NAMED_UNKNOWN = 4


class NodeFile(NamedTuple):
    """NODES: each node once, in the file's order (the head first); FIRST_LINES: the index of each node's first
    line among the file's non-blank lines, what `pbsdsh -n INDEX` takes (OpenPBS src/cmds/pbsdsh.c)."""

    nodes: List[str]
    first_lines: List[int]


def read_node_file(text: str) -> NodeFile:
    """Each node of a node file's TEXT once (the first word of a line), with the index of its first line."""
    nodes, first_lines, seen = [], [], set()  # type: List[str], List[int], set
    for index, line in enumerate(line for line in text.splitlines() if line.split()):
        name = line.split()[0]
        if name not in seen:
            seen.add(name)
            nodes.append(name)
            first_lines.append(index)
    return NodeFile(nodes, first_lines)


def _resolve(names: Sequence[str]) -> bool:
    """Whether every one of NAMES resolves. `getent hosts` asks the resolver the nodes use (nsswitch.conf: files,
    DNS, a site's own); it exits 2 when "one or more supplied key could not be found" (getent(1)). One process for
    all the names; without getent (not glibc), the resolver through Python."""
    if shutil.which("getent") is not None:
        return subprocess.run(["getent", "hosts", *names], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    try:
        for name in names:
            socket.getaddrinfo(name, None)
    except (OSError, UnicodeError):
        return False
    return True


def unknown_names(nodes: Sequence[str]) -> List[str]:
    """The names no host answers to, up to NAMED_UNKNOWN of them. The launchers reach the nodes by these names
    (PALS' host list, the moms of TM) and the rendezvous falls back to the head's name: a node file copied from
    another job or hand-written with the wrong domain would start ranks on some nodes and leave them waiting until
    the join timeout. Cost: the head alone first (a file of names that all fail stops after one look-up, not a DNS
    timeout per node), then one look-up of all; only when that fails, one per name until NAMED_UNKNOWN are found."""
    if not _resolve(nodes[:1]):
        return list(nodes[:1])
    if _resolve(nodes):
        return []
    unknown = []  # type: List[str]
    for name in nodes[1:]:
        if not _resolve([name]):
            unknown.append(name)
            if len(unknown) == NAMED_UNKNOWN:
                break
    return unknown


def job_nodes(path: str) -> NodeFile:
    """The job's nodes from the node file at PATH; UsageError when it cannot be read, is empty, or names a host
    that does not resolve."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as node_file:
            found = read_node_file(node_file.read())
    except OSError as cause:
        raise UsageError(f"PBS_NODEFILE={path} cannot be read ({cause.strerror}); PBS sets it in a job: submit "
                         "with qsub") from None
    if not found.nodes:
        raise UsageError(f"PBS_NODEFILE={path} is empty; is this a PBS job?")
    unknown = unknown_names(found.nodes)
    if unknown:
        raise UsageError(
            f"PBS_NODEFILE={path} lists names no host answers to (getent hosts finds none): {' '.join(unknown)}; "
            "PBS writes the job's own nodes there: submit with qsub and leave PBS_NODEFILE as PBS sets it, or give "
            f"a file of names that resolve on the nodes (check one: getent hosts {unknown[0]})")
    return found
