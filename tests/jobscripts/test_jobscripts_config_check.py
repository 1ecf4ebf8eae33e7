"""The trainer's config, checked by the job scripts on the head node before anything starts
(app/host/launch/config_check.py).

A bad key, or a dashboard whose package the run cannot import (run.tensorboard, run.wandb_project: the images ship
neither), stops the job in one line before the preflight, the launcher check and the rendezvous; under DRY_RUN=1
the same check runs on a login node, where it also prints the trainer's plan. Here with IMAGE=none: this
checkout's trainer on the test's interpreter, tensorboard hidden where a case needs it to be missing. A valid
config in a job is planned before the preflight: held on the training job of tests/jobscripts/test_jobscripts_slurm.py
(test_in_a_job_a_valid_config_is_planned_for_the_allocation_before_the_preflight), not on a job of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.jobscripts.test_jobscripts_slurm import (  # image_env: the module's fixture, found here by name
    JOBSCRIPTS,
    image_env,  # noqa: F401
)
from tests.trainer_runs import REPO

pytestmark = pytest.mark.slow  # each case starts the trainer's interpreter: a second of CPU to import torch


def dry_run_job(tmp_path: Path, *args: str, hide: str = "") -> subprocess.CompletedProcess[str]:
    """`DRY_RUN=1 IMAGE=none bash jobscripts/slurm.sh ARGS` on a 'login node' (no job), HIDE not importable."""
    path = [str(REPO)]
    if hide:
        hidden = tmp_path / "hidden"
        hidden.mkdir()
        (hidden / f"{hide}.py").write_text("raise ImportError('hidden by the test')\n")
        path.insert(0, str(hidden))
    env = {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path), "DRY_RUN": "1",
           "DRY_RUN_NODES": "gpu01,gpu02", "GPUS_PER_NODE": "2", "IMAGE": "none", "PYTHONPATH": ":".join(path)}
    submit = tmp_path / "submit"
    submit.mkdir()
    return subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), *args], env=env, cwd=submit,
                          capture_output=True, text=True, timeout=120)


def test_a_dashboard_whose_package_is_missing_stops_the_job_before_any_step(tmp_path: Path) -> None:
    result = dry_run_job(tmp_path, "train", "run.tensorboard=true", hide="tensorboard")
    assert result.returncode == 2, result.stdout[-3000:] + result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "run.tensorboard=true needs the tensorboard package" in errors[0], result.stderr
    assert "Traceback" not in result.stderr
    assert "] step: " not in result.stdout, "the job went on to its steps"


def test_a_misspelt_key_stops_the_job_before_any_step(tmp_path: Path) -> None:
    result = dry_run_job(tmp_path, "train", "train.batchsize=8")
    assert result.returncode == 2, result.stdout[-3000:] + result.stderr[-3000:]
    assert "unknown config key 'train.batchsize'; did you mean train.batch_size?" in result.stderr
    assert "] step: " not in result.stdout


def test_a_valid_config_is_planned_for_the_allocation_and_the_job_goes_on(tmp_path: Path) -> None:
    result = dry_run_job(tmp_path, "train", "train.max_steps=5")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "# dry run: nothing started" in result.stdout
    assert "world size" in result.stdout and "4 (--world-size)" in result.stdout
    assert "] step: " in result.stdout and "DRY_RUN=1: not running it" in result.stdout
    assert list((tmp_path / "submit").iterdir()) == []  # the check writes nothing


def test_your_own_script_is_not_checked_as_a_trainer_config(tmp_path: Path) -> None:
    (tmp_path / "submit").mkdir()
    (tmp_path / "submit" / "mine.py").write_text("print('mine')\n")
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "mine.py", "run.tensorboard=true"],
                            env={"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path),
                                 "DRY_RUN": "1", "IMAGE": "none", "PYTHONPATH": str(REPO)},
                            cwd=tmp_path / "submit", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "config check" not in result.stdout


def test_in_a_job_a_dashboard_the_image_lacks_fails_in_seconds_naming_the_image_extension(
        slurm_cluster, image_env) -> None:  # noqa: F811 (image_env: the imported fixture)
    """On the Slurm test cluster, in the smoke image (which has no tensorboard): before the preflight."""
    if image_env["IMAGE"] == "none":
        pytest.skip("DDP_SLURM_TEST_IMAGE=none: the host's environment has tensorboard")
    workdir = slurm_cluster.workdir()
    job_id = slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), "train", "run.tensorboard=true",
                                  env={"CONFIG": "regression", "GPUS_PER_NODE": "2", **image_env})
    job = slurm_cluster.wait(job_id, workdir)
    assert job.state == "FAILED" and job.exit_code == "2:0", job.output[-4000:]
    (error,) = [line for line in job.output.splitlines() if line.startswith("error: ")]
    assert error.startswith("error: run.tensorboard=true needs the tensorboard package: the image ")
    assert f"make image-extend IMAGE={image_env['IMAGE']} WHEELS=DIR OUT=my.sif PACKAGES=tensorboard" in error
    assert "preflight:" not in job.output and "] step: " not in job.output, job.output[-4000:]
