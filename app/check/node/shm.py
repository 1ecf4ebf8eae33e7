"""/dev/shm, where NCCL's shared-memory transport keeps its segments (one per pair of local ranks and channel,
4 to 10 MB each in the quoted failures) and torch's DataLoader workers pass their batches.

NCCL fails at init when it cannot create a segment ("Error while creating shared memory segment", NCCL's
troubleshooting guide: containers default to a small /dev/shm; give e.g. `--shm-size=1g`). On a node
/dev/shm is a tmpfs of half the memory; a container may give it a private small one: Docker's 64 MB, and
Apptainer with --contain mounts a fresh tmpfs at /dev/shm (internal/pkg/runtime/engine/apptainer/
container_linux.go, addDevMount).
"""

from __future__ import annotations

import os

from app.check.node.probe import Probe
from app.check.report import FAIL, OK, WARN, Check

NAME = "node: /dev/shm"
#: What NCCL's troubleshooting guide gives containers (`--shm-size=1g`).
NEED = 1 << 30
#: Below this NCCL's init fails with a few GPUs (Docker's 64 MB: NVIDIA/nccl#342, 16 MB: pytorch/torchtitan#853).
FLOOR = 256 << 20
REMEDY = ("give the job the node's /dev/shm: drop --contain/--containall from APPTAINER_ARGS (Apptainer then "
          "shares the host's), or bind it: BINDS=/dev/shm; Docker/Kubernetes: --shm-size=1g or --ipc=host; "
          "remove stale /dev/shm/nccl-* files of earlier jobs")


def shm_space(probe: Probe) -> tuple[int, int] | None:
    """(size, free) in bytes of the filesystem at /dev/shm; None when there is no /dev/shm."""
    try:
        stat = os.statvfs(probe.dev / "shm")
    except OSError:
        return None
    return stat.f_blocks * stat.f_frsize, stat.f_bavail * stat.f_frsize


def _size(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MiB"


def judge_shm(space: tuple[int, int] | None, gpus: int) -> Check:
    """`gpus`: the node's; NCCL's shared-memory transport runs between two or more local ranks, so below that a
    small /dev/shm only slows DataLoader workers (WARN)."""
    short = FAIL if gpus >= 2 else WARN
    if space is None:
        return Check(NAME, short, "no /dev/shm: NCCL's shared-memory transport cannot start", REMEDY)
    size, free = space
    detail = f"{_size(size)}, {_size(free)} free"
    if size < FLOOR:
        return Check(NAME, short, f"{detail}: too small for NCCL's segments (needs about {_size(NEED)})", REMEDY)
    if size < NEED:
        return Check(NAME, WARN, f"{detail}: below the {_size(NEED)} NCCL's guide gives containers", REMEDY)
    if free < FLOOR:
        return Check(NAME, WARN, f"{detail}: nearly full", REMEDY)
    return Check(NAME, OK, detail)


def check_shm(probe: Probe, gpus: int) -> list[Check]:
    return [judge_shm(shm_space(probe), gpus)]
