"""app/host/launch/import_path.py: where the workers of each workload import from."""

from __future__ import annotations

import pytest

from app.host.launch.import_path import import_path_env

REPO = "/gpfs/projects/p1/ddp"


@pytest.mark.parametrize(("kind", "env", "expected"), [
    ("train", {}, ["PYTHONSAFEPATH=1", f"PYTHONPATH={REPO}"]),
    ("check", {"PYTHONPATH": "/opt/mine"}, ["PYTHONSAFEPATH=1", f"PYTHONPATH={REPO}:/opt/mine"]),
    ("train", {"PYTHONSAFEPATH": ""}, [f"PYTHONPATH={REPO}"]),  # yours, even empty (off)
    ("train", {"PYTHONPATH": f"{REPO}:/opt/mine"}, ["PYTHONSAFEPATH=1"]),  # already first: not twice
    ("script", {}, []),  # your own code lives where you keep it
    ("module", {}, []),
    ("nccl-tests", {}, []),
])
def test_the_jobs_own_workloads_import_this_checkout_and_nothing_from_the_working_directory(kind, env, expected):
    said: list[str] = []
    assert import_path_env(kind, REPO, env, said.append) == expected
    assert ("keeping PYTHONSAFEPATH= (set by you)" in said) == ("PYTHONSAFEPATH" in env)
