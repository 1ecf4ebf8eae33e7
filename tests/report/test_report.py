"""`python -m app.report` on real run directories: one that restarted after a kill and was requeued for a
bad node, read while its next attempt still trains, and read again when done."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from app.host.launch.checkout import module_command
from tests.trainer_runs import REPO, clean_env, finish, run, start, torchrun_command, wait_for_step, workers

pytestmark = pytest.mark.slow

GPT = ["--config", "demo", "data.tokens=200000", "run.log_every=1", "train.eval_every=20", "snapshot.every=25"]


def report(run_dir, *extra):
    return subprocess.run([sys.executable, "-m", "app.report", str(run_dir), *extra], env=clean_env(), cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)


def pixels_of(png, colour: str) -> int:
    """How many pixels of the picture have this matplotlib colour."""
    import matplotlib.colors
    import matplotlib.image

    image = matplotlib.image.imread(str(png))[:, :, :3]
    return int((np.abs(image - np.array(matplotlib.colors.to_rgb(colour))).sum(axis=2) < 0.05).sum())


def test_the_report_tells_the_story_of_a_restarted_and_requeued_run_while_it_trains_and_when_done(tmp_path):
    run_dir = tmp_path / "run"
    # Attempt 1 killed after step 30, attempt 2 (torchrun's restart) resumes from step 25 and finishes at 60
    agent = start(torchrun_command(2, *GPT, "train.max_steps=60", f"run.dir={run_dir}", max_restarts=1))
    wait_for_step(run_dir, 30, agent)
    os.kill(workers(agent.pid)[-1], signal.SIGKILL)
    assert "resuming from" in finish(agent) and agent.returncode == 0
    # A job leaves node2 out and requeues (the line as the history's command writes it, on the host's python3 as
    # the job runs its modules), attempt 3
    requeue = subprocess.run(module_command("app.host.common.history", "event", str(run_dir), "requeue",
                                            "preflight: node2 slow", "--hosts", "node1,node2", "--excluded", "node2",
                                            "--job-id", "42", "--image", "none"),
                             env=clean_env(), cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    assert requeue.returncode == 0, requeue.stderr
    third = start(torchrun_command(2, *GPT, "train.max_steps=2000", "train.epochs=30", f"run.dir={run_dir}"))
    try:
        wait_for_step(run_dir, 80, third)
        during = report(run_dir)
    finally:
        third.send_signal(signal.SIGTERM)  # torchrun passes it on: the workers snapshot and stop (exit 75)
        finish(third)
    assert during.returncode == 0, during.stderr
    lines = during.stdout.splitlines()
    assert lines[0].startswith(f"{run_dir}: in progress at step ") and " of 2000 (last step " in lines[0], lines
    assert "to go" in lines[0]
    assert lines[1].startswith("loss ") and "validation " in lines[1] and "(best " in lines[1]
    assert "3 attempts; restarted from step 25; requeued without node2 from step 60" in during.stdout
    png = run_dir / "report.png"
    assert f"picture: {png}" in during.stdout
    import matplotlib.image

    assert matplotlib.image.imread(str(png)).shape[:2] == (700, 1000)
    from app.host.report.figure import REQUEUE_COLOUR, RESTART_COLOUR, TRAIN_COLOUR, VALIDATION_COLOUR

    for colour in (TRAIN_COLOUR, VALIDATION_COLOUR, RESTART_COLOUR, REQUEUE_COLOUR):
        assert pixels_of(png, colour) > 100, colour

    after = report(run_dir, "--png", str(tmp_path / "after.png"))
    assert after.returncode == 0
    assert after.stdout.splitlines()[0].startswith(f"{run_dir}: preempted at step ")
    assert (tmp_path / "after.png").stat().st_size > 10_000


def test_a_directory_that_is_not_a_run_is_refused_with_the_fix(tmp_path):
    result = report(tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "holds no metrics.jsonl" in result.stderr and "runs/demo" in result.stderr


def test_without_matplotlib_the_text_comes_with_a_hint(tmp_path):
    done = run([sys.executable, "-m", "app.train", "--config", "demo", "train.max_steps=5", f"run.dir={tmp_path}"])
    assert done.returncode == 0, done.stderr
    hidden = tmp_path / "hide"
    hidden.mkdir()
    (hidden / "matplotlib.py").write_text("raise ImportError('hidden by the test')\n")
    result = subprocess.run([sys.executable, "-m", "app.report", str(tmp_path)], cwd=REPO, capture_output=True,
                            text=True, timeout=120, check=False,
                            env=clean_env(PYTHONPATH=f"{hidden}{os.pathsep}{REPO}"))
    assert result.returncode == 0, result.stderr
    assert "completed at step 5" in result.stdout
    assert "no picture: matplotlib is not installed (pip install matplotlib)" in result.stderr
    assert not (tmp_path / "report.png").exists()
