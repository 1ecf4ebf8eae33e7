"""containers/debootstrap-rootfs.sh checks the Debian archive's signatures (debootstrap --force-check-gpg, with
Debian's keyring), so a mirror that serves unsigned or wrongly signed Release files is refused."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "containers" / "debootstrap-rootfs.sh"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the script refuses to run but as root")


def _run(tmp_path: Path, *arch: str, **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "debootstrap.args"
    fake = bin_dir / "debootstrap"
    fake.write_text(f'#!/bin/bash\nprintf "%s\\n" "$@" >{record}\nmkdir -p "${{@: -2:1}}/dev"\n')
    fake.chmod(0o755)
    result = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "rootfs"), "bookworm", *arch], cwd=REPO,
                            env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", **env},
                            capture_output=True, text=True, timeout=60)
    return result, record


def test_debootstrap_checks_signatures_with_debians_keyring(tmp_path):
    keyring = tmp_path / "debian-archive-keyring.gpg"
    keyring.write_bytes(b"keys")
    result, record = _run(tmp_path, DEBIAN_KEYRING=str(keyring))
    assert result.returncode == 0, result.stderr
    args = record.read_text().splitlines()
    assert "--force-check-gpg" in args
    assert f"--keyring={keyring}" in args


def test_a_missing_keyring_stops_before_debootstrap_in_one_line(tmp_path):
    result, record = _run(tmp_path, DEBIAN_KEYRING=str(tmp_path / "absent.gpg"))
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "absent.gpg" in result.stderr and "debian-archive-keyring" in result.stderr
    assert not record.exists()


def test_an_arm64_root_is_asked_of_debootstrap_and_this_machines_by_default(tmp_path):
    keyring = tmp_path / "debian-archive-keyring.gpg"
    keyring.write_bytes(b"keys")
    result, record = _run(tmp_path, "arm64", DEBIAN_KEYRING=str(keyring))
    assert result.returncode == 0, result.stderr
    assert "--arch=arm64" in record.read_text().splitlines()
    (tmp_path / "bin").rename(tmp_path / "bin-arm64")
    result, record = _run(tmp_path, DEBIAN_KEYRING=str(keyring))
    assert result.returncode == 0, result.stderr
    assert not [arg for arg in record.read_text().splitlines() if arg.startswith("--arch")]
