"""Where every torchrun meets, and which node hosts the store (standard library only).

The batch script runs on the head node (Slurm runs it "on the first node in the set of allocated nodes",
sbatch(1); PBS on the first node of $PBS_NODEFILE, the mother superior), so the head's address on the fast network
(IPoIB ib0 on MareNostrum, hsn0 on Slingshot) is read here, whatever the scheduler calls the node (node files may
hold FQDNs or xnames); the hostname is the fallback, and it may resolve to the management Ethernet, which is slow
but works for the rendezvous. torchrun decides who hosts the c10d store by comparing the endpoint with the
addresses its hostname resolves to (`_matches_machine_hostname`, torch/distributed/elastic/rendezvous/utils.py),
which misses "IP addresses assigned to secondary NICs"; its static rendezvous, which the job uses, serves the store
on node 0, the node the scheduler numbers first. Either way the node that owns the address must be the one that
serves: the owner, this node by `uname -n` (the name each node's wrapper compares with), is said explicitly, and
each node's wrapper refuses a node rank that disagrees with it (app/common/node_wrapper.sh).
"""

import re
from typing import Callable, List, NamedTuple, Sequence

from app.host.common.errors import UsageError
from app.host.launch.host_command import host_output as _run


class Rendezvous(NamedTuple):
    """HOST: the endpoint's address; OWNER: the node that hosts the store ('' = torchrun decides); SAID: the log."""

    host: str
    owner: str
    said: str


def addresses(ip_output: str) -> List[str]:
    """The IPv4 addresses of `ip -o -4 addr show` lines, in order."""
    return [fields[3].split("/")[0] for fields in (line.split() for line in ip_output.splitlines()) if len(fields) > 3]


def rendezvous(head_node: str, port: str, given: str, ifaces: str, dry_run: bool,
               run: Callable[[Sequence[str]], str] = _run) -> Rendezvous:
    """The rendezvous of a job whose batch script runs here, on HEAD_NODE: GIVEN (RDZV_HOST), else this node's
    address on the first of IFACES (RDZV_IFACES) that has one, else HEAD_NODE's name. DRY_RUN outside a job
    plans with HEAD_NODE's name and asks nothing of this machine."""
    if dry_run:
        host = given or head_node
        return Rendezvous(host, "", f"rendezvous on {host}:{port} (DRY_RUN=1 outside a job: in the job, the head "
                                    f"node's address on the first of {ifaces})")
    if given:
        return given_rendezvous(given, port, ifaces, run)
    me = run(["uname", "-n"]).strip()
    for iface in ifaces.split():
        found = addresses(run(["ip", "-o", "-4", "addr", "show", "dev", iface]))
        if found:
            return Rendezvous(found[0], me, f"rendezvous on {found[0]}:{port} ({iface} of head node {head_node}; "
                                            f"{me} hosts the store: the wrapper checks it is node 0)")
    # This node hosts the store even so: the node file's name for it need not be its hostname, nor resolve to the
    # address that hostname does (HPE: an FQDN on the Slingshot network), which torchrun would miss.
    return Rendezvous(head_node, me, f"rendezvous on {head_node}:{port} (head node's name; none of {ifaces} here; "
                                     f"{me} hosts the store: the wrapper checks it is node 0)")


def given_rendezvous(given: str, port: str, ifaces: str, run: Callable[[Sequence[str]], str] = _run) -> Rendezvous:
    """RDZV_HOST set by you. It must be an address of this, the head node (or a name that resolves to one): rank 0
    and the store run here, and each node's wrapper checks that this node is node 0. Any other address would leave
    no node hosting the store and every node waiting for it until the join timeout."""
    own = addresses(run(["ip", "-o", "-4", "addr", "show"]))
    if not own:
        return Rendezvous(given, "", f"rendezvous on {given}:{port} (RDZV_HOST; no `ip` here to tell whether it is "
                                     "this node's: torchrun decides who hosts the store)")
    if re.fullmatch(r"[0-9]+(\.[0-9]+){3}", given):
        wanted = {given}
    else:
        wanted = {line.split()[0] for line in run(["getent", "ahostsv4", given]).splitlines() if line.split()}
    me = run(["uname", "-n"]).strip()
    if wanted & set(own):
        return Rendezvous(given, me, f"rendezvous on {given}:{port} (RDZV_HOST, an address of head node {me}, which "
                                     "hosts the store: the wrapper checks it is node 0)")
    example = next((address for address in own if not address.startswith("127.")), "127.0.0.1")
    raise UsageError(
        f"RDZV_HOST={given} is not an address of the head node {me}, where rank 0 and the rendezvous store run (its "
        f"addresses: {''.join(address + ' ' for address in own)}); give one of them, e.g. RDZV_HOST={example}, or "
        f"unset RDZV_HOST to use its address on the first of RDZV_IFACES ({ifaces})")
