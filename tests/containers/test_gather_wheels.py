"""containers/gather-wheels.py: the wheels a user's packages need for an image of another platform, and none the
image has: a package that depends on torch must not pull torch (nor numpy) when the image has them.

The index is a local directory of tiny wheels written here (no build backend, no network); the image's package list is
a `pip list --format=freeze` file with NVIDIA's own torch version, which no index has.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GATHER = REPO / "containers" / "gather-wheels.py"
IMAGE_PACKAGES = "torch==2.12.0a0+5aff3928d8.nv26.05\nnumpy==2.2.6\nPyYAML==6.0.4\n"


def build_wheel(index: Path, name: str, requires: list[str]) -> None:
    """A wheel of NAME 0.1 that needs REQUIRES (and extra_only under its extra `fancy`), written as a zip by hand:
    pip reads only its name, version and Requires-Dist here, and a build backend would cost seconds a wheel."""
    index.mkdir(parents=True, exist_ok=True)
    info = f"{name}-0.1.dist-info"
    metadata = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\nProvides-Extra: fancy\n",
                        *(f"Requires-Dist: {requirement}\n" for requirement in requires),
                        "Requires-Dist: extra_only; extra == \"fancy\"\n"])
    files = {f"{name}/__init__.py": "", f"{info}/METADATA": metadata,
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(index / f"{name}-0.1-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    """mine -> torch, numpy<2, helper_dep, win_only (on Windows); helper_dep -> numpy, leaf_dep, pyyaml."""
    index = tmp_path_factory.mktemp("gather") / "index"
    build_wheel(index, "mine", ["torch>=2.4", "numpy<2", "helper_dep", "win_only; sys_platform == 'win32'"])
    build_wheel(index, "helper_dep", ["numpy", "leaf_dep", "pyyaml>=6"])
    build_wheel(index, "leaf_dep", [])
    build_wheel(index, "extra_only", [])
    build_wheel(index, "win_only", [])
    return index


def gather(tmp_path: Path, index: Path, *packages: str, image: str = IMAGE_PACKAGES,
           platform: str = "manylinux2014_aarch64") -> subprocess.CompletedProcess[str]:
    listing = tmp_path / "image-packages.txt"
    listing.write_text(image)
    return subprocess.run([sys.executable, str(GATHER), "--image-packages", str(listing), "--python-version", "3.12",
                           "--platform", platform, "-d", str(tmp_path / "wheels"), *packages, "--", "--no-index",
                           "--find-links", str(index)], capture_output=True, text=True, timeout=300)


def fetched(tmp_path: Path) -> list[str]:
    return sorted(path.name.split("-")[0] for path in (tmp_path / "wheels").glob("*.whl"))


def test_a_package_that_needs_torch_gets_its_own_closure_and_never_torch(tmp_path: Path, index: Path) -> None:
    result = gather(tmp_path, index, "mine")
    assert result.returncode == 0, result.stdout + result.stderr
    assert fetched(tmp_path) == ["helper_dep", "leaf_dep", "mine"]
    assert result.stdout.strip().endswith("none the image has: mine-0.1-py3-none-any.whl "
                                          "helper_dep-0.1-py3-none-any.whl leaf_dep-0.1-py3-none-any.whl")
    # an image package at a version the package refuses: one line, the build would stop on it
    warnings = [line for line in result.stderr.splitlines() if line.startswith("gather-wheels: warning:")]
    assert warnings == ["gather-wheels: warning: numpy<2 is not met by the image's numpy 2.2.6; the extension "
                        "build will stop on it (docs/packages.md)"]


def test_extras_asked_for_are_followed(tmp_path: Path, index: Path) -> None:
    result = gather(tmp_path, index, "mine[fancy]")
    assert result.returncode == 0, result.stdout + result.stderr
    assert fetched(tmp_path) == ["extra_only", "helper_dep", "leaf_dep", "mine"]


def test_a_dependency_the_image_lacks_is_asked_for_and_pips_error_passes_through(tmp_path: Path,
                                                                                 index: Path) -> None:
    """Without numpy in the image, helper_dep's numpy is fetched: this index has none, so pip's own error stops it."""
    result = gather(tmp_path, index, "helper_dep", image="torch==2.12.0\n")
    assert result.returncode == 1
    assert "No matching distribution found for numpy" in result.stdout
    assert fetched(tmp_path) == ["helper_dep"]


@pytest.mark.parametrize(("args", "expected"), [
    (["--python-version", "312"], "--python-version '312' is not MAJOR.MINOR"),
    (["--platform", "linux"], "--platform 'linux' names no machine"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, index: Path, args: list[str], expected: str) -> None:
    listing = tmp_path / "image-packages.txt"
    listing.write_text(IMAGE_PACKAGES)
    base = {"--python-version": "3.12", "--platform": "manylinux2014_aarch64"}
    base[args[0]] = args[1]
    result = subprocess.run([sys.executable, str(GATHER), "--image-packages", str(listing), "-d",
                             str(tmp_path / "w"), *[x for kv in base.items() for x in kv], "mine"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.strip() == f"gather-wheels: error: {expected} " + (
        "(e.g. --python-version 3.12)" if "python" in expected else "(e.g. --platform manylinux2014_aarch64)")
