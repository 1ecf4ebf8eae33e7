"""torchrun's --numa-binding (torch >= 2.9, numactl in the image) from the node's sysfs (standard library only).

Each worker runs on the CPUs of its GPU's NUMA node, as CSCS pins its GH200 jobs (one NUMA node per Grace Hopper
module, four per node) and as two-socket x86 nodes want: a worker on the far socket pays for every host-to-GPU copy
and every page it touches."""

import glob
import os
from typing import List, NamedTuple, Optional

from app.host.common.errors import UsageError

#: torchrun's --numa-binding choices (torch/distributed/run.py), and this project's own: auto, none
MODES = ("node", "socket", "exclusive", "core-complex")


class NumaBinding(NamedTuple):
    """What torchrun is given, and the log line that says why (None: nothing to say)."""

    args: List[str]
    said: Optional[str]


def _read(path: str) -> str:
    try:
        with open(path) as sysfs:
            return sysfs.read().strip()
    except OSError:
        return ""


def numa_nodes_with_cpus(probe_root: str = "") -> int:
    return sum(any(c.isdigit() for c in _read(path))
               for path in glob.glob(probe_root + "/sys/devices/system/node/node[0-9]*/cpulist"))


def gpu_numa_nodes(probe_root: str = "") -> List[int]:
    """The NUMA node of each NVIDIA display/3D PCI device (vendor 0x10de, class 0x03...); -1 where sysfs does
    not know it."""
    found = []
    for device in sorted(glob.glob(probe_root + "/sys/bus/pci/devices/*")):
        files = [os.path.join(device, name) for name in ("vendor", "class", "numa_node")]
        if not all(os.access(path, os.R_OK) for path in files):
            continue
        vendor, device_class, numa_node = (_read(path) for path in files)
        if vendor == "0x10de" and device_class.startswith("0x03"):
            found.append(int(numa_node) if numa_node.lstrip("-").isdigit() else -1)
    return found


def numa_binding(mode: str, launch: str, image: str, probe_root: str = "") -> NumaBinding:
    """NUMA_BINDING=MODE as torchrun arguments. auto: `node` where the node has GPUs whose NUMA node sysfs knows
    (torch's binding fails the launch on numa_node -1) and more than one NUMA node with CPUs; not under
    LAUNCH=srun (no torchrun: srun's --cpu-bind does it) or IMAGE=none (your torch may predate the flag)."""
    why = f"NUMA_BINDING={mode}"
    if mode == "none":
        return NumaBinding([], None)
    if mode == "auto":
        if launch != "torchrun" or image == "none":
            return NumaBinding([], None)
        numa_nodes, gpus = numa_nodes_with_cpus(probe_root), gpu_numa_nodes(probe_root)
        if not gpus or numa_nodes <= 1:
            return NumaBinding([], None)
        if any(node < 0 for node in gpus):
            return NumaBinding([], "no --numa-binding: the GPUs' NUMA node is unknown (numa_node -1 in sysfs); "
                                   "workers run on any CPU (set NUMA_BINDING=none to silence this)")
        mode, why = "node", f"auto: {numa_nodes} NUMA nodes with CPUs, {len(gpus)} GPUs"
    elif mode not in MODES:
        raise UsageError(f"NUMA_BINDING={mode} is not one of auto, none, node, socket, exclusive, core-complex; "
                         "example: NUMA_BINDING=node")
    said = (f"torchrun --numa-binding={mode}: each worker on the CPUs of its GPU's NUMA node ({why}; "
            "NUMA_BINDING=none turns it off)")
    return NumaBinding(["--numa-binding=" + mode], said)
