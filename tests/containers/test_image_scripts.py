"""shellcheck over every script the images and their builds run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.apptainer import missing_tool

REPO = Path(__file__).resolve().parents[2]
BASH_SCRIPTS = sorted([*REPO.glob("containers/*.sh"), *REPO.glob("containers/scripts/*.sh"),
                       REPO / "tests/provision/provision-apptainer.sh"])


@pytest.mark.parametrize("script", BASH_SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_bash_script_passes_shellcheck(script):
    if shutil.which("shellcheck") is None:
        missing_tool("shellcheck is not installed")
    result = subprocess.run(["shellcheck", "--severity=style", "-x", str(script.relative_to(REPO))], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_fabric_policy_passes_shellcheck_as_posix_sh():
    """Apptainer sources it with its built-in POSIX shell interpreter: no bash-isms."""
    if shutil.which("shellcheck") is None:
        missing_tool("shellcheck is not installed")
    result = subprocess.run(["shellcheck", "--severity=style", "--shell=sh", "app/common/fabric_policy.env"], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout
