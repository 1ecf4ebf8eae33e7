"""The node's NVIDIA driver against the CUDA the image's torch was built for: CUDA 11.x, 12.x and 13.x run
on any driver of at least their family's minimum (NVIDIA's minor version compatibility)."""

from __future__ import annotations

import pytest

from app.check.node.driver import NAME, check_driver, judge_driver
from app.check.node.probe import Probe
from app.check.report import FAIL, OK

VERSION = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {driver}  Release Build  "
           "(dvs-builder@U16-I3-B03-4-3)  Thu Oct 30 2025\nGCC version:  gcc version 12.2.0\n")


@pytest.mark.parametrize(("driver", "cuda", "status"), [
    ("570.195.03", "12.8", OK),
    ("535.129.03", "12.8", OK),        # minor version compatibility within 12.x
    ("525.60.13", "12.1", OK),
    ("520.61.05", "12.1", FAIL),
    ("550.54.15", "13.0", FAIL),       # 13.x needs a 580 driver
    ("580.82.07", "13.0", OK),
    ("470.256.02", "11.8", OK),
    ("450.36.06", "11.8", FAIL),
])
def test_the_driver_must_reach_the_minimum_of_the_cuda_family(driver: str, cuda: str, status: str) -> None:
    check = judge_driver(driver, cuda)
    assert check.name == NAME and check.status == status, check.detail
    assert driver in check.detail and cuda in check.detail
    if status == FAIL:
        assert "IMAGE=" in check.remedy


def test_the_driver_is_read_from_proc_driver_nvidia_version(tmp_path) -> None:
    version = tmp_path / "proc" / "driver" / "nvidia" / "version"
    version.parent.mkdir(parents=True)
    version.write_text(VERSION.format(driver="520.61.05"))
    [check] = check_driver(Probe.tree(tmp_path), "12.8")
    assert check.status == FAIL and "520.61.05" in check.detail


def test_a_cpu_build_or_a_node_without_driver_has_nothing_to_compare(tmp_path) -> None:
    assert check_driver(Probe.tree(tmp_path), "none") == []


def image_with_compat(root, driver: str = "595.45.04"):
    """The image's CUDA compat libraries as NGC ships them: compat/lib.real/libcuda.so.1 -> libcuda.so.DRIVER."""
    compat = root / "usr" / "local" / "cuda" / "compat" / "lib.real"
    compat.mkdir(parents=True)
    (compat / f"libcuda.so.{driver}").touch()
    (compat / "libcuda.so.1").symlink_to(f"libcuda.so.{driver}")
    return compat


def node_with_driver(tmp_path, driver: str):
    version = tmp_path / "proc" / "driver" / "nvidia" / "version"
    version.parent.mkdir(parents=True)
    version.write_text(VERSION.format(driver=driver))
    return Probe.tree(tmp_path)


def test_an_older_driver_with_the_images_compat_libraries_first_passes_and_says_so(tmp_path) -> None:
    probe = node_with_driver(tmp_path, "570.124.06")
    image_with_compat(tmp_path)
    env = {"LD_LIBRARY_PATH": "/usr/local/cuda/compat/lib.real:/usr/local/nvidia/lib64"}
    [check] = check_driver(probe, "13.2", env)
    assert check.status == OK, check.detail
    assert check.detail == ("driver 570.124.06, the image's torch built for CUDA 13.2; forward compatibility on: "
                            "/usr/local/cuda/compat/lib.real (driver 595.45.04) first on LD_LIBRARY_PATH")


def test_an_older_driver_without_compat_in_use_fails_and_names_the_runscript(tmp_path) -> None:
    probe = node_with_driver(tmp_path, "570.124.06")
    image_with_compat(tmp_path)
    [check] = check_driver(probe, "13.2", {})
    assert check.status == FAIL
    assert check.detail == ("driver 570.124.06, the image's torch built for CUDA 13.2; forward compatibility off "
                            "(the image has it: /usr/local/cuda/compat/lib.real, driver 595.45.04): "
                            "CUDA 13.x needs driver 580 or newer")
    assert "apptainer run" in check.remedy and "APP_CUDA_COMPAT" in check.remedy and "IMAGE=" in check.remedy


def test_a_new_enough_driver_reports_compat_off(tmp_path) -> None:
    probe = node_with_driver(tmp_path, "595.58.03")
    image_with_compat(tmp_path)
    [check] = check_driver(probe, "13.2", {"LD_LIBRARY_PATH": "/usr/lib"})
    assert check.status == OK
    assert check.detail == ("driver 595.58.03, the image's torch built for CUDA 13.2 (at least 580); "
                            "forward compatibility off")


NGC_LIBRARY_PATH = ("/usr/local/lib/python3.12/dist-packages/torch/lib:/usr/local/cuda/compat/lib:"
                    "/usr/local/nvidia/lib:/usr/local/nvidia/lib64")


def test_ngcs_compat_lib_directory_on_the_path_is_not_compat_in_use(tmp_path) -> None:
    """NGC's ENV lists /usr/local/cuda/compat/lib, which holds no libcuda: compat is off there, and says so."""
    probe = node_with_driver(tmp_path, "570.124.06")
    image_with_compat(tmp_path)
    (tmp_path / "usr/local/cuda/compat/lib").mkdir()
    [check] = check_driver(probe, "13.2", {"LD_LIBRARY_PATH": NGC_LIBRARY_PATH})
    assert check.status == FAIL and "forward compatibility off" in check.detail, check.detail


def test_compat_first_after_ngcs_own_path_counts_as_in_use(tmp_path) -> None:
    probe = node_with_driver(tmp_path, "570.124.06")
    image_with_compat(tmp_path)
    env = {"LD_LIBRARY_PATH": "/usr/local/cuda/compat/lib.real:" + NGC_LIBRARY_PATH}
    [check] = check_driver(probe, "13.2", env)
    assert check.status == OK and "forward compatibility on" in check.detail, check.detail


@pytest.mark.parametrize(("helper", "says"), [
    ("off", "APP_CUDA_COMPAT=off kept the image's compat libraries off: unset it (auto) or set APP_CUDA_COMPAT=on"),
    ("none", "the compat step ran (APP_CUDA_COMPAT_DONE=none) and left them off: set APP_CUDA_COMPAT=on"),
])
def test_where_the_compat_step_already_ran_the_remedy_does_not_send_the_user_back_to_it(tmp_path, helper,
                                                                                          says) -> None:
    probe = node_with_driver(tmp_path, "570.124.06")
    image_with_compat(tmp_path)
    [check] = check_driver(probe, "13.2", {"LD_LIBRARY_PATH": NGC_LIBRARY_PATH, "APP_CUDA_COMPAT_DONE": helper})
    assert check.status == FAIL
    assert says in check.remedy and "apptainer run" not in check.remedy, check.remedy
