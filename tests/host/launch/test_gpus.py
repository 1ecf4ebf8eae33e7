"""app/host/launch/gpus.py: processes per node, from the scheduler's environment (--gpus-per-task is read in
app/host/common/scheduler_env.py: tests/common/test_scheduler_env.py)."""

from __future__ import annotations

import pytest

from app.host.common.errors import UsageError
from app.host.launch.gpus import processes_per_node


def no_gpus_listed():
    return None


@pytest.mark.parametrize(("knob", "allocation", "env", "smi", "expected"), [
    ("3", "4", {}, None, (3, "GPUS_PER_NODE")),
    ("", "4", {"CUDA_VISIBLE_DEVICES": "0,1"}, None, (4, "the allocation")),
    ("", "", {"CUDA_VISIBLE_DEVICES": "0,1"}, None, (2, "CUDA_VISIBLE_DEVICES")),
    ("", "", {}, 8, (8, "nvidia-smi -L")),
    ("4", "", {"SLURM_TRES_PER_TASK": "gres/gpu=4"}, None, (4, "GPUS_PER_NODE")),
])
def test_processes_per_node_come_from_the_first_that_says(knob, allocation, env, smi, expected):
    assert processes_per_node(knob, allocation, env, count_gpus=lambda: smi) == expected


@pytest.mark.parametrize(("knob", "env", "message"), [
    ("", {}, "the job has no GPUs; request them (Slurm: --gres=gpu:4; PBS: ngpus=4)"),
    ("four", {}, "GPUS_PER_NODE=four is not a positive whole number; example: GPUS_PER_NODE=4"),
    ("0", {}, "GPUS_PER_NODE=0 is not a positive whole number"),
    ("4", {"SLURM_GPUS_PER_TASK": "8"}, "--gpus-per-task=8 but a node of this job has 4 GPU(s)"),
])
def test_a_count_that_cannot_start_the_job_is_refused_with_the_fix(knob, env, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        processes_per_node(knob, "", env, count_gpus=no_gpus_listed)
