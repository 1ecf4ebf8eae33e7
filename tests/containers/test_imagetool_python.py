"""The image tooling (containers/imagetool) runs on a build node's own python3: the batch job that builds the image
(jobscripts/build-image.sh) has no torch, no virtual environment to copy and, on SLES 15 nodes, Python 3.6. Checked
three ways: everything it imports parses for 3.6 (vermin), it runs on the standard library alone (`python -S`: no
site-packages, so neither spython nor torch), and under a real 3.6 where one is found it says what the newest says.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_login_tools import OLDEST_LOGIN_PYTHON, login_python
from tests.trainer_runs import REPO, clean_env

IMAGETOOL = REPO / "containers" / "imagetool"
#: The commands the build job runs, each for a flavour of each architecture and the smoke flavour CI builds
COMMANDS = [["lint", "--arch", "smoke"], ["lint", "--arch", "aarch64"], ["render", "--arch", "aarch64", "--all"],
            ["summary", "--arch", "x86_64"], ["sources", "--check", "--arch", "smoke", "--mirror", "MIRROR"],
            ["build", "--arch", "smoke", "--args-file", "a.args", "--out", "o.sif", "--dry-run"],
            ["wheel", "--out", "wheelhouse"]]


def app_modules_imported_by_imagetool() -> list[str]:
    names = set()
    for path in IMAGETOOL.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "app":
                names.add(node.module)
    return sorted(names)


def run_imagetool(python: str, argv: list[str], cwd: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    # A fixed build date: two runs render the same arguments
    env = {**clean_env(), "PYTHONPATH": f"{REPO / 'containers'}:{REPO}", "SOURCE_DATE_EPOCH": "1700000000"}
    return subprocess.run([python, *flags, "-m", "imagetool", *argv], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def mirror_args(argv: list[str], mirror: Path) -> list[str]:
    return [str(mirror) if word == "MIRROR" else word for word in argv]


@pytest.fixture
def empty_mirror(tmp_path: Path) -> Path:
    (tmp_path / "mirror").mkdir()
    return tmp_path / "mirror"


def test_everything_the_image_tooling_imports_parses_for_python_3_6():
    vermin = shutil.which("vermin", path=str(Path(sys.executable).parent)) or shutil.which("vermin")
    if vermin is None:
        pytest.fail("vermin is not installed: pip install -e '.[test]'")
    # What it imports of app is app/host's, which tests/test_login_tools.py parses for 3.6 whole
    outside = [name for name in app_modules_imported_by_imagetool() if not name.startswith("app.host.")]
    assert outside == [], f"containers/imagetool imports {outside}: only app/host runs on the build node's python3"
    files = [str(path) for path in sorted(IMAGETOOL.glob("*.py"))]
    result = subprocess.run([vermin, f"--target={OLDEST_LOGIN_PYTHON}-", "--no-tips", "--violations",
                             "--eval-annotations", "--no-parse-comments", *files],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: "-".join(argv[:2]))
def test_the_image_tooling_runs_on_the_standard_library_alone(argv, empty_mirror, tmp_path):
    bare = run_imagetool(sys.executable, mirror_args(argv, empty_mirror), tmp_path, "-S")
    full = run_imagetool(sys.executable, mirror_args(argv, empty_mirror), tmp_path)
    assert "Traceback" not in bare.stderr, bare.stderr
    assert (bare.returncode, bare.stdout) == (full.returncode, full.stdout), bare.stderr


@pytest.mark.skipif(login_python() is None, reason="no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv "
                    "install 3.6) to run the image tooling under it")
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: "-".join(argv[:2]))
def test_the_image_tooling_says_the_same_under_python_3_6(argv, empty_mirror, tmp_path):
    old = run_imagetool(login_python(), mirror_args(argv, empty_mirror), tmp_path, "-S")
    new = run_imagetool(sys.executable, mirror_args(argv, empty_mirror), tmp_path)
    assert "Traceback" not in old.stderr, old.stderr
    assert (old.returncode, old.stdout, old.stderr) == (new.returncode, new.stdout, new.stderr)


def test_a_mirror_is_filled_and_checked_under_python_3_6_from_local_archives(tmp_path):
    python = login_python() or sys.executable
    origin = tmp_path / "origin"
    origin.mkdir()
    (origin / "pkg.tar.gz").write_bytes(b"an archive")
    driver = ("import sys; from pathlib import Path; from imagetool.sources import Source, fill_mirror, check_mirror\n"
              "import hashlib; path = Path(sys.argv[1]); mirror = Path(sys.argv[2])\n"
              "source = Source('PKG', path.as_uri(), hashlib.sha256(path.read_bytes()).hexdigest(), 'pkg-1.tar.gz')\n"
              "print(fill_mirror([source], mirror), fill_mirror([source], mirror))\n"
              "check_mirror([source], mirror, 'x86_64')\n")
    env = {**clean_env(), "PYTHONPATH": f"{REPO / 'containers'}:{REPO}"}
    result = subprocess.run([python, "-S", "-c", driver, str(origin / "pkg.tar.gz"), str(tmp_path / "mirror")],
                            env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['pkg-1.tar.gz'] []"
    assert (tmp_path / "mirror" / "pkg-1.tar.gz").read_bytes() == b"an archive"
    assert sorted(os.listdir(tmp_path / "mirror")) == ["pkg-1.tar.gz"]  # no temporary file left beside it
