"""app/host/launch/import_path.py: where the workers of each workload import from."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from app.host.launch.import_path import import_path_env

REPO = "/gpfs/projects/p1/ddp"


@pytest.mark.parametrize(("kind", "env", "expected"), [
    ("train", {}, ["PYTHONSAFEPATH=1", f"PYTHONPATH={REPO}"]),
    ("check", {"PYTHONPATH": "/opt/mine"}, ["PYTHONSAFEPATH=1", f"PYTHONPATH={REPO}:/opt/mine"]),
    ("train", {"PYTHONSAFEPATH": ""}, ["PYTHONSAFEPATH=1", f"PYTHONPATH={REPO}"]),  # empty: unset, to Python
    ("train", {"PYTHONSAFEPATH": "0"}, [f"PYTHONPATH={REPO}"]),  # yours, and on: Python reads any value as on
    ("train", {"PYTHONPATH": f"{REPO}:/opt/mine"}, ["PYTHONSAFEPATH=1"]),  # already first: not twice
    ("script", {}, []),  # your own code lives where you keep it
    ("module", {}, []),
    ("nccl-tests", {}, []),
])
def test_the_jobs_own_workloads_import_this_checkout_and_nothing_from_the_working_directory(kind, env, expected):
    said: list[str] = []
    assert import_path_env(kind, REPO, env, said.append) == expected
    kept = [line for line in said if line.startswith("keeping PYTHONSAFEPATH=")]
    assert kept == ([f"keeping PYTHONSAFEPATH={env['PYTHONSAFEPATH']} (set by you)"]
                    if env.get("PYTHONSAFEPATH") else [])
    assert any("yours is empty, which Python reads as unset" in line for line in said) == (
        env.get("PYTHONSAFEPATH") == "")


@pytest.mark.parametrize("yours", [None, "", "0", "1"], ids=["unset", "empty", "0", "1"])
def test_what_the_workers_get_puts_no_working_directory_on_pythons_path(yours):
    """Whatever PYTHONSAFEPATH you set, the environment the workers get (yours, then the job's exports) turns on
    the safe path of the Python that reads it (sys.flags.safe_path, 3.11+)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONSAFEPATH"}
    if yours is not None:
        env["PYTHONSAFEPATH"] = yours
    env.update(pair.split("=", 1) for pair in import_path_env("train", REPO, env, lambda line: None))
    shown = subprocess.run([sys.executable, "-c", "import sys; print(sys.flags.safe_path)"], env=env,
                           capture_output=True, text=True, timeout=60, check=True)
    assert shown.stdout.strip() == "True"
