"""NVIDIA Fabric Manager on NVSwitch nodes (HGX/DGX A100, H100, H200): without it CUDA does not initialise
(error 802) or NVLink SHARP fails after a restart. NVSwitch nodes are told by the nvidia-nvswitch driver's
/proc/driver/nvidia-nvswitch/devices, as the Fabric Manager service's own unit file does."""

from __future__ import annotations

from pathlib import Path

from app.check.node.fabric_manager import NAME, check_fabric_manager, fabric_states, nvswitches
from app.check.node.probe import Probe
from app.check.report import FAIL, OK

SMI_Q = """==============NVSMI LOG==============

Attached GPUs                             : 2
GPU 00000000:18:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Fabric
        State                             : {first}
        Status                            : {status}
        CliqueId                          : 0
GPU 00000000:2A:00.0
    Product Name                          : NVIDIA H100 80GB HBM3
    Fabric
        State                             : Completed
        Status                            : Success
"""


def nvswitch_node(tmp_path: Path, switches: int) -> Probe:
    devices = tmp_path / "proc" / "driver" / "nvidia-nvswitch" / "devices"
    devices.mkdir(parents=True)
    for n in range(switches):
        (devices / f"0000:0{n + 5}:00.0").mkdir()
    return Probe.tree(tmp_path)


def test_nvswitches_are_the_nvswitch_drivers_devices(tmp_path) -> None:
    assert nvswitches(nvswitch_node(tmp_path, 4)) == ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]
    assert nvswitches(Probe.tree(tmp_path / "none")) == []


def test_the_fabric_state_of_each_gpu_is_read_from_nvidia_smi_q() -> None:
    assert fabric_states(SMI_Q.format(first="In Progress", status="N/A")) == [("In Progress", "N/A"),
                                                                              ("Completed", "Success")]


def test_every_gpu_registered_with_the_fabric_passes(tmp_path) -> None:
    probe = nvswitch_node(tmp_path, 4)
    [check] = check_fabric_manager(probe, 2, query=lambda: SMI_Q.format(first="Completed", status="Success"))
    assert check.name == NAME and check.status == OK and "4 NVSwitch" in check.detail


def test_a_gpu_the_fabric_manager_has_not_set_up_fails(tmp_path) -> None:
    probe = nvswitch_node(tmp_path, 4)
    [check] = check_fabric_manager(probe, 2, query=lambda: SMI_Q.format(first="Not Started", status="N/A"))
    assert check.status == FAIL and "Not Started" in check.detail
    assert "systemctl enable --now nvidia-fabricmanager" in check.remedy


def test_nvswitches_and_no_usable_gpu_fail_even_where_nvidia_smi_says_nothing_of_the_fabric(tmp_path) -> None:
    """A100 drivers print no Fabric state; CUDA then fails with 802 and torch sees no GPU."""
    probe = nvswitch_node(tmp_path, 6)
    [check] = check_fabric_manager(probe, 0, query=lambda: "GPU 00000000:18:00.0\n    Product Name : A100\n")
    assert check.status == FAIL and "6 NVSwitch" in check.detail
    [ok] = check_fabric_manager(probe, 8, query=lambda: "GPU 00000000:18:00.0\n    Product Name : A100\n")
    assert ok.status == OK


def test_a_node_without_nvswitch_needs_no_fabric_manager(tmp_path) -> None:
    def never() -> str:
        raise AssertionError("nvidia-smi asked on a node without NVSwitch")
    [check] = check_fabric_manager(Probe.tree(tmp_path), 4, query=never)
    assert check.status == OK and "no NVSwitch" in check.detail
    assert check_fabric_manager(Probe.tree(tmp_path), 0, query=never) == []
