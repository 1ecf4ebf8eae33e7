"""A node with GPUs that CUDA cannot use stops the run with the fix instead of training on the CPU
(app/common/gpu_presence.py). This machine's torch is a CPU build, which is one of the causes; the node's GPUs
are a fake tree (APP_PROBE_ROOT), as the host's driver shows them in /proc and /dev."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.common.gpu_presence import unusable_gpus
from app.host.common import exitcodes
from tests.trainer_runs import REPO, clean_env, run, train_command


@pytest.fixture
def gpu_node(tmp_path: Path) -> Path:
    """A node whose driver manages four GPUs (one /proc entry per PCI address, a /dev node each)."""
    for index, address in enumerate(("0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0")):
        (tmp_path / "proc/driver/nvidia/gpus" / address).mkdir(parents=True)
        (tmp_path / "dev").mkdir(exist_ok=True)
        (tmp_path / "dev" / f"nvidia{index}").touch()
    (tmp_path / "dev/nvidiactl").touch()
    return tmp_path


def gpu_env(node: Path, **extra: str) -> dict[str, str]:
    """clean_env, but with the GPUs not hidden (clean_env hides them for the CPU tests)."""
    env = clean_env(APP_PROBE_ROOT=str(node), **extra)
    env.pop("CUDA_VISIBLE_DEVICES")
    return env


def test_gpus_cuda_cannot_use_are_named_with_the_cause_and_the_fix(gpu_node: Path):
    problem = unusable_gpus({"APP_PROBE_ROOT": str(gpu_node)})
    assert problem is not None
    assert "this node has 4 NVIDIA GPU(s) (/proc/driver/nvidia/gpus)" in problem
    assert "is a CPU-only build" in problem and "--nv" in problem and "CUDA_VISIBLE_DEVICES=" in problem


def test_the_device_nodes_count_when_proc_has_no_driver_entries(gpu_node: Path):
    for entry in (gpu_node / "proc/driver/nvidia/gpus").iterdir():
        entry.rmdir()
    assert "4 NVIDIA GPU(s) (/dev/nvidia*)" in unusable_gpus({"APP_PROBE_ROOT": str(gpu_node)})


def test_no_gpus_or_gpus_hidden_on_purpose_are_a_cpu_run(gpu_node: Path, tmp_path_factory):
    assert unusable_gpus({"APP_PROBE_ROOT": str(tmp_path_factory.mktemp("cpu-node"))}) is None
    assert unusable_gpus({"APP_PROBE_ROOT": str(gpu_node), "CUDA_VISIBLE_DEVICES": ""}) is None


@pytest.mark.slow  # two trainer processes, one of them training
def test_the_trainer_stops_in_one_line_and_trains_on_the_cpu_only_when_asked(gpu_node: Path, tmp_path: Path):
    stopped = run(train_command("--config", "regression", "train.epochs=1", f"run.dir={tmp_path / 'a'}"),
                  env=gpu_env(gpu_node), timeout=120)
    assert stopped.returncode == exitcodes.USAGE, stopped.stderr
    errors = [line for line in stopped.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "this node has 4 NVIDIA GPU(s)" in errors[0], stopped.stderr
    assert "Traceback" not in stopped.stderr and not (tmp_path / "a" / "metrics.jsonl").exists()
    on_purpose = run(train_command("--config", "regression", "train.epochs=1", "dist.backend=gloo",
                                   f"run.dir={tmp_path / 'b'}"), env=gpu_env(gpu_node), timeout=120)
    assert on_purpose.returncode == 0, on_purpose.stderr


@pytest.mark.slow  # the check's interpreter, importing torch
def test_the_checks_node_report_fails_the_gpus_with_the_fix(gpu_node: Path):
    result = subprocess.run([sys.executable, "-m", "app.check", "--node-only"], cwd=REPO, env=gpu_env(gpu_node),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == exitcodes.PREFLIGHT, result.stdout + result.stderr
    assert "FAIL    gpu: devices" in result.stdout and "this node has 4 NVIDIA GPU(s)" in result.stdout
