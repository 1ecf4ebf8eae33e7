"""The aarch64 (GH200) images' wheelhouses resolve from their locks for aarch64, without building the images (an
emulated build takes an hour: `nox -s image_aarch64`). Every aarch64 flavour (containers/arch/*.env with
ARCH=aarch64) is checked: each locked wheel installs on the flavour's Python and aarch64, and the locked files
alone satisfy every requirement of the packages the image installs (pip resolves them with no index).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from imagetool.buildargs import render_build_args
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import parse_wheel_filename

from tests.fixtures.apptainer import missing_tool

REPO = Path(__file__).resolve().parents[2]
ARCH_DIR = REPO / "containers" / "arch"
AARCH64_FLAVOURS = sorted(path.stem for path in ARCH_DIR.glob("*.env")
                          if "ARCH=aarch64" in path.read_text().splitlines())
#: The oldest glibc of an aarch64 base: Debian 12's 2.36 (the twin); NGC 26.05's Ubuntu 24.04 has 2.39
BASE_GLIBC_MINOR = 36
#: What pip prints when it cannot reach an index at all (a wheel PyPI lacks is a failure, not this)
NO_NETWORK = ("Max retries exceeded", "Temporary failure in name resolution", "Network is unreachable",
              "Name or service not known")


def _locked_files(flavour: str) -> list[str]:
    lock = REPO / "containers" / "locks" / f"wheelhouse-{flavour}.txt"
    return [line.rsplit("# ", 1)[1] for line in lock.read_text().splitlines() if line and not line.startswith("#")]


def _supported_tags(python_version: str) -> set[Tag]:
    """What pip on the image's CPython takes on aarch64 with glibc 2.BASE_GLIBC_MINOR."""
    version = tuple(int(part) for part in python_version.split("."))
    platforms = [f"manylinux_2_{minor}_aarch64" for minor in range(BASE_GLIBC_MINOR, 16, -1)]
    platforms += ["manylinux2014_aarch64", "linux_aarch64"]
    return {*cpython_tags(version, platforms=platforms), *compatible_tags(version, platforms=platforms)}


def test_there_are_aarch64_flavours_to_check():
    assert {"aarch64", "ngc-twin-aarch64"} <= set(AARCH64_FLAVOURS)


@pytest.mark.parametrize("flavour", AARCH64_FLAVOURS)
def test_every_locked_wheel_installs_on_the_flavours_python_on_aarch64(flavour):
    args = render_build_args(flavour)
    supported = _supported_tags(args["PYTHON_VERSION"])
    wheels = [name for name in _locked_files(flavour) if name.endswith(".whl")]
    assert wheels
    foreign = [name for name in wheels if not parse_wheel_filename(name)[3] & supported]
    assert foreign == [], f"{flavour}: not installable on CPython {args['PYTHON_VERSION']} / aarch64"


def _deepspeed_requirements(sdist: Path, version: str, with_cuda: bool) -> list[str]:
    """DeepSpeed's own requirements.txt but torch (the base's), as containers/lock-wheelhouse.sh reads it."""
    with tarfile.open(sdist) as archive:
        member = archive.extractfile(f"deepspeed-{version}/requirements/requirements.txt")
        assert member is not None
        lines = member.read().decode().splitlines()
    names = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
    names = [name for name in names if Requirement(name).name != "torch"]
    return [*names, "nvidia-ml-py"] if with_cuda else names


@pytest.mark.slow  # downloads each flavour's locked files (about 20 MB) from PyPI
@pytest.mark.parametrize("flavour", AARCH64_FLAVOURS)
def test_the_locked_files_alone_resolve_every_requirement_on_aarch64(flavour, tmp_path):
    args = render_build_args(flavour)
    wheelhouse = tmp_path / "wheelhouse"
    fetched = subprocess.run(["bash", "containers/fetch-wheels.sh", flavour, str(wheelhouse), sys.executable],
                             cwd=REPO, env={k: v for k, v in os.environ.items() if k != "SOURCES"},
                             capture_output=True, text=True, timeout=600)
    if fetched.returncode != 0 and any(sign in fetched.stderr for sign in NO_NETWORK):
        missing_tool(f"PyPI is not reachable for {flavour}'s locked wheels: {fetched.stderr.strip()[-300:]}")
    assert fetched.returncode == 0, fetched.stderr[-3000:]
    sdist = wheelhouse / f"deepspeed-{args['DEEPSPEED_VERSION']}.tar.gz"
    wanted = [line.split(" ", 1)[0] for line in
              (REPO / "containers" / "locks" / f"wheelhouse-{flavour}.txt").read_text().splitlines()
              if line and not line.startswith("#") and not line.endswith(".tar.gz")]
    wanted += _deepspeed_requirements(sdist, args["DEEPSPEED_VERSION"], args["WITH_CUDA"] == "1")
    # No configuration of this machine's (its own wheel folders, constraints): the locked files only.
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    resolved = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed", "--no-index",
         "--find-links", str(wheelhouse), "--only-binary=:all:", "--python-version", args["PYTHON_VERSION"],
         "--platform", args["WHEEL_PLATFORM"], "--platform", "manylinux2014_aarch64",
         "--target", str(tmp_path / "target"), *wanted],
        env=env, capture_output=True, text=True, timeout=300)
    assert resolved.returncode == 0, resolved.stderr[-3000:]
