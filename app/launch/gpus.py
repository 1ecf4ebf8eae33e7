"""How many processes a node runs, and how many GPUs Slurm gives each task (standard library only)."""

import shutil
import subprocess
from typing import Callable, Mapping, Optional, Tuple

from app.common.errors import UsageError
from app.launch.numbers import is_whole


def gpus_per_task(env: Mapping[str, str]) -> str:
    """The N of `srun --gpus-per-task=N` (sbatch's or the environment's), or ''. Slurm up to 23.05 exports
    SLURM_GPUS_PER_TASK=N; from 23.11 only SLURM_TRES_PER_TASK, a list such as `cpu=4,gres/gpu=1` or
    `gres/gpu:h100=2` (srun(1) of slurm-25-11-7-1: "If --cpus-per-task or --gpus-per-task is specified, it is
    also set in SLURM_TRES_PER_TASK"). Anything but a whole number reads as ''."""
    found = env.get("SLURM_GPUS_PER_TASK", "")
    if not found:
        for item in env.get("SLURM_TRES_PER_TASK", "").split(","):
            name, _, count = item.partition("=")
            if (name == "gres/gpu" or (name.startswith("gres/gpu:") and len(name) > len("gres/gpu:"))) and \
                    is_whole(count):
                found = count
    return (found if is_whole(found) else "")


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
