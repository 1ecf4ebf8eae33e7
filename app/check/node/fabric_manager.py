"""NVIDIA Fabric Manager on NVSwitch nodes (HGX/DGX A100, H100, H200). It sets up the NVSwitch fabric; until
it has, CUDA does not initialise on those GPUs (error 802, "system not yet initialized"), and a Fabric Manager
restarted under running GPUs breaks NCCL's NVLink SHARP until the GPUs are reset (NVIDIA/nccl#976).

An NVSwitch node is one whose nvidia-nvswitch driver lists devices in /proc/driver/nvidia-nvswitch/devices:
the Fabric Manager service starts only there (its unit's ConditionDirectoryNotEmpty, as NVIDIA's
gpu-driver-container `_assert_nvswitch_system` checks). Whether Fabric Manager did its work is read per GPU from
`nvidia-smi -q`'s Fabric section, State `Completed` and Status `Success` (Fabric Manager user guide, "verify
... nvidia-smi -q -i 0 | grep -i -A 2 Fabric"); drivers that print no Fabric state (A100) are judged by CUDA
itself: GPUs visible to torch mean the fabric is up. NVL72 racks run Fabric Manager on the switch trays, not
on the compute node: they list no nvidia-nvswitch devices and are not judged here.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

from app.check.node.gpu import NVIDIA_SMI_TIMEOUT_S
from app.check.node.probe import Probe
from app.check.node.sysfs import entries
from app.check.report import FAIL, OK, Check

NAME = "gpu: Fabric Manager"
REMEDY = ("the admins start it and enable it at boot: systemctl enable --now nvidia-fabricmanager (its version "
          "must equal the driver's); after a restart of Fabric Manager reset the GPUs or reboot; meanwhile "
          "leave the node out (--exclude=NODE)")


def nvswitches(probe: Probe) -> list[str]:
    """The NVSwitch devices the nvidia-nvswitch driver lists (their PCI addresses); [] on other nodes."""
    return entries(probe.proc / "driver" / "nvidia-nvswitch" / "devices")


def fabric_states(smi_q: str) -> list[tuple[str, str]]:
    """(State, Status) of each GPU's Fabric section in `nvidia-smi -q` output."""
    states: list[tuple[str, str]] = []
    in_fabric, state = False, ""
    for line in smi_q.splitlines():
        key, _, value = (part.strip() for part in line.partition(":"))
        if key == "Fabric" and not value:
            in_fabric, state = True, ""
        elif in_fabric and key == "State":
            state = value
        elif in_fabric and key == "Status":
            states.append((state, value))
            in_fabric = False
    return states


def nvidia_smi_q() -> str:
    """`nvidia-smi -q`, '' when it is missing or fails."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ""
    try:
        return subprocess.run([smi, "-q"], capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S).stdout
    except (subprocess.TimeoutExpired, OSError):
        return ""


def judge_fabric_manager(switches: int, states: list[tuple[str, str]], gpu_count: int) -> Check:
    where = f"{switches} NVSwitch(es)"
    pending = [f"GPU {i} {state or '?'}/{status or '?'}" for i, (state, status) in enumerate(states)
               if state != "Completed" or status != "Success"]
    known = [s for s in states if s[0] not in ("", "N/A")]
    if pending and known:
        return Check(NAME, FAIL, f"{where}, fabric not set up: {', '.join(pending)}", REMEDY)
    if gpu_count == 0:
        return Check(NAME, FAIL, f"{where} and no GPU usable by CUDA: Fabric Manager is not running (CUDA error "
                     "802, system not yet initialized)", REMEDY)
    if known:
        return Check(NAME, OK, f"{where}, {len(states)} GPU(s) registered with the fabric")
    return Check(NAME, OK, f"{where}, {gpu_count} GPU(s) usable by CUDA (the fabric is up)")


def check_fabric_manager(probe: Probe, gpu_count: int, query: Callable[[], str] = nvidia_smi_q) -> list[Check]:
    switches = nvswitches(probe)
    if not switches:
        return [Check(NAME, OK, "no NVSwitch: Fabric Manager not needed")] if gpu_count else []
    return [judge_fabric_manager(len(switches), fabric_states(query()), gpu_count)]
