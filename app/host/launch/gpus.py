"""How many processes a node runs (standard library only); how many GPUs Slurm gives each task is read in
app/host/common/scheduler_env.py."""

import shutil
import subprocess
from typing import Callable, Mapping, Optional, Tuple

from app.host.common.errors import UsageError
from app.host.common.scheduler_env import gpus_per_task
from app.host.launch.numbers import is_whole


def nvidia_smi_gpus() -> Optional[int]:
    """GPUs `nvidia-smi -L` lists, None without nvidia-smi or when it fails (no driver)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        listing = subprocess.run([smi, "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 universal_newlines=True, timeout=60, check=False).stdout  # noqa: UP021 (3.6)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return sum(line.startswith("GPU ") for line in listing.splitlines()) or None


def processes_per_node(knob: str, allocation: str, env: Mapping[str, str],
                       count_gpus: Callable[[], Optional[int]] = nvidia_smi_gpus) -> Tuple[int, str]:
    """One process per GPU a node of the job has -> (count, where it came from): GPUS_PER_NODE, else the
    allocation's GPUs a node, else CUDA_VISIBLE_DEVICES, else `nvidia-smi -L`. Stops (UsageError) when none
    says, when the count is not a positive whole number, or when `--gpus-per-task` asks for more GPUs than a
    node has (no task could start, or every one would stop in the trainer)."""
    sources = [(knob, "GPUS_PER_NODE"), (allocation, "the allocation")]  # type: List[Tuple[Optional[str], str]]
    visible = env.get("CUDA_VISIBLE_DEVICES", "")
    if visible:
        sources.append((str(len(visible.split(","))), "CUDA_VISIBLE_DEVICES"))
    count, source = next(((value, where) for value, where in sources if value), (None, ""))
    if count is None:
        smi = count_gpus()
        count, source = (str(smi), "nvidia-smi -L") if smi else (None, "")
    if count is None:
        raise UsageError("cannot tell how many processes to start per node: the job has no GPUs; request them "
                         "(Slurm: --gres=gpu:4; PBS: ngpus=4) or set GPUS_PER_NODE=N (on CPU: processes per node)")
    if not is_whole(count) or count.startswith("0"):
        raise UsageError(f"GPUS_PER_NODE={count} is not a positive whole number; example: GPUS_PER_NODE=4")
    nproc = int(count)
    per_task = gpus_per_task(env)
    if per_task and int(per_task) > nproc:
        raise UsageError(
            f"--gpus-per-task={per_task} but a node of this job has {nproc} GPU(s): no task could start; ask for "
            f"at most {nproc} per task, e.g. sbatch --gpus-per-task=1 --ntasks-per-node={nproc} (LAUNCH=srun), or "
            "leave --gpus-per-task out (torchrun gives each worker one GPU)")
    return nproc, source
