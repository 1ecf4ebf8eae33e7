"""The locked-memory limit (RLIMIT_MEMLOCK): RDMA devices (InfiniBand and RoCE through verbs, AWS EFA) and
Slingshot's cxi pin the memory they register, and the kernel refuses registrations beyond the limit, so NCCL's
`Call to ibv_reg_mr failed with error Cannot allocate memory` (nccl-tests#206: `ulimit -l` was 8192 KiB).
NCCL's troubleshooting guide runs containers with `--ulimit memlock=-1`, i.e. unlimited.

The limit is read from /proc/self/limits, the process's own: what a job's task inherits, which under Slurm is
the submitting shell's unless slurm.conf has PropagateResourceLimitsExcept=MEMLOCK (slurm.conf man page).
"""

from __future__ import annotations

import math

from app.check.node.network import NetworkInventory
from app.check.node.probe import Probe
from app.check.node.sysfs import read
from app.check.report import FAIL, OK, WARN, Check

NAME = "node: locked memory"
#: Below this NCCL cannot register even one connection's buffers over verbs (nccl-tests#206 failed at 8 MiB).
FLOOR = 64 << 20
REMEDY = ("the limit must be unlimited where the tasks run (check: srun bash -c 'ulimit -l'): admins set "
          "`memlock unlimited` in /etc/security/limits.conf and LimitMEMLOCK=infinity for slurmd; Slurm copies "
          "the submitting shell's limit unless slurm.conf has PropagateResourceLimitsExcept=MEMLOCK; Docker: "
          "--ulimit memlock=-1")


def memlock_limit(probe: Probe) -> float | None:
    """The soft limit in bytes (math.inf for unlimited); None when /proc/self/limits does not say."""
    for line in read(probe.proc / "self" / "limits").splitlines():
        if line.startswith("Max locked memory"):
            soft = line.split()[3]
            if soft == "unlimited":
                return math.inf
            return float(soft) if soft.isdigit() else None
    return None


def fabric_of(inv: NetworkInventory) -> str:
    """The kind of NIC on this node that registers memory, '' for none."""
    if inv.cxi:
        return "Slingshot"
    if inv.roce_ports():
        return "RoCE"
    return "InfiniBand" if inv.rdma else ""


def _size(n: float) -> str:
    return "unlimited" if n == math.inf else f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"


def judge_memlock(limit: float, fabric: str) -> list[Check]:
    detail = f"ulimit -l {_size(limit)}, " + (f"{fabric} NICs register memory" if fabric else "no RDMA device")
    if not fabric or limit == math.inf:
        return [Check(NAME, OK, detail)]
    if limit < FLOOR:
        return [Check(NAME, FAIL, f"{detail}: too low to register NCCL's buffers with the NIC", REMEDY)]
    return [Check(NAME, WARN, f"{detail}: not unlimited; large jobs may fail to register memory", REMEDY)]


def check_memlock(probe: Probe, inv: NetworkInventory) -> list[Check]:
    limit = memlock_limit(probe)
    return [] if limit is None else judge_memlock(limit, fabric_of(inv))
