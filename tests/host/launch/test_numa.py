"""app/host/launch/numa.py: torchrun's --numa-binding from the node's sysfs."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch.numa import numa_binding

GH200_CPUS = ["0-71", "72-143", "144-215", "216-287"]


def node(root: Path, cpus_per_numa_node: list[str], gpu_numa_nodes: list[int]) -> str:
    for index, cpus in enumerate([*cpus_per_numa_node, "", ""]):  # the GPUs' memory: NUMA nodes without CPUs
        (root / f"sys/devices/system/node/node{index}").mkdir(parents=True)
        (root / f"sys/devices/system/node/node{index}/cpulist").write_text(cpus + "\n")
    for index, numa_node in enumerate(gpu_numa_nodes):
        device = root / f"sys/bus/pci/devices/0000:0{index}:00.0"
        device.mkdir(parents=True)
        for name, value in (("vendor", "0x10de"), ("class", "0x030200"), ("numa_node", str(numa_node))):
            (device / name).write_text(value + "\n")
    nic = root / "sys/bus/pci/devices/0000:99:00.0"
    nic.mkdir(parents=True)
    for name, value in (("vendor", "0x15b3"), ("class", "0x020700"), ("numa_node", "1")):
        (nic / name).write_text(value + "\n")
    return str(root)


def test_auto_binds_each_worker_to_its_gpus_numa_node_on_gh200(tmp_path):
    binding = numa_binding("auto", "torchrun", "app.sif", node(tmp_path, GH200_CPUS, [0, 1, 2, 3]))
    assert binding.args == ["--numa-binding=node"]
    assert "(auto: 4 NUMA nodes with CPUs, 4 GPUs; NUMA_BINDING=none turns it off)" in binding.said


@pytest.mark.parametrize(("cpus", "gpus", "launch", "image", "said"), [
    (["0-31"], [0, 0], "torchrun", "app.sif", None),  # one NUMA node: nothing to choose
    (["0-31", "32-63"], [], "torchrun", "app.sif", None),  # no GPU
    (["0-31", "32-63"], [-1, -1], "torchrun", "app.sif", "the GPUs' NUMA node is unknown (numa_node -1 in sysfs)"),
    (GH200_CPUS, [0, 1, 2, 3], "srun", "app.sif", None),  # no torchrun
    (GH200_CPUS, [0, 1, 2, 3], "torchrun", "none", None),  # your torch may predate the flag
])
def test_auto_binds_nothing_where_it_cannot_help(tmp_path, cpus, gpus, launch, image, said):
    binding = numa_binding("auto", launch, image, node(tmp_path, cpus, gpus))
    assert binding.args == []
    assert (binding.said is None) if said is None else said in binding.said


def test_a_mode_you_name_is_passed_on_and_a_wrong_one_refused(tmp_path):
    assert numa_binding("socket", "torchrun", "none", str(tmp_path)).args == ["--numa-binding=socket"]
    assert numa_binding("none", "torchrun", "app.sif", node(tmp_path, GH200_CPUS, [0, 1])).args == []
    with pytest.raises(UsageError, match="NUMA_BINDING=nodes is not one of auto, none, node, socket"):
        numa_binding("nodes", "torchrun", "app.sif", str(tmp_path))
