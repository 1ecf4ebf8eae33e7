"""noxfile.py: the emulated aarch64 image build, the whole build as a job and the GPU session's whole dry plan are
sessions of their own that plain `nox` (CI) never starts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_the_slow_image_builds_are_listed_but_not_run_by_default():
    nox = shutil.which("nox") or str(Path(sys.executable).parent / "nox")
    if not Path(nox).exists():
        pytest.skip("nox is not installed")
    result = subprocess.run([nox, "-l"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    listed = {line[2:].split(" -> ")[0]: line[0] for line in result.stdout.splitlines() if " -> " in line}
    assert listed.get("image_aarch64") == "-", result.stdout
    assert listed.get("build_job") == "-", result.stdout
    assert listed.get("gpu_session_dry") == "-", result.stdout
    assert listed.get("tests") == "*"
