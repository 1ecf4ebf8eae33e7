"""The rendezvous port's policy, in one place (standard library only, Python 3.6: the job scripts' launcher and the
trainer both import it). Which port the ranks of a job meet on, first that applies:

1. RDZV_PORT when the user set it (app/host/launch/knobs.py hands it on);
2. else the job scripts choose one at job start: free and at random on the head node (`free_port`), and pass it
   to every node (torchrun's --rdzv-endpoint; MASTER_PORT for LAUNCH=srun);
3. else MASTER_PORT (torchrun's, or the user's), read by app/common/cluster.py;
4. else a launch without the job scripts (srun or mpiexec straight into the trainer) derives one from the job id,
   alike on every rank (`launcher_port`); without a job id, torch's 29500.
"""

import hashlib
import random
from typing import Optional, Set

#: torch's own default (torchrun's --master-port): a launch with neither a chosen port nor a job id
DEFAULT_PORT = 29500

#: Rendezvous ports lie in [PORT_LOW, PORT_HIGH): below the kernel's ephemeral range (net.ipv4.ip_local_port_range,
#: 32768 by default: Documentation/networking/ip-sysctl.rst), where no outgoing connection takes one meanwhile.
PORT_LOW = 20000
PORT_HIGH = 32768


def listening_ports(probe_root: str = "") -> Set[int]:
    """The TCP ports something listens on now: /proc/net/tcp and tcp6 rows in state 0A (LISTEN), which every
    user may read."""
    ports = set()
    for name in ("tcp", "tcp6"):
        try:
            with open(probe_root + "/proc/net/" + name) as table:
                rows = table.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 3 and fields[3] == "0A" and ":" in fields[1]:
                try:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
                except ValueError:
                    continue
    return ports


def ephemeral_start(probe_root: str = "") -> Optional[int]:
    """The first port of the kernel's ephemeral range, None when unreadable."""
    try:
        with open(probe_root + "/proc/sys/net/ipv4/ip_local_port_range") as range_file:
            first = range_file.read().split()[0]
    except (OSError, IndexError):
        return None
    return int(first) if first.isdigit() else None


def free_port(probe_root: str = "", rng: Optional[random.Random] = None) -> int:
    """A port for the rendezvous store, chosen at random on this (the head) node at job start: the first port
    up from a random start (wrapping around) that nothing listens on, below the ephemeral range (a site's lower
    one is honoured when it leaves 1000 ports). A port derived from the job id was public (squeue, qstat show
    ids) and collided (the digits of every Aurora-style PBS id gave one port). Not a secret: any user of the
    node sees a listening port (ss -ltn); the store secret is what keeps others out."""
    high = PORT_HIGH
    first = ephemeral_start(probe_root)
    if first is not None and PORT_LOW + 1000 < first < PORT_HIGH:
        high = first
    taken = listening_ports(probe_root)
    span = high - PORT_LOW
    start = (rng or random.SystemRandom()).randrange(span)
    candidates = (PORT_LOW + (start + step) % span for step in range(span))
    return next((port for port in candidates if port not in taken), PORT_LOW + (start + span - 1) % span)


def derive_port(job_id: str) -> int:
    """A port every rank of one job derives alike from the whole job id (a hash: ids that share their digits, as
    every Aurora-style PBS id's server part does, get different ports). Only for launches without a chosen port:
    the job scripts pick a free one at random on the head node and pass it on (RDZV_PORT, MASTER_PORT)."""
    digest = hashlib.sha256(job_id.encode()).digest()
    return PORT_LOW + int.from_bytes(digest[:4], "big") % (PORT_HIGH - PORT_LOW)


def launcher_port(job_id: Optional[str]) -> int:
    """The port of a launch that chose none (no job scripts, no MASTER_PORT): derived from the scheduler's job id,
    DEFAULT_PORT without one."""
    return DEFAULT_PORT if job_id is None else derive_port(job_id)
