"""What runs outside the image, app/host (the job on the batch host; `python -m app.diagnose` and `python -m
app.report` on login nodes), runs on the system's python3: SLES 15 on HPE systems ships 3.6, with no torch. The
directory is the set: every module under it (and the packages above it and the commands users type, app.launch,
app.diagnose, app.report) parses for Python 3.6 (vermin reads the syntax and the standard library names used), ruff
holds each to its oldest Python, running the login tools imports no torch, and, where a Python 3.6 interpreter is
found (LOGIN_PYTHON, PATH, pyenv), the tools and the job's plan run under it and print what the newest Python prints.
What each imports is tests/test_import_rules.py's."""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trainer_runs import REPO, clean_env

#: The packages of the commands users type (`python -m app.diagnose`), each running its namesake under app/host
COMMAND_PACKAGES = ("launch", "diagnose", "report")
OLDEST_LOGIN_PYTHON = "3.6"
A_LOG = REPO / "tests" / "diagnose" / "logs" / "pytorch-118369-watchdog.log"


def host_files() -> list[Path]:
    """What the host's python3 runs: app/host, app/__init__.py above it, and the command packages."""
    return [REPO / "app" / "__init__.py", *sorted((REPO / "app" / "host").rglob("*.py")),
            *(path for command in COMMAND_PACKAGES for path in sorted((REPO / "app" / command).glob("*.py")))]


def modules_the_host_starts() -> set[str]:
    """The modules the job scripts' launch line and the job's own commands (app/host/launch/checkout.py
    module_command) run on the host's python3, read from their source."""
    scripts = "".join(path.read_text() for path in sorted((REPO / "jobscripts").glob("*.sh")))
    launched = set(re.findall(r'"\$checkout" (app\.[\w.]+) ', scripts))
    for path in sorted((REPO / "app" / "host").rglob("*.py")):
        launched |= set(re.findall(r'module_command\(\s*"(app\.[\w.]+)"', path.read_text()))
    return launched


def module_file(name: str) -> Path | None:
    """The file `python -m NAME` runs in this checkout (a package's __main__.py), None when there is none."""
    path = REPO.joinpath(*name.split("."))
    if (path / "__main__.py").is_file():
        return path / "__main__.py"
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def write_run(run_dir: Path) -> Path:
    """A run directory as the trainer leaves it after five steps."""
    run_dir.mkdir()
    steps = [{"step": s, "loss": 1.0 / s, "step_time_s": 0.01, "samples_per_s": 3200.0, "time": 1e9 + s}
             for s in range(1, 6)]
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(step) + "\n" for step in steps))
    (run_dir / "history.jsonl").write_text('{"attempt": 1, "start_step": 0, "total_steps": 5}\n')
    (run_dir / "summary.json").write_text('{"status": "completed", "step": 5}')
    return run_dir


def test_what_the_host_starts_lives_under_app_host():
    started = modules_the_host_starts()
    assert "app.host.launch" in started, started
    files = {module: module_file(module) for module in sorted(started)}
    outside = {module: file for module, file in files.items()
               if file is None or not file.is_relative_to(REPO / "app" / "host")}
    assert outside == {}, (f"the job starts modules outside app/host: {outside}; what runs on the host's python3 "
                           "lives in app/host")


def test_ruff_holds_every_module_of_the_host_to_its_oldest_python():
    """pyproject.toml's per-file-target-version names app/host and the few files beside it (py37: the oldest ruff
    knows), so that ruff's pyupgrade rules never turn one into syntax SLES 15's 3.6 cannot run."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")
    targets = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]["per-file-target-version"]
    assert targets.get("app/host/**/*.py") == "py37", targets

    def named(name: str, glob: str) -> bool:  # ruff's globs: `**/` also matches no directory at all
        return fnmatch.fnmatchcase(name, glob) or fnmatch.fnmatchcase(name, glob.replace("**/", ""))

    files = [str(path.relative_to(REPO)) for path in host_files()]
    unnamed = [name for name in files if not any(named(name, glob) for glob in targets)]
    assert unnamed == [], f"add each to [tool.ruff.per-file-target-version] as \"py37\": {unnamed}"
    assert {targets[glob] for glob in targets} == {"py37"}, targets


def test_every_module_of_the_host_parses_for_python_3_6():
    vermin = shutil.which("vermin", path=str(Path(sys.executable).parent)) or shutil.which("vermin")
    if vermin is None:
        pytest.fail("vermin is not installed: pip install -e '.[test]'")
    files = [str(path) for path in host_files()]
    assert len(files) > 60, files  # the job, the login tools and what they share, not an empty glob
    # --eval-annotations: without `from __future__ import annotations` (3.7+) Python evaluates every annotation
    # when the function is defined, so `list[str]` fails on 3.6 as surely as a 3.9 call would.
    result = subprocess.run([vermin, f"--target={OLDEST_LOGIN_PYTHON}-", "--no-tips", "--violations",
                             "--eval-annotations", "--no-parse-comments", *files],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_running_the_login_tools_imports_no_torch(tmp_path):
    run_dir = write_run(tmp_path / "run")
    driver = (
        "import runpy, sys\n"
        # The commands as users type them (`-m app.diagnose`), through the packages app.diagnose, app.report to app/host
        f"for command in (['-m', 'app.diagnose', {str(A_LOG)!r}],\n"
        f"                ['-m', 'app.report', {str(run_dir)!r}, '--png', {str(tmp_path / 'r.png')!r}]):\n"
        "    module, argv = command[1], command[2:]\n"
        "    sys.argv = [module, *argv]\n"
        "    try:\n"
        "        runpy.run_module(module, run_name='__main__', alter_sys=True)\n"
        "    except SystemExit as done:\n"
        "        print(module, 'exit', done.code, file=sys.stderr)\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'torch'))\n")
    result = subprocess.run([sys.executable, "-c", driver], env=clean_env(), cwd=REPO, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "app.diagnose exit 0" in result.stderr and "app.report exit 0" in result.stderr, result.stderr
    assert result.stdout.splitlines()[-1] == "[]", result.stdout.splitlines()[-1]


@functools.cache  # asked at collection and for every command: each candidate is an interpreter's start
def login_python() -> str | None:
    """A Python 3.6 interpreter: LOGIN_PYTHON, else python3.6 on PATH or in pyenv's versions. vermin reads names
    and syntax, not what the regular expressions mean (`(?>...)` is 3.11+): only a real 3.6 runs those."""
    candidates = [os.environ.get("LOGIN_PYTHON"), shutil.which("python3.6"),
                  *map(str, sorted(Path.home().glob(".pyenv/versions/3.6*/bin/python3.6")))]
    for candidate in filter(None, candidates):
        version = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 capture_output=True, text=True, timeout=30, check=False)
        if version.stdout.strip() == OLDEST_LOGIN_PYTHON:
            return candidate
    return None


@pytest.mark.skipif(login_python() is None, reason="no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv "
                    "install 3.6) to run the login tools under it")
def test_the_login_tools_run_under_python_3_6(tmp_path):
    run_dir = write_run(tmp_path / "run")
    env = {**clean_env(), "PYTHONPATH": str(REPO)}
    # The commands as users type them: through the packages app.diagnose and app.report to app/host, under 3.6 too
    for argv in (["-m", "app.diagnose", str(A_LOG)],
                 ["-m", "app.report", str(run_dir), "--png", str(tmp_path / "r.png")]):
        old = subprocess.run([login_python(), *argv], env=env, cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, check=False)
        new = subprocess.run([sys.executable, *argv], env=env, cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, check=False)
        assert old.returncode == new.returncode == 0, old.stderr
        # The same words; only the picture may be missing (no matplotlib there)
        assert strip_picture(old.stdout) == strip_picture(new.stdout), old.stdout


def strip_picture(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("picture: ")]


@pytest.mark.skipif(login_python() is None, reason="no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv "
                    "install 3.6) to run the plan under it")
def test_the_jobs_plan_is_computed_alike_under_python_3_6(tmp_path):
    env = {**clean_env(), "PYTHONPATH": str(REPO), "GPUS_PER_NODE": "4", "DRY_RUN": "1",
           "DRY_RUN_NODES": "caf\u00e9-1,node2", "IMAGE": "none", "FABRIC": "none", "LAUNCHER": "mpiexec",
           "RDZV_PORT": "29400", "RDZV_HOST": "127.0.0.1"}
    runs = (["--help"],
            # The Slurm job's plan: the allocation, processes per node, torchrun's command on every node
            ["--script=slurm.sh", "job", "--", "-m", "app.train", "run.dir=/runs/a b"],
            # The PBS job's plan, nccl-tests through PALS: one MPI rank per GPU, nothing of torchrun's
            ["--script=gh200-pbs.sh", "job", "--scheduler=pbs", "--", "nccl-tests"])
    for argv in runs:
        old = subprocess.run([login_python(), "-m", "app.launch", *argv], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, check=False)
        new = subprocess.run([sys.executable, "-m", "app.launch", *argv], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, check=False)
        assert old.returncode == new.returncode == 0, old.stderr
        # The same plan; the log line's clock and argparse's heading ("optional arguments") may differ
        assert unclocked(old.stdout) == unclocked(new.stdout), old.stdout


def unclocked(text: str) -> list[str]:
    """TEXT's lines without each log line's clock and without argparse's options heading."""
    return [re.sub(r"^\[\d\d:\d\d:\d\d ", "[", line) for line in text.splitlines() if not line.startswith("opt")]


@pytest.mark.parametrize("argv", [["-m", "app.diagnose", "--list"], ["-m", "app.report", "RUN"]],
                         ids=["diagnose", "report"])
def test_a_login_tool_read_through_head_stops_quietly_with_the_closed_pipe_code(tmp_path, argv):
    """`python3 -m app.diagnose --list | head -1`: no BrokenPipeError traceback when the reader has gone."""
    argv = [str(write_run(tmp_path / "run")) if word == "RUN" else word for word in argv]
    reader, writer = os.pipe()
    os.close(reader)  # the reader has gone before the tool writes: each of its writes fails (EPIPE), as under head
    tool = subprocess.run([sys.executable, *argv], env=clean_env(), cwd=REPO, stdout=writer, stderr=subprocess.PIPE,
                          text=True, timeout=120, check=False)
    os.close(writer)
    assert tool.returncode == 141 and tool.stderr == "", tool.stderr
