"""Can every rank reach the rendezvous address? Resolve MASTER_ADDR, check that it is an address of
rank 0's node, and classify a failed TCP connection (refused, timed out, unresolvable)."""

from __future__ import annotations

import errno
import socket
import time

from app.check.report import FAIL, OK, Check

LOOPBACK_PREFIX = "127."


def resolve(address: str) -> list[str]:
    """IPv4 addresses of `address`; [] when it does not resolve."""
    try:
        infos = socket.getaddrinfo(address, None, socket.AF_INET, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return sorted({info[4][0] for info in infos})


def check_master_address(address: str, port: int, hosts_rank0: bool, local_addresses: list[str]) -> list[Check]:
    """Stage 'rendezvous' checks that need no peer: the address resolves, and on rank 0's node it is local."""
    name = "rendezvous: MASTER_ADDR"
    resolved = resolve(address)
    if not resolved:
        return [
            Check(
                name,
                FAIL,
                f"{address} does not resolve on this node",
                "set MASTER_ADDR to rank 0's "
                "hostname or IP as every node sees it, e.g. MASTER_ADDR=$(hostname) on the first node",
                stage="rendezvous",
            )
        ]
    if hosts_rank0 and not any(a.startswith(LOOPBACK_PREFIX) or a in local_addresses for a in resolved):
        return [
            Check(
                name,
                FAIL,
                f"{address} ({', '.join(resolved)}) is not an address of rank 0's node "
                f"(local: {', '.join(local_addresses) or 'none'})",
                "set MASTER_ADDR to the node that runs rank 0 (the first node of the job)",
                stage="rendezvous",
            )
        ]
    return [Check(name, OK, f"{address}:{port} -> {', '.join(resolved)}", stage="rendezvous")]


def wait_until_reachable(address: str, port: int, deadline_s: float, attempt_s: float = 2.0) -> Check:
    """Retry a TCP connection until it succeeds or `deadline_s` passes (rank 0 may start later than us);
    on failure, say in words why the last attempt failed."""
    end = time.monotonic() + deadline_s
    while True:
        check = classify_connect_error(address, port, max(0.1, min(attempt_s, end - time.monotonic())))
        if check.status == OK or time.monotonic() >= end:
            if check.status != OK:
                check.detail += f" (kept trying for {deadline_s:.0f}s)"
            return check
        time.sleep(min(0.2, max(0.0, end - time.monotonic())))


def classify_connect_error(address: str, port: int, timeout_s: float) -> Check:
    """Try one TCP connection and say in words why it fails."""
    name = "rendezvous: TCP connect"
    start = time.monotonic()
    try:
        with socket.create_connection((address, port), timeout=timeout_s):
            return Check(name, OK, f"{address}:{port} accepts connections", stage="rendezvous")
    except TimeoutError:
        why = "no answer (address unreachable from this node, or a firewall)"
        remedy = "use an address on a network all nodes share (the fabric's IP), check firewalls"
    except socket.gaierror:
        why = "the name does not resolve"
        remedy = "set MASTER_ADDR to a name or IP every node resolves"
    except OSError as err:
        if err.errno == errno.ECONNREFUSED:
            why = "connection refused: nothing listens there (rank 0 not started, or started elsewhere)"
            remedy = "start the launcher on every node (srun --ntasks-per-node=1 torchrun ...), rank 0 first"
        else:
            why = f"{err.strerror or err} after {time.monotonic() - start:.1f}s"
            remedy = "check the route to MASTER_ADDR from this node"
    return Check(name, FAIL, f"{address}:{port}: {why}", remedy, stage="rendezvous")
