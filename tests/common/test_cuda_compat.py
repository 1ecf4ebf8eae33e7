"""app/common/cuda_compat.sh: CUDA forward compatibility chosen where it helps, refused in one line where it cannot.

Each case is a fake node root (the driver's /proc files, the image's compat directory) and an nvidia-smi stand-in
on PATH; the helper runs `env` so the test sees the LD_LIBRARY_PATH the command would get.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.host.launch.job_parts import REPO, Ran, job_parts

HELPER = REPO / "app" / "common" / "cuda_compat.sh"
IMAGE_DRIVER = "595.45.04"  # the driver the image's CUDA 13.2 compat libraries come from
H100 = "NVIDIA H100 80GB HBM3"
GEFORCE = "NVIDIA GeForce RTX 4090"


def fake_node(root: Path, driver: str | None, gpu: str = H100, compat: str | None = "lib.real") -> Path:
    """A node with DRIVER (None: no NVIDIA driver) and one GPU named GPU; the image's compat libraries under
    usr/local/cuda/compat/COMPAT (None: none), libcuda.so.1 a link to libcuda.so.IMAGE_DRIVER as NVIDIA ships it."""
    if driver is not None:
        (root / "proc/driver/nvidia/gpus/0000:1b:00.0").mkdir(parents=True)
        (root / "proc/driver/nvidia/version").write_text(
            f"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  {driver}  Release Build  (dvs-builder@U16)\n"
            "GCC version:  gcc version 12.2.0\n")
        (root / "proc/driver/nvidia/gpus/0000:1b:00.0/information").write_text(
            f"Model: \t\t {gpu}\nIRQ:   \t\t 42\nGPU UUID: \t GPU-0\n")
    if compat is not None:
        directory = root / "usr/local/cuda/compat" / compat
        directory.mkdir(parents=True)
        (directory / f"libcuda.so.{IMAGE_DRIVER}").touch()
        (directory / "libcuda.so.1").symlink_to(f"libcuda.so.{IMAGE_DRIVER}")
    return root


def run(root: Path, env: dict[str, str] | None = None, smi: str | None = None) -> subprocess.CompletedProcess:
    bin_dir = root / "bin"
    bin_dir.mkdir(exist_ok=True)
    if smi is not None:
        (bin_dir / "nvidia-smi").write_text(f"#!/bin/sh\n{smi}\n")
        (bin_dir / "nvidia-smi").chmod(0o755)
    full_env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "APP_CUDA_COMPAT_ROOT": str(root), **(env or {})}
    return subprocess.run(["sh", str(HELPER), "env"], env=full_env, capture_output=True, text=True, timeout=30)


def library_path(result: subprocess.CompletedProcess | Ran) -> str:
    values = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    return values.get("LD_LIBRARY_PATH", "")


def test_an_older_driver_on_a_datacenter_gpu_puts_the_compat_libraries_first(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "570.124.06")
    result = run(root, {"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64"})
    assert result.returncode == 0, result.stderr
    compat = f"{root}/usr/local/cuda/compat/lib.real"
    assert library_path(result) == f"{compat}:/usr/local/nvidia/lib64"
    assert result.stderr == (f"cuda-compat: driver 570.124.06 is older than the image's CUDA needs ({IMAGE_DRIVER}): "
                             f"forward compatibility on for {H100} (LD_LIBRARY_PATH starts with {compat})\n")


def test_the_compat_directory_itself_serves_where_the_image_has_no_lib_real(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "570.124.06", compat="")
    result = run(root)
    assert result.returncode == 0, result.stderr
    assert library_path(result) == f"{root}/usr/local/cuda/compat/"


def test_a_driver_as_new_as_the_images_cuda_runs_natively_and_says_nothing(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "595.58.03")
    result = run(root, {"LD_LIBRARY_PATH": "/x"})
    assert (result.returncode, library_path(result), result.stderr) == (0, "/x", "")


def test_the_driver_is_read_from_nvidia_smi_where_proc_has_no_version_file(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "570.124.06")
    (root / "proc/driver/nvidia/version").unlink()
    result = run(root, smi='case "$*" in *driver_version*) echo 570.124.06;; *name*) echo "NVIDIA H200";; esac')
    assert result.returncode == 0, result.stderr
    assert library_path(result).startswith(f"{root}/usr/local/cuda/compat/lib.real")


def test_a_geforce_gpu_below_what_runs_cuda_13_natively_is_refused_in_one_line_with_the_fix(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "570.124.06", gpu=GEFORCE)
    result = run(root)
    assert result.returncode == 7
    assert result.stdout == ""  # the command did not start
    assert result.stderr == (
        f"cuda-compat: driver 570.124.06 is older than the image's CUDA needs ({IMAGE_DRIVER}), below 580, the "
        f"oldest driver that runs CUDA 13.x, and forward compatibility does not support {GEFORCE} (data-center "
        f"GPUs only); update the node's driver to {IMAGE_DRIVER} or newer, or use an image built on an older CUDA "
        "(NGC_PYTORCH_TAG in containers/versions.env); APP_CUDA_COMPAT=off starts anyway\n")


def test_a_geforce_gpu_on_a_driver_that_runs_cuda_13_natively_starts_without_compat(tmp_path: Path) -> None:
    """CUDA's minor version compatibility: 13.x runs on any driver >= 580, so a 13.2 image needs no compat there."""
    root = fake_node(tmp_path, "580.95.05", gpu=GEFORCE)
    result = run(root, {"LD_LIBRARY_PATH": "/x"})
    assert (result.returncode, library_path(result)) == (0, "/x"), result.stderr
    assert result.stderr == (
        f"cuda-compat: driver 580.95.05 is older than the image's CUDA was built with ({IMAGE_DRIVER}) but runs "
        f"CUDA 13.x natively (minor version compatibility, driver 580 or newer; forward compatibility does not "
        f"support {GEFORCE}): compat libraries not used\n")


def test_a_driver_below_the_compat_floor_is_refused_in_one_line_with_the_fix(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "525.147.05")
    result = run(root)
    assert result.returncode == 7
    assert result.stdout == ""
    assert result.stderr == (
        f"cuda-compat: driver 525.147.05 is older than the image's CUDA needs ({IMAGE_DRIVER}), and below 535, the "
        f"oldest driver its forward compatibility supports; update the node's driver to {IMAGE_DRIVER} or newer, or "
        "use an image built on an older CUDA (NGC_PYTORCH_TAG in containers/versions.env); APP_CUDA_COMPAT=off "
        "starts anyway\n")


@pytest.mark.parametrize("setting", ["off", "OFF"])
def test_app_cuda_compat_off_leaves_everything_as_it_is(tmp_path: Path, setting: str) -> None:
    root = fake_node(tmp_path, "525.147.05", gpu=GEFORCE)
    result = run(root, {"APP_CUDA_COMPAT": setting, "LD_LIBRARY_PATH": "/x"})
    assert (result.returncode, library_path(result), result.stderr) == (0, "/x", "")


def test_app_cuda_compat_on_puts_the_compat_libraries_first_whatever_the_node(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "595.58.03", gpu=GEFORCE)
    result = run(root, {"APP_CUDA_COMPAT": "on"})
    assert result.returncode == 0, result.stderr
    assert library_path(result) == f"{root}/usr/local/cuda/compat/lib.real"


def test_compat_libraries_the_user_put_on_ld_library_path_are_kept_as_they_are(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "570.124.06")
    site = root / "opt/site/cuda-compat-13-2"
    site.mkdir(parents=True)
    (site / "libcuda.so.1").symlink_to("libcuda.so.595.58.03")
    mine = "/opt/site/cuda-compat-13-2:/usr/lib"
    result = run(root, {"LD_LIBRARY_PATH": mine})
    assert (result.returncode, library_path(result), result.stderr) == (0, mine, "")
    assert "APP_CUDA_COMPAT_DONE=kept" in result.stdout


def test_a_compat_directory_without_libcuda_on_ld_library_path_does_not_stop_compat(tmp_path: Path) -> None:
    """NGC's ENV always has /usr/local/cuda/compat/lib on LD_LIBRARY_PATH; its name says nothing."""
    root = fake_node(tmp_path, "570.124.06")
    (root / "usr/local/cuda/compat/lib").mkdir()
    result = run(root, {"LD_LIBRARY_PATH": "/usr/local/cuda/compat/lib:/usr/local/nvidia/lib64"})
    assert result.returncode == 0, result.stderr
    assert library_path(result) == (f"{root}/usr/local/cuda/compat/lib.real:/usr/local/cuda/compat/lib:"
                                    "/usr/local/nvidia/lib64")


def test_the_nodes_own_libcuda_first_on_ld_library_path_does_not_stop_compat(tmp_path: Path) -> None:
    """Apptainer's --nv puts the host's driver libraries on LD_LIBRARY_PATH: a libcuda of the node's driver."""
    root = fake_node(tmp_path, "570.124.06")
    host = root / ".singularity.d/libs"
    host.mkdir(parents=True)
    (host / "libcuda.so.1").symlink_to("libcuda.so.570.124.06")
    result = run(root, {"LD_LIBRARY_PATH": "/.singularity.d/libs"})
    assert result.returncode == 0, result.stderr
    assert library_path(result) == f"{root}/usr/local/cuda/compat/lib.real:/.singularity.d/libs"
    assert "APP_CUDA_COMPAT_DONE=on" in result.stdout


def ngc_environment(tmp_path: Path) -> Path:
    """The environment file NGC's Docker ENV becomes under Apptainer, as the NGC twin writes it
    (containers/twin/ngc-environment.sh), with the NGC base's torch site-packages."""
    scratch = tmp_path / "image"
    env = {**os.environ, "TWIN_CUDA_VERSION": "13.2.51", "TWIN_TORCH_VERSION": "2.12.0",
           "TWIN_NCCL_VERSION": "2.29.7"}
    subprocess.run(["bash", str(REPO / "containers/twin/ngc-environment.sh"), str(scratch),
                    "/usr/local/lib/python3.12/dist-packages"], env=env, check=True, timeout=30)
    return scratch / ".singularity.d/env/10-docker2singularity.sh"


def test_forward_compatibility_switches_on_in_ngcs_own_environment(tmp_path: Path) -> None:
    (tmp_path / "node").mkdir()
    root = fake_node(tmp_path / "node", "570.124.06")
    snippet = f'. "{ngc_environment(tmp_path)}"; exec sh "{HELPER}" env'
    result = subprocess.run(["sh", "-c", snippet], env={"APP_CUDA_COMPAT_ROOT": str(root)}, capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert library_path(result) == (f"{root}/usr/local/cuda/compat/lib.real:/usr/local/lib/python3.12/dist-packages/"
                                    "torch/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64")
    assert "forward compatibility on" in result.stderr


def test_a_bad_app_cuda_compat_value_is_refused_with_the_valid_ones(tmp_path: Path) -> None:
    result = run(fake_node(tmp_path, "570.124.06"), {"APP_CUDA_COMPAT": "yes"})
    assert result.returncode == 2
    assert result.stderr == ("cuda-compat: APP_CUDA_COMPAT='yes' is not one of auto, on, off "
                             "(e.g. APP_CUDA_COMPAT=off)\n")


@pytest.mark.parametrize(("driver", "compat"), [(None, "lib.real"), ("570.124.06", None)],
                         ids=["no-nvidia-driver", "image-without-compat"])
def test_nothing_happens_without_a_driver_or_without_compat_libraries(tmp_path: Path, driver, compat) -> None:
    result = run(fake_node(tmp_path, driver, compat=compat), {"LD_LIBRARY_PATH": "/x"})
    assert (result.returncode, library_path(result), result.stderr) == (0, "/x", "")


def runscript() -> str:
    """containers/app.def's %runscript, with the image's /opt/app files taken from this checkout."""
    text = (REPO / "containers" / "app.def").read_text()
    body = text.split("%runscript\n", 1)[1].split("\n%", 1)[0]
    return (body.replace("/opt/app/fabric_policy.env", str(REPO / "app/host/common/fabric_policy.env"))
            .replace("/opt/app/cuda_compat.sh", str(HELPER)))


def test_the_image_carries_the_helper_where_its_runscript_runs_it() -> None:
    text = (REPO / "containers" / "app.def").read_text()
    files = text.split("%files\n", 1)[1].split("\n%", 1)[0].split("\n")
    assert "    app/common/cuda_compat.sh /opt/app/cuda_compat.sh" in files
    assert 'exec /bin/sh /opt/app/cuda_compat.sh "$@"' in text.split("%runscript\n", 1)[1].split("\n%", 1)[0]


def test_apptainer_run_starts_the_command_with_compat_on_an_older_driver(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "570.124.06")
    env = {"PATH": "/usr/bin:/bin", "APP_CUDA_COMPAT_ROOT": str(root), "APP_FABRIC": "none"}
    result = subprocess.run(["sh", "-c", runscript(), "runscript", "env"], env=env, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr
    assert library_path(result) == f"{root}/usr/local/cuda/compat/lib.real"


def test_apptainer_run_refuses_a_geforce_before_the_command_starts(tmp_path: Path) -> None:
    root = fake_node(tmp_path, "570.124.06", gpu=GEFORCE)
    env = {"PATH": "/usr/bin:/bin", "APP_CUDA_COMPAT_ROOT": str(root), "APP_FABRIC": "none"}
    result = subprocess.run(["sh", "-c", runscript(), "runscript", "env"], env=env, capture_output=True, text=True,
                            timeout=30)
    assert (result.returncode, result.stdout) == (7, "")
    assert "forward compatibility does not support NVIDIA GeForce RTX 4090" in result.stderr


def job_step(root: Path, tmp_path: Path) -> Ran:
    """The job's step (app/host/launch/job.py JobRun.step) with no launcher and no container (as on the node inside the
    image), running `env`."""
    (tmp_path / "run").mkdir()
    return job_parts(["step"], {"HOME": str(tmp_path), "APP_CUDA_COMPAT_ROOT": str(root),
                                "RUN_DIR": str(tmp_path / "run")}, "env", nodes="node1", submit_dir=str(tmp_path))


def test_the_jobs_step_starts_its_program_with_compat_on_an_older_driver(tmp_path: Path) -> None:
    (tmp_path / "node").mkdir()
    root = fake_node(tmp_path / "node", "570.124.06")
    result = job_step(root, tmp_path)
    assert result.returncode == 0, result.stderr
    assert library_path(result).startswith(f"{root}/usr/local/cuda/compat/lib.real")


def test_the_jobs_step_stops_with_the_one_line_where_compat_cannot_help(tmp_path: Path) -> None:
    (tmp_path / "node").mkdir()
    root = fake_node(tmp_path / "node", "525.147.05")
    result = job_step(root, tmp_path)
    assert result.returncode == 7
    assert "cuda-compat: driver 525.147.05 is older than the image's CUDA needs" in result.stderr
    assert "LD_LIBRARY_PATH=" not in result.stdout


def test_apptainer_run_switches_compat_on_in_ngcs_own_environment(tmp_path: Path) -> None:
    (tmp_path / "node").mkdir()
    root = fake_node(tmp_path / "node", "570.124.06")
    snippet = f'. "{ngc_environment(tmp_path)}"; APP_FABRIC=none; export APP_FABRIC; {runscript()}'
    result = subprocess.run(["sh", "-c", snippet, "runscript", "env"], env={"APP_CUDA_COMPAT_ROOT": str(root)},
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert library_path(result).startswith(f"{root}/usr/local/cuda/compat/lib.real:")


def test_the_hosts_libcuda_bound_as_a_plain_file_does_not_stop_compat_in_an_ngc_image(tmp_path: Path) -> None:
    """Apptainer's --nv binds the host's libcuda.so.1 as a file, and NGC's ENV sets CUDA_DRIVER_VERSION."""
    root = fake_node(tmp_path, "570.124.06")
    host = root / ".singularity.d/libs"
    host.mkdir(parents=True)
    (host / "libcuda.so.1").write_bytes(b"\x7fELF")
    result = run(root, {"LD_LIBRARY_PATH": "/.singularity.d/libs", "CUDA_DRIVER_VERSION": IMAGE_DRIVER})
    assert result.returncode == 0, result.stderr
    assert library_path(result) == f"{root}/usr/local/cuda/compat/lib.real:/.singularity.d/libs"


def test_a_hosts_cuda_version_passed_in_does_not_change_which_cuda_the_image_has(tmp_path: Path) -> None:
    """NGC's ENV yields CUDA_VERSION to a value from outside (a host's `module load cuda/12.4`): the image's CUDA is
    read from its compat libraries, so a GeForce on 570 is still refused for a CUDA 13 image."""
    root = fake_node(tmp_path, "570.124.06", gpu=GEFORCE)
    result = run(root, {"CUDA_VERSION": "12.4"})
    assert result.returncode == 7, result.stderr
    assert "below 580, the oldest driver that runs CUDA 13.x" in result.stderr
