"""containers/wheelhouse.sh takes every file but the app wheel from the flavour's lock
(containers/locks/wheelhouse-FLAVOUR.txt), hash-checked by pip (--require-hashes): from PyPI, or, with SOURCES
set, from the wheels `make sources` gathered there, touching no network.

The downloads are served from a local folder (pip's --find-links, no index) holding a small real wheel; the
lock is given through WHEEL_LOCK.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "containers" / "wheelhouse.sh"
#: The part of wheelhouse.sh that takes the locked files (it builds the app's own wheel first, which the refusals
#: below do not depend on; the two tests of the hash and the offline build run the whole script)
FETCH = REPO / "containers" / "fetch-wheels.sh"
FLAVOURS = sorted(path.stem for path in (REPO / "containers" / "arch").glob("*.env"))
LOCK_LINE = re.compile(r"^[a-z0-9][a-z0-9.-]*==[A-Za-z0-9.+!-]+ --hash=sha256:[0-9a-f]{64}  # \S+$")
WHEEL = "fakepkg-1.0-py3-none-any.whl"


def _wheel(path: Path, body: str) -> Path:
    """A minimal valid wheel whose module holds BODY (two bodies: two hashes)."""
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("fakepkg/__init__.py", body)
        wheel.writestr("fakepkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: fakepkg\nVersion: 1.0\n")
        wheel.writestr("fakepkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                                      "Tag: py3-none-any\n")
        wheel.writestr("fakepkg-1.0.dist-info/RECORD", "")
    return path


def _lock(tmp_path: Path, wheel: Path) -> Path:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    lock = tmp_path / "lock.txt"
    lock.write_text(f"# test lock\nfakepkg==1.0 --hash=sha256:{digest}  # {WHEEL}\n")
    return lock


def _run(tmp_path: Path, lock: Path, *, sources: Path | None = None, served: Path | None = None,
         offline: bool = False, script: Path = SCRIPT) -> subprocess.CompletedProcess:
    env = {**os.environ, "WHEEL_LOCK": str(lock)}
    env.pop("SOURCES", None)
    if sources is not None:
        env["SOURCES"] = str(sources)
    if served is not None:  # "the network": pip's own configuration, here a local folder
        env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(served))
    command = ["bash", str(script), "smoke", str(tmp_path / "out"), sys.executable]
    if offline:
        command = ["unshare", "--net", *command]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_every_flavour_has_a_lock_with_a_hash_on_every_line(flavour):
    lock = REPO / "containers" / "locks" / f"wheelhouse-{flavour}.txt"
    assert lock.is_file(), f"no {lock.relative_to(REPO)}: make wheelhouse-lock"
    lines = [line for line in lock.read_text().splitlines() if line and not line.startswith("#")]
    assert lines
    assert [line for line in lines if not LOCK_LINE.match(line)] == []
    names = {line.split("==")[0] for line in lines}
    assert {"deepspeed", "pyyaml", "tqdm", "setuptools"} <= names
    assert any(line.endswith(".tar.gz") and line.startswith("deepspeed==") for line in lines)


def test_a_wheel_whose_hash_matches_the_lock_is_taken(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    lock = _lock(tmp_path, _wheel(served / WHEEL, "genuine = True\n"))
    result = _run(tmp_path, lock, served=served)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / WHEEL).read_bytes() == (served / WHEEL).read_bytes()
    assert list((tmp_path / "out").glob("app-*.whl"))


def test_a_wheel_whose_hash_does_not_match_the_lock_is_refused(tmp_path):
    lock = _lock(tmp_path, _wheel(tmp_path / WHEEL, "genuine = True\n"))
    served = tmp_path / "served"
    served.mkdir()
    _wheel(served / WHEEL, "swapped = True\n")
    result = _run(tmp_path, lock, served=served)
    assert result.returncode != 0
    assert "hash" in result.stderr.lower()
    assert not (tmp_path / "out" / WHEEL).exists()


needs_unshare = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                                   reason="needs root and unshare (a network namespace with loopback only)")


@needs_unshare
def test_with_sources_the_wheelhouse_is_built_with_no_network(tmp_path):
    sources = tmp_path / "sources"
    (sources / "wheelhouse-smoke").mkdir(parents=True)
    lock = _lock(tmp_path, _wheel(sources / "wheelhouse-smoke" / WHEEL, "genuine = True\n"))
    result = _run(tmp_path, lock, sources=sources, offline=True)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / WHEEL).is_file()


@needs_unshare
def test_with_sources_a_missing_wheel_is_named_in_one_line(tmp_path):
    sources = tmp_path / "sources"
    (sources / "wheelhouse-smoke").mkdir(parents=True)
    lock = _lock(tmp_path, _wheel(tmp_path / WHEEL, "genuine = True\n"))
    result = _run(tmp_path, lock, sources=sources, offline=True, script=FETCH)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, result.stderr
    assert WHEEL in errors[0] and "make sources" in errors[0]


@needs_unshare
def test_with_sources_a_swapped_wheel_is_refused(tmp_path):
    sources = tmp_path / "sources"
    (sources / "wheelhouse-smoke").mkdir(parents=True)
    lock = _lock(tmp_path, _wheel(tmp_path / WHEEL, "genuine = True\n"))
    _wheel(sources / "wheelhouse-smoke" / WHEEL, "swapped = True\n")
    result = _run(tmp_path, lock, sources=sources, offline=True, script=FETCH)
    assert result.returncode != 0
    assert "hash" in result.stderr.lower()


@pytest.mark.parametrize(("arch", "flavours"), [("aarch64", ["aarch64", "ngc-twin-aarch64"]),
                                                 ("x86_64", ["ngc-twin", "smoke", "x86_64"])])
def test_make_sources_gathers_the_locked_wheelhouse_of_every_flavour_of_arch(arch, flavours):
    result = subprocess.run(["make", "-n", "sources", "SOURCES=/mirror", f"ARCH={arch}"], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"imagetool sources --arch {arch} --mirror /mirror" in result.stdout
    gathered = re.findall(r"containers/fetch-wheels\.sh (\S+) (\S+)", result.stdout)
    assert gathered == [(flavour, f"/mirror/wheelhouse-{flavour}") for flavour in flavours]


def test_make_image_with_sources_hands_them_to_the_wheelhouse():
    result = subprocess.run(["make", "-n", "image", "ARCH=aarch64", "SOURCES=/mirror", "BASE=/bases/ngc.sif"],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert re.search(r"SOURCES=/mirror bash containers/wheelhouse\.sh aarch64 build/wheelhouse-aarch64 ", result.stdout)


@needs_unshare
def test_with_sources_that_lack_the_wheelhouse_the_build_stops_in_one_line_instead_of_downloading(tmp_path):
    sources = tmp_path / "sources"
    sources.mkdir()
    lock = _lock(tmp_path, _wheel(tmp_path / WHEEL, "genuine = True\n"))
    result = _run(tmp_path, lock, sources=sources, offline=True, script=FETCH)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, result.stderr
    assert f"{sources}/wheelhouse-smoke" in errors[0] and "make sources" in errors[0]
