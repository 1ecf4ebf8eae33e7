"""The app's own wheel for the image's wheelhouse (containers/imagetool/appwheel.py), built with the standard library
on the build node's python3: it holds the files of the wheel pip builds with setuptools (the build this replaces,
`pip wheel --no-build-isolation`, which no node Python from 3.6 to 3.9 can run), pip installs it, and the same
checkout gives the same bytes. pyproject.toml is read without tomllib (containers/imagetool/pyproject.py), and reads
as tomllib reads it.
"""

from __future__ import annotations

import base64
import csv
import email.parser
import hashlib
import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from imagetool.appwheel import build_wheel, read_project
from imagetool.pyproject import loads

from app.host.common.errors import UsageError
from tests.containers.test_wheelhouse import WHEEL, _lock, _wheel
from tests.test_login_tools import login_python
from tests.trainer_runs import REPO, clean_env

WHEELHOUSE = REPO / "containers" / "wheelhouse.sh"
#: What a wheel of the project holds besides the package: its metadata, read the same whoever built it
DIST_INFO = "app-{version}.dist-info"
needs_python_3_6 = pytest.mark.skipif(login_python() is None, reason="no Python 3.6 here: set LOGIN_PYTHON to one "
                                      "(e.g. pyenv install 3.6) to build the wheel under it")


def copy_project(destination: Path, *, keep_times: bool = True) -> Path:
    """What a build of the project reads: pyproject.toml, the readme and the package, without bytecode."""
    destination.mkdir(parents=True)
    copy = shutil.copy2 if keep_times else shutil.copy
    for name in ("pyproject.toml", "README.md"):
        copy(REPO / name, destination / name)
    shutil.copytree(REPO / "app", destination / "app", copy_function=copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return destination


@pytest.fixture(scope="module")
def pips_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel pip builds of the project with setuptools, as the wheelhouse step did before (3 CPU seconds)."""
    base = tmp_path_factory.mktemp("pip")
    tree = copy_project(base / "tree")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(base / "out"), str(tree)], check=True, capture_output=True, timeout=300)
    (wheel,) = (base / "out").glob("app-*.whl")
    return wheel


def names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return sorted(archive.namelist())


def read(wheel: Path, name: str) -> bytes:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(name)


def dist_info(name: str) -> str:
    return f"{DIST_INFO.format(version=read_project(REPO).version)}/{name}"


def fields(wheel: Path, name: str, *, but: str) -> list[tuple[str, str]]:
    """The header fields of the wheel's .dist-info/NAME, but the one that names who wrote it."""
    message = email.parser.BytesParser().parsebytes(read(wheel, dist_info(name)))
    return [(key, value) for key, value in message.items() if key != but]


@needs_python_3_6
def test_the_wheelhouse_step_on_python_3_6_builds_an_app_wheel_that_pip_installs(tmp_path, pips_wheel):
    # Offline, as from a `make sources` mirror: the locked files are one small wheel, which the step's other half
    # (containers/fetch-wheels.sh) copies from it
    mirror = tmp_path / "sources"
    (mirror / "wheelhouse-smoke").mkdir(parents=True)
    lock = _lock(tmp_path, _wheel(mirror / "wheelhouse-smoke" / WHEEL, "genuine = True\n"))
    env = clean_env(WHEEL_LOCK=str(lock), SOURCES=str(mirror))
    env.pop("PYTHONPATH")  # the node's python3 knows nothing of the checkout but what the step tells it
    out = tmp_path / "wheelhouse"
    result = subprocess.run(["bash", str(WHEELHOUSE), "smoke", str(out), login_python()], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = out.glob("app-*.whl")
    assert (out / WHEEL).is_file()
    assert names(wheel) == names(pips_wheel)
    target = tmp_path / "target"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-compile",
                    "--target", str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    installed = sorted(path.relative_to(target).as_posix() for path in (target / "app").rglob("*") if path.is_file())
    assert installed == [name for name in names(wheel) if name.startswith("app/")]
    assert sorted(path.name for path in (target / "bin").iterdir()) == [
        "app-check", "app-diagnose", "app-export", "app-report", "app-train"]


def test_the_wheel_holds_the_files_and_metadata_of_the_one_pip_builds(tmp_path, pips_wheel):
    wheel = build_wheel(REPO, tmp_path)
    assert wheel.name == pips_wheel.name
    assert names(wheel) == names(pips_wheel)
    for name in names(pips_wheel):
        if not name.endswith(("/METADATA", "/WHEEL", "/RECORD")):
            assert read(wheel, name) == read(pips_wheel, name), name
    assert fields(wheel, "METADATA", but="Metadata-Version") == fields(pips_wheel, "METADATA", but="Metadata-Version")
    assert fields(wheel, "WHEEL", but="Generator") == fields(pips_wheel, "WHEEL", but="Generator") == [
        ("Wheel-Version", "1.0"), ("Root-Is-Purelib", "true"), ("Tag", "py3-none-any")]


def test_record_names_every_file_with_its_sha256_and_size(tmp_path):
    wheel = build_wheel(REPO, tmp_path)
    rows = list(csv.reader(io.StringIO(read(wheel, dist_info("RECORD")).decode())))
    assert sorted(row[0] for row in rows) == names(wheel)
    for name, digest, size in rows:
        if name == dist_info("RECORD"):
            assert (digest, size) == ("", "")
            continue
        data = read(wheel, name)
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert int(size) == len(data)


def test_the_same_checkout_gives_the_same_bytes_whenever_its_files_were_written(tmp_path):
    fresh = copy_project(tmp_path / "fresh", keep_times=False)  # every file with a new modification time
    assert build_wheel(REPO, tmp_path / "a").read_bytes() == build_wheel(fresh, tmp_path / "b").read_bytes()


@needs_python_3_6
def test_python_3_6_on_the_standard_library_alone_builds_the_same_bytes(tmp_path):
    env = {**clean_env(), "PYTHONPATH": f"{REPO / 'containers'}:{REPO}"}
    result = subprocess.run([login_python(), "-S", "-m", "imagetool", "wheel", "--out", str(tmp_path / "old")],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    (old,) = (tmp_path / "old").glob("*.whl")
    assert old.read_bytes() == build_wheel(REPO, tmp_path / "new").read_bytes()


@pytest.mark.parametrize(("extra", "refused"), [
    ('[project]\nclassifiers = ["Private"]\n', "classifiers"),
    ("[tool.setuptools]\npy-modules = ['x']\n", "py-modules"),
    ("[tool.setuptools.packages.find]\nnamespaces = true\n", "namespaces = false"),
])
def test_a_pyproject_the_builder_would_not_copy_whole_is_refused_in_one_line(tmp_path, extra, refused):
    project = copy_project(tmp_path / "project")
    text = (project / "pyproject.toml").read_text()
    if extra.startswith("[project]"):
        text = text.replace("[project]\n", extra, 1)
    elif "namespaces" in extra:
        text = text.replace("namespaces = false", "namespaces = true")
    else:
        text = text.replace("[tool.setuptools.packages.find]", extra + "\n[tool.setuptools.packages.find]")
    (project / "pyproject.toml").write_text(text)
    with pytest.raises(UsageError) as refusal:
        build_wheel(project, tmp_path / "out")
    assert refused in str(refusal.value) and "\n" not in str(refusal.value)
    assert not (tmp_path / "out").exists()


@pytest.fixture
def tomllib():
    """The reader to compare with: Python's own, from 3.11 (the project's tests run on 3.10 too)."""
    return pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")


def test_pyproject_toml_reads_as_tomllib_reads_it(tomllib):
    text = (REPO / "pyproject.toml").read_text()
    assert loads(text) == tomllib.loads(text)


@pytest.mark.parametrize("text", [
    'a = "tab\\t, \\u00e9, \\U0001F600, \\\\, \\""\n',
    "b = 'C:\\\\no\\escapes'\n",
    'c = """\nfirst\nsecond \\\n    joined""""\n',
    "d = '''\nraw \\n'''\n",
    'e.f."g h" = [1, -2, +3, 1_000, true, false, [], ["x",],\n  # a comment\n  {a = 1, b.c = "d"}]  # end\n',
    '[t]\n[t.u]\nx = {}\n["quoted key".z]\ny = 1\n',
])
def test_the_toml_pyproject_files_are_written_in_reads_as_tomllib_reads_it(tomllib, text):
    assert loads(text) == tomllib.loads(text)


@pytest.mark.parametrize(("text", "line"), [("a = 1\nb = 1.5\n", 2), ("a = 1979-05-27\n", 1), ("[[x]]\n", 1),
                                            ('a = "open\n', 1), ("a = 1\n\na = 2\n", 3)])
def test_toml_the_reader_does_not_take_is_refused_with_its_line(text, line):
    with pytest.raises(UsageError, match=f"line {line}: "):
        loads(text)
