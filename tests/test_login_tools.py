"""`python -m app.diagnose` and `python -m app.report` run where failed jobs are read: on login nodes, whose Python
is the system's (SLES 15 on HPE systems ships 3.6) and which have no torch. Checked three ways: every module the two
entry points import parses for Python 3.6 (vermin reads the syntax and the standard library names used), running
them imports no torch, and, where a Python 3.6 interpreter is found (LOGIN_PYTHON, PATH, pyenv), they run under
it and print what the newest Python prints."""

from __future__ import annotations

import ast
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

from tests.launch import REPO, clean_env

#: app.launch runs the job on the batch host (jobscripts/*.sh start it), whose python3 is the same system one
ENTRY_POINTS = ("app.host.diagnose", "app.host.report", "app.host.launch")
#: What the job runs on the nodes' own python3 (app/host/launch/checkout.py module_command), SLES 15's 3.6 too.
JOB_SCRIPT_MODULES = ("app.host.launch.heal", "app.host.launch.pbs", "app.host.common.history", "app.host.launch.image_registry")
OLDEST_LOGIN_PYTHON = "3.6"
A_LOG = REPO / "tests" / "diagnose" / "logs" / "pytorch-118369-watchdog.log"


def module_file(name: str) -> Path | None:
    """The file of module `name` of this checkout (a package's __init__.py), None when it is not one."""
    path = REPO.joinpath(*name.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def imported_app_modules(module: str) -> set[str]:
    """The names of the app modules `module` imports, at its top or inside its functions (both run on a login
    node), and the packages above each of them (Python imports those first)."""
    tree = ast.parse(module_file(module).read_text(), module)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    found = {name for name in names if name.split(".")[0] == "app" and module_file(name)}
    return found | {".".join(name.split(".")[:i]) for name in found for i in range(1, name.count(".") + 1)}


def import_closure(entries, modules=()) -> list[Path]:
    """The files of the entry points (packages run with -m), the modules, and every app module they import."""
    seen, todo = set(), [f"{entry}.__main__" for entry in entries] + list(entries) + list(modules)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imported_app_modules(name) - seen)
    return sorted(module_file(name) for name in seen)


def write_run(run_dir: Path) -> Path:
    """A run directory as the trainer leaves it after five steps."""
    run_dir.mkdir()
    steps = [{"step": s, "loss": 1.0 / s, "step_time_s": 0.01, "samples_per_s": 3200.0, "time": 1e9 + s}
             for s in range(1, 6)]
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(step) + "\n" for step in steps))
    (run_dir / "history.jsonl").write_text('{"attempt": 1, "start_step": 0, "total_steps": 5}\n')
    (run_dir / "summary.json").write_text('{"status": "completed", "step": 5}')
    return run_dir


def test_the_closure_holds_the_entry_points_and_what_they_share():
    files = {str(path.relative_to(REPO)) for path in import_closure(ENTRY_POINTS)}
    assert {"app/__init__.py", "app/host/diagnose/__main__.py", "app/host/diagnose/causes.py", "app/host/report/__main__.py",
            "app/host/report/run_record.py", "app/host/common/errors.py", "app/host/common/remedies.py", "app/host/launch/cli.py",
            "app/host/launch/plan.py", "app/host/launch/gpus.py"} <= files, files
    job_script_files = {str(path.relative_to(REPO)) for path in import_closure((), JOB_SCRIPT_MODULES)}
    assert {"app/host/launch/heal.py", "app/host/launch/pbs.py", "app/host/launch/requeue.py", "app/host/common/errors.py",
            "app/host/common/history.py", "app/host/common/private_dir.py", "app/host/common/provenance.py"} <= job_script_files, \
        job_script_files


def test_ruff_holds_every_module_of_the_closure_to_its_oldest_python():
    """pyproject.toml's per-file-target-version names each file (py37: the oldest ruff knows), so that ruff's
    pyupgrade rules never turn one into syntax SLES 15's 3.6 cannot run."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")
    targets = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]["per-file-target-version"]
    files = [str(path.relative_to(REPO)) for path in import_closure(ENTRY_POINTS, JOB_SCRIPT_MODULES)]
    unnamed = [name for name in files if not any(fnmatch.fnmatchcase(name, glob) for glob in targets)]
    assert unnamed == [], f"add each to [tool.ruff.per-file-target-version] as \"py37\": {unnamed}"
    assert {targets[glob] for glob in targets} == {"py37"}, targets


def test_every_module_the_login_tools_import_parses_for_python_3_6():
    vermin = shutil.which("vermin", path=str(Path(sys.executable).parent)) or shutil.which("vermin")
    if vermin is None:
        pytest.fail("vermin is not installed: pip install -e '.[test]'")
    files = [str(path) for path in import_closure(ENTRY_POINTS, JOB_SCRIPT_MODULES)]
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
        f"for argv in ([{str(A_LOG)!r}], [{str(run_dir)!r}, '--png', {str(tmp_path / 'r.png')!r}]):\n"
        "    module = 'app.host.diagnose' if len(argv) == 1 else 'app.host.report'\n"
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
    for argv in (["app.host.diagnose", str(A_LOG)], ["app.host.report", str(run_dir), "--png", str(tmp_path / "r.png")]):
        old = subprocess.run([login_python(), "-m", *argv], env=env, cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, check=False)
        new = subprocess.run([sys.executable, "-m", *argv], env=env, cwd=tmp_path, capture_output=True, text=True,
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
