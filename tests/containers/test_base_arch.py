"""imagetool.basearch: a local base (`make image BASE=FILE`, a SIF, or a root file system directory) built for
another architecture than the image is refused in one line before the build starts, not after Apptainer has
unpacked gigabytes and %post stops on `uname -m`.

The stand-in bases carry the real headers: a SIF's global header (its architecture at byte 45, apptainer/sif
pkg/sif/arch.go: "02" amd64, "04" arm64) and an ELF executable's e_machine (62 x86-64, 183 AArch64).
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest
from imagetool.basearch import base_arch, check_base_arch

from app.host.common.errors import UsageError

REPO = Path(__file__).resolve().parents[2]


def sif(path: Path, arch_code: bytes) -> Path:
    """The first bytes of a SIF as Apptainer writes them: launch script, magic, version, architecture."""
    path.write_bytes(b"#!/usr/bin/env run-singularity\n".ljust(32, b"\0") + b"SIF_MAGIC\0" + b"01\0" + arch_code
                     + b"\0" * 64)
    return path


def rootfs(root: Path, machine: int) -> Path:
    """A root file system whose /usr/bin/env is an ELF executable for `machine`."""
    (root / "usr" / "bin").mkdir(parents=True)
    header = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HH", 2, machine) + b"\0" * 44
    (root / "usr" / "bin" / "env").write_bytes(header)
    return root


@pytest.mark.parametrize(("code", "arch"), [(b"02\0", "x86_64"), (b"04\0", "aarch64"), (b"11\0", "s390x")])
def test_a_sif_names_its_architecture_in_its_header(tmp_path, code, arch):
    assert base_arch(sif(tmp_path / "base.sif", code)) == arch


@pytest.mark.parametrize(("machine", "arch"), [(62, "x86_64"), (183, "aarch64")])
def test_a_root_file_system_is_the_architecture_of_its_executables(tmp_path, machine, arch):
    assert base_arch(rootfs(tmp_path / "root", machine)) == arch


def test_a_base_whose_architecture_cannot_be_read_is_left_to_the_build(tmp_path):
    (tmp_path / "other.img").write_bytes(b"not a SIF")
    assert base_arch(tmp_path / "other.img") is None
    assert base_arch(tmp_path / "empty-dir") is None
    check_base_arch(tmp_path / "other.img", "x86_64")


def test_a_base_of_the_image_architecture_is_taken(tmp_path):
    check_base_arch(sif(tmp_path / "ngc-pytorch-aarch64.sif", b"04\0"), "aarch64")


def test_an_aarch64_base_for_an_x86_64_image_is_refused_with_the_fix(tmp_path):
    base = sif(tmp_path / "ngc-pytorch-aarch64.sif", b"04\0")
    with pytest.raises(UsageError, match=r"ngc-pytorch-aarch64\.sif is an aarch64 image, but ARCH=x86_64 builds "
                                         r"an x86_64 one.*make base ARCH=x86_64.*make image ARCH=aarch64"):
        check_base_arch(base, "x86_64")


def test_make_image_with_a_base_of_another_architecture_stops_in_one_line_before_the_build(tmp_path):
    base = rootfs(tmp_path / "arm-rootfs", 183)
    result = subprocess.run([sys.executable, "-m", "imagetool", "check-host", "--arch", "x86_64", "--build-arch",
                             "x86_64", "--set", "BOOTSTRAP=localimage", "--set", f"BASE={base}"], cwd=REPO,
                            capture_output=True, text=True, timeout=60,
                            env={"PYTHONPATH": f"{REPO / 'containers'}:{REPO}", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "is an aarch64 image" in result.stderr, result.stderr
