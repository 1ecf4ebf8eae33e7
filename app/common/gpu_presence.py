"""GPUs the node has, whatever this process's CUDA says: a run on a GPU node whose CUDA does not work (a host
driver older than the image's CUDA needs, an image run without `--nv`, a CPU-only torch) would otherwise train
on the CPU with gloo, four ranks to a node, with nothing but a slow step to show for it.

The node's GPUs are read from what the host's driver shows to every process, a container's included:
`/proc/driver/nvidia/gpus/<PCI address>` (one directory per GPU the driver manages) and `/dev/nvidia<N>`
(Apptainer binds the host's /dev by default; `--nv` adds the driver's libraries, not the devices).
`APP_PROBE_ROOT` prefixes both paths, for the tests' fake nodes (as in app/host/common/fabric_policy.env).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import torch

#: What CUDA 13 needs of the host (NVIDIA's CUDA 13.0 release notes: driver >= 580 on Linux).
DRIVER_FOR_CUDA_13 = "R580"


def node_gpus(env: Mapping[str, str]) -> tuple[int, str]:
    """How many NVIDIA GPUs the node's driver shows, and where that was read (0, '' when none)."""
    root = Path(env.get("APP_PROBE_ROOT", "") or "/")
    gpus = root / "proc/driver/nvidia/gpus"
    if gpus.is_dir() and (count := sum(1 for _ in gpus.iterdir())):
        return count, "/proc/driver/nvidia/gpus"
    devices = root / "dev"
    count = sum(1 for path in devices.glob("nvidia*") if re.fullmatch(r"nvidia\d+", path.name))
    return (count, "/dev/nvidia*") if count else (0, "")


def hidden_on_purpose(env: Mapping[str, str]) -> bool:
    """CUDA_VISIBLE_DEVICES set empty (or -1): the user asked for no GPU."""
    return "CUDA_VISIBLE_DEVICES" in env and env["CUDA_VISIBLE_DEVICES"].strip() in ("", "-1")


def why_cuda_fails() -> str:
    """CUDA's own words for why it does not work here."""
    if torch.version.cuda is None:
        return f"torch {torch.__version__} is a CPU-only build"
    try:
        torch.cuda.init()
    except Exception as err:  # CUDA says why in its exception: driver too old, no device, no libcuda
        return str(err).strip().splitlines()[0][:200]
    return "torch.cuda.is_available() is False"


def unusable_gpus(env: Mapping[str, str]) -> str | None:
    """A one-line cause and fix when the node has GPUs this process cannot use; None when it has none, they
    work, or they were hidden on purpose."""
    if hidden_on_purpose(env) or torch.cuda.is_available():
        return None
    count, where = node_gpus(env)
    if not count:
        return None
    return (f"this node has {count} NVIDIA GPU(s) ({where}) but CUDA does not work here ({why_cuda_fails()}), so "
            f"the run would train on the CPU; run the image with --nv (the job scripts do: "
            f"apptainer exec --nv app.sif ...), check the host driver is new enough for CUDA "
            f"{torch.version.cuda or '13'} ({DRIVER_FOR_CUDA_13} or newer for CUDA 13; nvidia-smi shows it), or "
            f"train on the CPU on purpose: CUDA_VISIBLE_DEVICES= (empty) or dist.backend=gloo")
