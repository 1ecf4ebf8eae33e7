"""The config check before any step (standard library only): for `train`, the trainer's --dry-run for this
allocation, once, on the batch host. A bad key, or a dashboard whose package the image lacks (run.tensorboard,
run.wandb_project), stops the job here with the trainer's one line (exit 2) instead of on every rank after the
preflight; the log shows the plan (batch, steps, memory per rank). Under DRY_RUN=1 it runs where the image is (a
login node), with Apptainer's default binds: the run directory, which the job binds, does not exist yet."""

import shutil
import subprocess
from os.path import isfile
from typing import Callable, Sequence

from app.host.launch.host_checks import imports_the_project


def config_check(log: Callable[[str], None], workload_kind: str, image: str, runtime: str, dry_run: bool,
                 container: Sequence[str], workload: Sequence[str], nnodes: int, nproc: int) -> int:
    """The check's exit code (0 when it passed or does not apply)."""
    if workload_kind != "train":
        return 0
    python = [*container, "python"]  # type: List[str]
    if dry_run and image != "none":
        if not isfile(image) or not shutil.which(runtime):
            log(f"DRY_RUN=1: no config check here (no image {image} or no {runtime})")
            return 0
        python = [runtime, "exec", image, "python"]
    if image == "none" and not imports_the_project("python"):
        log("no config check: the python in PATH cannot import this project")
        return 0
    log(f"config check: python {' '.join(workload)} --dry-run for {nnodes * nproc} ranks")
    rc = subprocess.call([*python, *workload, "--dry-run", "--world-size", str(nnodes * nproc), "--nodes",
                          str(nnodes)], stdin=subprocess.DEVNULL)
    if rc:
        log(f"the config check failed (exit {rc}; its line above says how to fix it): nothing was started")
    return rc
