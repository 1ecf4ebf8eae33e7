"""containers/twin/build-twin.sh builds the twin for either architecture: the wheels it asks pip for carry that
architecture's platform tags, the x86_64 twin is built as it always was, and a wrong architecture or a missing
emulator stops in one line. pip and Apptainer are stand-ins that record their arguments (a real twin takes
minutes on x86_64 and about an hour emulated: `nox -s image_aarch64`).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "containers" / "twin" / "build-twin.sh"
TAGS = ["manylinux_2_28", "manylinux_2_27", "manylinux_2_25", "manylinux_2_18", "manylinux_2_17", "manylinux2014",
        "manylinux_2_12", "manylinux2010", "manylinux_2_5", "manylinux1"]


def _run(tmp_path: Path, *arch: str) -> tuple[subprocess.CompletedProcess[str], list[str], list[str]]:
    """build-twin.sh with python3 (its pip) and apptainer recording their arguments, one a line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    # apptainer also writes its output file, the last argument but one (the script moves it into place)
    creates = {"python3": "", "apptainer": 'eval "out=\\${$(($# - 1))}"; touch "$out"\n'}
    for name, also in creates.items():
        (bin_dir / name).write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >{tmp_path / name}.args\n{also}')
        (bin_dir / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "APPTAINER": str(bin_dir / "apptainer")}
    result = subprocess.run(["bash", str(SCRIPT), "/rootfs", str(tmp_path / "wheels"), str(tmp_path / "twin.sif"),
                             sys.executable, *arch], env=env, capture_output=True, text=True, timeout=120)
    recorded = [(tmp_path / f"{name}.args") for name in ("python3", "apptainer")]
    pip, apptainer = ([] if not path.exists() else path.read_text().splitlines() for path in recorded)
    return result, pip, apptainer


def _platforms(pip: list[str]) -> list[str]:
    return [pip[i + 1] for i, arg in enumerate(pip) if arg == "--platform"]


def test_the_aarch64_twin_downloads_aarch64_wheels_for_every_manylinux_tag(tmp_path):
    if platform.machine() != "aarch64" and not Path("/proc/sys/fs/binfmt_misc/qemu-aarch64").exists():
        pytest.skip("no QEMU aarch64 emulation registered here (build-twin.sh refuses, as the next test shows)")
    result, pip, apptainer = _run(tmp_path, "aarch64")
    assert result.returncode == 0, result.stderr
    assert _platforms(pip) == [f"{tag}_aarch64" for tag in TAGS]
    assert "torch==2.14.1" in pip and "nvidia-nccl-cu13==2.30.7" in pip
    assert apptainer[-1] == str(REPO / "containers" / "twin" / "ngc-pytorch.def")


def test_the_x86_64_twin_is_built_as_before(tmp_path):
    """The pip and Apptainer command lines of the x86_64 twin, as they were before build-twin.sh took ARCH."""
    if platform.machine() != "x86_64":
        pytest.skip("the default architecture is this machine's")
    result, pip, apptainer = _run(tmp_path)
    assert result.returncode == 0, result.stderr
    wheels = str(tmp_path / "wheels")
    assert pip == ["-m", "pip", "download", "--quiet", "--only-binary=:all:", "--python-version", "3.11",
                   *[arg for tag in TAGS for arg in ("--platform", f"{tag}_x86_64")], "--dest", wheels,
                   "torch==2.14.1", "nvidia-nccl-cu13==2.30.7", "numpy", "pyyaml", "nvidia-cuda-nvcc==13.0.88",
                   "nvidia-cuda-crt==13.0.88", "nvidia-nvvm==13.0.88", "nvidia-cuda-runtime~=13.0.0",
                   "nvidia-cuda-cccl~=13.0.0"]
    assert apptainer == ["build", "--force", "--fakeroot", "--build-arg", "ROOTFS=/rootfs", "--build-arg",
                         f"WHEELHOUSE={wheels}", "--build-arg", "TWIN_CUDA_VERSION=13.0.88", "--build-arg",
                         "TWIN_TORCH_VERSION=2.14.1", "--build-arg", "TWIN_NCCL_VERSION=2.30.7", "--mksquashfs-args",
                         "-comp zstd -Xcompression-level 3", f"{tmp_path / 'twin.sif'}.tmp",
                         str(REPO / "containers" / "twin" / "ngc-pytorch.def")]
    assert _run(tmp_path, "x86_64")[1] == pip


def test_an_unknown_architecture_stops_in_one_line_before_any_download(tmp_path):
    result, pip, apptainer = _run(tmp_path, "arm64")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "ARCH 'arm64' is neither x86_64 nor aarch64" in result.stderr
    assert (pip, apptainer) == ([], [])
