"""examples/ddp_checkpoint.py, the script docs/your-script.md holds up, on 4 CPU ranks of one machine as
`python -m app.launch local` starts it: stopped at a step between its checkpoints and resumed, it ends with the
parameters of a run never stopped (4 ranks: with 2, every order of an all-reduce's sum rounds alike)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.trainer_runs import REPO, clean_env

DONE = re.compile(r"done: (\d+) steps on 4 ranks, params ([0-9a-f]{16})")


def run_example(run_dir: Path, steps: int) -> str:
    """The example to `steps` in `run_dir` (resuming from its checkpoint there); the parameters' digest it prints."""
    result = subprocess.run([sys.executable, "-m", "app.launch", "local", "--nproc-per-node=4", "--",
                             "examples/ddp_checkpoint.py", "--steps", str(steps)],
                            cwd=REPO, env=clean_env(RUN_DIR=str(run_dir)), text=True, capture_output=True, timeout=300)
    done = DONE.search(result.stdout)
    assert result.returncode == 0 and done and done.group(1) == str(steps), result.stdout + result.stderr
    return done.group(2)


@pytest.mark.slow  # five runs of four interpreters importing torch (about a minute on 2 cores)
def test_the_example_resumed_at_any_step_ends_with_the_parameters_of_a_run_never_stopped(tmp_path: Path) -> None:
    uninterrupted = run_example(tmp_path / "uninterrupted", 30)
    # Stopped after its first step, and between its checkpoints (every 20 steps); each resume's first step all-reduces
    # with the buckets DDP made at its start, the run never stopped with the ones it made after its first step
    for stop in (1, 24):
        resumed = tmp_path / f"stopped-at-{stop}"
        run_example(resumed, stop)
        assert run_example(resumed, 30) == uninterrupted, f"resumed at step {stop}"
