"""An image builds with no network from what `make sources` gathered (docs/offline-build.md).

The twin flavour (containers/arch/ngc-twin.env: the CUDA flavour on the NGC twin, every step of a cluster image) is
built by `make twin-image SOURCES=build/offline-sources` in a network namespace with no route out (loopback and a
NIC pair), so anything that reaches for the network fails the build; the mirror is the one `make sources` wrote,
asking the twin base which distribution packages it lacks (tests/fixtures/twin.py). A mirror that lacks one of those
packages stops the build in one line instead of reaching for the distribution's archive.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.fixtures.apptainer import missing_tool
from tests.fixtures.twin import TWIN_SIF, built_offline, offline_mirror, run_make

pytestmark = [pytest.mark.apptainer, pytest.mark.slow, pytest.mark.root]

DEBS = "debs-ngc-twin"


@pytest.fixture(autouse=True)
def _root() -> None:
    if os.geteuid() != 0:
        missing_tool("an offline build needs root (unshare --net, apptainer build --fakeroot)")


def _copy_mirror(mirror: Path, to: Path) -> Path:
    """A copy to break: hard links where the file system allows (the wheels are large), else copies."""
    try:
        shutil.copytree(mirror, to, copy_function=os.link)
    except OSError:
        shutil.rmtree(to, ignore_errors=True)
        shutil.copytree(mirror, to)
    return to


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if "error:" in line.lower()]


def test_the_twin_flavour_builds_with_no_network_from_the_mirror_make_sources_wrote():
    mirror = offline_mirror()
    gathered = (mirror / DEBS / "SHA256SUMS").read_text().split()
    assert gathered, f"the twin base lacks nothing the build installs: {mirror / DEBS} proves nothing"
    result = built_offline()
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    assert f"installing from the package mirror /opt/app/sources/{DEBS}:" in log, log[-6000:]
    assert "using libfabric-v1.22.0.tar.gz from the source mirror" in log
    assert TWIN_SIF.is_file()


def test_a_mirror_that_lacks_a_gathered_package_stops_the_offline_build_in_one_line(tmp_path):
    broken = _copy_mirror(offline_mirror(), tmp_path / "mirror")
    deb = (broken / DEBS / "SHA256SUMS").read_text().split()[1]
    (broken / DEBS / deb).unlink()
    before = TWIN_SIF.stat().st_mtime if TWIN_SIF.exists() else None
    result = run_make("-W", "containers/app.def", "twin-image", f"SOURCES={broken}", offline=True)
    log = result.stdout + result.stderr
    assert result.returncode != 0
    errors = _errors(log)
    assert len(errors) == 1, log[-6000:]
    assert deb in errors[0] and "make sources" in errors[0]
    assert (TWIN_SIF.stat().st_mtime if TWIN_SIF.exists() else None) == before  # the image from before stays


def test_a_mirror_without_the_bases_packages_is_refused_before_the_build_starts(tmp_path):
    broken = _copy_mirror(offline_mirror(), tmp_path / "mirror")
    shutil.rmtree(broken / DEBS)
    result = run_make("-W", "containers/app.def", "twin-image", f"SOURCES={broken}", offline=True)
    assert result.returncode != 0
    assert "apptainer build" not in result.stdout
    [error] = _errors(result.stderr)
    assert f"{broken} has no {DEBS}/SHA256SUMS" in error and "make sources" in error, result.stderr
