"""GPU/NIC affinity as `nvidia-smi topo -m` shows it: recorded in the report for the reader."""

from __future__ import annotations

import shutil
import subprocess

from app.check.node.gpu import NVIDIA_SMI_TIMEOUT_S
from app.check.report import OK, WARN, Check


def topology_matrix() -> tuple[Check, str]:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return Check("topology: GPU/NIC affinity", OK, "nvidia-smi not found: no GPU topology to record"), ""
    try:
        out = subprocess.run([smi, "topo", "-m"], capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S)
    except (subprocess.TimeoutExpired, OSError) as err:
        return Check(
            "topology: GPU/NIC affinity",
            WARN,
            f"nvidia-smi topo -m failed ({type(err).__name__})",
            "check the driver: nvidia-smi should answer within seconds",
        ), ""
    if out.returncode != 0:
        return Check(
            "topology: GPU/NIC affinity",
            WARN,
            f"nvidia-smi topo -m exited {out.returncode}",
            "check the driver (nvidia-smi)",
        ), ""
    return Check("topology: GPU/NIC affinity", OK, "recorded (see the topology section)"), out.stdout
