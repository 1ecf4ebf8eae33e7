"""How a new user meets the project first: `make help`, and the two installed commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trainer_runs import REPO, clean_env


def test_make_help_shows_the_values_the_targets_will_use():
    result = subprocess.run(["make", "-s", "help", "NPROC=3", "CONFIG=gpt2-h100"], cwd=REPO, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "$(" not in result.stdout, result.stdout
    assert "(3 ranks;" in result.stdout and "torch 2.13.0 (CPU)" in result.stdout
    assert "  NPROC=3\n" in result.stdout and "  CONFIG=gpt2-h100\n" in result.stdout


@pytest.mark.slow  # five processes, each starting torch
def test_the_installed_commands_are_the_modules(tmp_path):
    bin_dir = Path(sys.executable).parent
    for script, module in (("app-train", "app.train"), ("app-check", "app.check")):
        assert os.access(bin_dir / script, os.X_OK), f"{script} is not installed: pip install -e ."
        installed = subprocess.run([str(bin_dir / script), "--help"], env=clean_env(), cwd=tmp_path,
                                   capture_output=True, text=True, timeout=60, check=False)
        direct = subprocess.run([sys.executable, "-m", module, "--help"], env=clean_env(), cwd=tmp_path,
                                capture_output=True, text=True, timeout=60, check=False)
        assert installed.returncode == direct.returncode == 0, installed.stderr
        assert installed.stdout == direct.stdout
    bad = subprocess.run([str(bin_dir / "app-train"), "max_steps=3"], env=clean_env(), cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and "did you mean train.max_steps?" in bad.stderr


def _scripts() -> dict[str, str]:
    """[project.scripts] of pyproject.toml: installed command -> `module:function`."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]


# Each installed command, and the module `python -m` runs for it.
_COMMANDS = {"app-train": "app.train", "app-check": "app.check", "app-diagnose": "app.host.diagnose",
             "app-report": "app.host.report", "app-export": "app.train.export"}


def test_every_command_is_installed_as_its_modules_command_function():
    assert set(_scripts()) == set(_COMMANDS)
    for script, target in _scripts().items():
        module, function = target.split(":")
        assert module.startswith(_COMMANDS[script]) and function == "command", (script, target)


@pytest.mark.slow  # four processes, two starting torch
@pytest.mark.parametrize("script", ["app-report", "app-export"])
def test_an_installed_command_runs_what_python_m_runs(tmp_path, script):
    """What the installed script calls (its target function) answers as `python -m` does: same help, same
    one-line refusal and exit code for a path that is not a run or a snapshot."""
    module, function = _scripts()[script].split(":")
    for args in (["--help"], [str(tmp_path / "missing"), str(tmp_path / "out.pt")][: 2 if "export" in script else 1]):
        installed = subprocess.run([sys.executable, "-c", f"from {module} import {function}; {function}()", *args],
                                   env=clean_env(), cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
        direct = subprocess.run([sys.executable, "-m", _COMMANDS[script], *args], env=clean_env(), cwd=REPO,
                                capture_output=True, text=True, timeout=60, check=False)
        assert (installed.returncode, installed.stdout, installed.stderr) == \
            (direct.returncode, direct.stdout, direct.stderr)
        assert installed.returncode == (0 if args == ["--help"] else 2), installed.stderr
