"""containers/check-build-host.sh: `make image` stops early with the fix when the host cannot build."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "containers" / "check-build-host.sh"


@pytest.fixture
def host(tmp_path: Path) -> dict[str, str]:
    """A host with a (fake) apptainer, a subuid entry for this user and no binfmt registrations."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "apptainer").write_text("#!/bin/sh\necho 'apptainer version 1.4.5'\n")
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


def fake_version(host: dict[str, str], tmp_path: Path, line: str) -> dict[str, str]:
    tool = tmp_path / "bin" / "versioned"
    tool.write_text(f"#!/bin/sh\necho '{line}'\n")
    tool.chmod(0o755)
    return {**host, "APPTAINER": str(tool)}


@pytest.mark.parametrize(("line", "ok"), [
    ("apptainer version 1.4.5", True),
    ("apptainer version 1.2.0", True),
    ("apptainer version 1.1.9-1.el8", False),
    ("singularity-ce version 4.1.2-jammy", True),
    ("singularity-ce version 3.11.4", False),
    ("singularity version 3.8.7-1.el8", False),
])
def test_the_apptainer_version_is_read_and_too_old_ones_are_refused_with_the_fix(host, tmp_path, line, ok):
    result = check(fake_version(host, tmp_path, line), "x86_64")
    assert (result.returncode == 0) == ok, result.stderr
    if not ok:
        assert result.stderr.count("\n") == 1 and "too old to build these images" in result.stderr


def test_a_version_that_cannot_be_read_is_refused(host, tmp_path):
    result = check(fake_version(host, tmp_path, "something else"), "x86_64")
    assert result.returncode == 1 and "no version" in result.stderr


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
