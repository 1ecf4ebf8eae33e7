"""containers/wheelhouse.sh takes every file but the app wheel from the flavour's lock
(containers/locks/wheelhouse-FLAVOUR.txt), each checked against the lock's sha256: from PyPI through pip
(--require-hashes), or, with SOURCES set, copied by name from the files `make sources` gathered there, touching
no network and needing no pip (a build node's python3 may be 3.6, whose pip cannot take the image's wheel tags).

The downloads are served from a local folder (pip's --find-links, no index) holding small real wheels; the
lock is given through WHEEL_LOCK.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.test_login_tools import login_python

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "containers" / "wheelhouse.sh"
#: The part of wheelhouse.sh that takes the locked files (it builds the app's own wheel first, which the refusals
#: below do not depend on; the two tests of the hash and the offline build run the whole script)
FETCH = REPO / "containers" / "fetch-wheels.sh"
SMOKE_LOCK = REPO / "containers" / "locks" / "wheelhouse-smoke.txt"
FLAVOURS = sorted(path.stem for path in (REPO / "containers" / "arch").glob("*.env"))
LOCK_LINE = re.compile(r"^[a-z0-9][a-z0-9.-]*==[A-Za-z0-9.+!-]+ --hash=sha256:[0-9a-f]{64}  # \S+$")
WHEEL = "fakepkg-1.0-py3-none-any.whl"


def _wheel(path: Path, body: str, project: str = "fakepkg", version: str = "1.0") -> Path:
    """A minimal valid wheel of PROJECT whose module holds BODY (two bodies: two hashes)."""
    dist_info = "-".join(path.name.split("-")[:2]) + ".dist-info"  # as the file is named: annotated_types-0.8.0
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("fakepkg/__init__.py", body)
        wheel.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n")
        wheel.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                             "Tag: py3-none-any\n")
        wheel.writestr(f"{dist_info}/RECORD", "")
    return path


def _standin_mirror(mirror: Path, lock: Path) -> Path:
    """MIRROR filled with a stand-in for every file of the real LOCK, under the lock's file name, and a lock of
    the same lines with the stand-ins' sha256 (no stand-in has a real file's hash); returns that lock."""
    mirror.mkdir(parents=True)
    lines = []
    for line in lock.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        project, version = line.split(" ")[0].split("==")
        file = mirror / line.split("  # ")[1]
        if file.name.endswith(".whl"):
            _wheel(file, f"# stand-in for {file.name}\n", project, version)
        else:
            with tarfile.open(file, "w:gz") as sdist:
                info = tarfile.TarInfo(f"{project}-{version}/PKG-INFO")
                body = f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n".encode()
                info.size = len(body)
                sdist.addfile(info, io.BytesIO(body))
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        lines.append(re.sub("sha256:[0-9a-f]{64}", f"sha256:{digest}", line))
    standin_lock = mirror.parent / f"stand-in-{lock.name}"
    standin_lock.write_text("# the real lock's files, stand-ins' hashes\n" + "\n".join(lines) + "\n")
    return standin_lock


def _without_pip(tmp_path: Path, interpreter: str) -> Path:
    """INTERPRETER as a node's python3 without pip: `-S` leaves out site-packages, where pip lives."""
    python = tmp_path / "no-pip" / "python3"
    python.parent.mkdir()
    python.write_text(f'#!/bin/sh\nexec "{interpreter}" -S "$@"\n')
    python.chmod(0o755)
    no_pip = subprocess.run([str(python), "-c", "import pip"], capture_output=True, text=True, timeout=60)
    assert "No module named" in no_pip.stderr, no_pip.stderr
    return python


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def _lock(tmp_path: Path, wheel: Path) -> Path:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    lock = tmp_path / "lock.txt"
    lock.write_text(f"# test lock\nfakepkg==1.0 --hash=sha256:{digest}  # {WHEEL}\n")
    return lock


def _run(tmp_path: Path, lock: Path, *, sources: Path | None = None, served: Path | None = None,
         offline: bool = False, script: Path = SCRIPT, python: Path | str = sys.executable,
         out: str = "out") -> subprocess.CompletedProcess:
    env = {**os.environ, "WHEEL_LOCK": str(lock)}
    env.pop("SOURCES", None)
    if sources is not None:
        env["SOURCES"] = str(sources)
    if served is not None:  # "the network": pip's own configuration, here a local folder
        env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(served))
    command = ["bash", str(script), "smoke", str(tmp_path / out), str(python)]
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


@pytest.mark.skipif(login_python() is None, reason="no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv "
                    "install 3.6) to build the wheelhouse under it")
def test_with_sources_python_3_6_without_pip_builds_the_wheelhouse_pip_built_from_them(tmp_path):
    mirror = tmp_path / "sources" / "wheelhouse-smoke"
    lock = _standin_mirror(mirror, SMOKE_LOCK)
    # Left by an older lock (`make sources` adds, never removes): not the lock's, so not the image's
    _wheel(mirror / "tqdm-4.60.0-py3-none-any.whl", "old = True\n", "tqdm", "4.60.0")
    # The route before: pip download --require-hashes of the lock's wheels from the mirror (the image's wheel
    # tags: pip 21.3+), the sdist copied; pip here serves the mirror as the index, without SOURCES
    wheels_only = tmp_path / "wheels-only.txt"
    wheels_only.write_text("".join(line + "\n" for line in lock.read_text().splitlines()
                                   if not line.endswith(".tar.gz")))
    by_pip = _run(tmp_path, wheels_only, served=mirror, out="by-pip")
    assert by_pip.returncode == 0, by_pip.stderr
    without_pip = _run(tmp_path, lock, sources=mirror.parent, python=_without_pip(tmp_path, login_python()),
                       out="without-pip")
    assert without_pip.returncode == 0, without_pip.stderr
    sdists = {name: data for name, data in _files(mirror).items() if name.endswith(".tar.gz")}
    assert list(sdists) == ["deepspeed-0.19.8.tar.gz"]
    assert _files(tmp_path / "without-pip") == {**_files(tmp_path / "by-pip"), **sdists}
    locked = {line.split("  # ")[1] for line in lock.read_text().splitlines() if "  # " in line}
    assert {name for name in _files(tmp_path / "without-pip") if not name.startswith("app-")} == locked


def test_with_sources_a_file_unlike_the_lock_is_refused_in_one_line_and_not_kept(tmp_path):
    mirror = tmp_path / "sources" / "wheelhouse-smoke"
    lock = _standin_mirror(mirror, SMOKE_LOCK)
    tampered = "tqdm-4.70.1-py3-none-any.whl"
    _wheel(mirror / tampered, "swapped = True\n", "tqdm", "4.70.1")
    result = _run(tmp_path, lock, sources=mirror.parent, python=_without_pip(tmp_path, sys.executable),
                  script=FETCH)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: sha256 mismatch for {tampered} in {mirror}: ")
    assert f"make sources SOURCES={mirror.parent} ARCH=x86_64" in result.stderr
    assert not (tmp_path / "out" / tampered).exists()


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
