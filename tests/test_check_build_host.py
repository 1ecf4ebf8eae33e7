"""containers/check-build-host.sh: `make image` stops early with the fix when the host cannot build."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "containers" / "check-build-host.sh"


@pytest.fixture
def host(tmp_path: Path) -> dict[str, str]:
    """A host with a (fake) apptainer, a subuid entry for this user and no binfmt registrations."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "apptainer").write_text("#!/bin/sh\n")
    (bin_dir / "apptainer").chmod(0o755)
    (tmp_path / "subuid").write_text(f"{getpass.getuser()}:100000:65536\n")
    (tmp_path / "binfmt").mkdir()
    return {"APPTAINER": str(bin_dir / "apptainer"), "SUBUID_FILE": str(tmp_path / "subuid"),
            "BINFMT_DIR": str(tmp_path / "binfmt"), "HOST_ARCH": "x86_64", "PATH": "/usr/bin:/bin"}


def check(env: dict[str, str], arch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), arch], env=env, capture_output=True, text=True, timeout=30)


def test_native_build_with_apptainer_and_subuid_passes(host):
    result = check(host, "x86_64")
    assert (result.returncode, result.stderr) == (0, "")


def test_missing_apptainer_says_how_to_install_it(host):
    result = check({**host, "APPTAINER": "no-such-apptainer"}, "x86_64")
    assert result.returncode == 1
    assert "'no-such-apptainer' not found" in result.stderr
    assert "provision-apptainer.sh" in result.stderr and "module load" in result.stderr


def test_fakeroot_without_subuid_entry_says_which_command_fixes_it(host, tmp_path):
    (tmp_path / "subuid").write_text("someoneelse:100000:65536\n")
    result = check(host, "x86_64")
    assert result.returncode == 1
    assert f"apptainer config fakeroot --add {getpass.getuser()}" in result.stderr


def test_aarch64_on_x86_64_without_qemu_binfmt_says_how_to_register_it(host):
    result = check(host, "aarch64")
    assert result.returncode == 1
    assert "update-binfmts --enable qemu-aarch64" in result.stderr
    assert "on a aarch64 node" in result.stderr


def test_aarch64_on_x86_64_with_qemu_binfmt_enabled_passes(host, tmp_path):
    qemu = tmp_path / "binfmt" / "qemu-aarch64"
    qemu.write_text("enabled\ninterpreter /usr/libexec/qemu-binfmt/aarch64-binfmt-P\n")
    assert check(host, "aarch64").returncode == 0
