"""The container every step runs in: `apptainer exec --nv BINDS APPTAINER_ARGS IMAGE`, or none (IMAGE=none runs the
host's program), and where the node wrapper finds the fabric policy inside it (standard library only)."""

import re
import shutil
from os.path import isfile
from typing import Callable, List, NamedTuple, Optional, Sequence

from app.host.common.errors import UsageError
from app.host.launch.oci_registry import is_registry_image

#: The image's own copy of the fabric policy (containers/), tried before the checkout's
IMAGE_POLICY = "/opt/app/fabric_policy.env"


class Container(NamedTuple):
    """The container command (empty: none), and what the job needs to know besides."""

    #: The runtime found (apptainer, or singularity, MareNostrum's name for it)
    runtime: str
    #: The fabric policy files the node wrapper tries, first found first (colon-separated)
    policy: str
    #: IMAGE=none: the host program whose python must import this project (checked by the job script), or ""
    host_program: str
    argv: List[str]
    said: List[str]


def container(image: str, runtime: str, runtime_args: str, launch: str, workload_kind: str, dry_run: bool,
              binds: Sequence[str], policy_file: str,
              which: Callable[[str], Optional[str]] = shutil.which) -> Container:
    """The container for the job's steps; a missing image or runtime stops the job (UsageError), except under
    DRY_RUN=1, which plans on a login node where they may not be, and only says so."""
    said = []  # type: List[str]

    def needed(message: str) -> None:
        if not dry_run:
            raise UsageError(message)
        said.append(f"warning (DRY_RUN=1, going on): {message}")

    if image == "none":
        program = "all_reduce_perf" if workload_kind == "nccl-tests" else "python" if launch == "srun" else "torchrun"
        if not which(program):
            needed(f"IMAGE=none runs the host's {program}, but {program} is not in PATH; activate your environment "
                   "(e.g. source .venv/bin/activate) or set IMAGE=/path/app.sif")
        said.append(f"IMAGE=none: running the host's {which(program) or ''}, no container")
        checked = "" if dry_run or program == "all_reduce_perf" else program
        return Container(runtime, policy_file, checked, [], said)
    if not isfile(image) and not (dry_run and is_registry_image(image)):  # the dry run said it would pull it
        needed(f"image {image} not found; build it with 'make image' (x86_64) or 'make image ARCH=aarch64' (GH200), "
               "or set IMAGE=/path/to/app.sif (IMAGE=none: no container)")
    if not which(runtime):
        if runtime == "apptainer" and which("singularity"):
            runtime = "singularity"
        else:
            needed(f"{runtime} not found in PATH; load it (MareNostrum 5: module load singularity) or set "
                   "APPTAINER=/path/to/apptainer")
    extra = re.split(r"[ \t\n]+", runtime_args.strip(" \t\n")) if runtime_args.strip(" \t\n") else []
    # --nv binds the host's NVIDIA driver libraries and /dev/nvidia*; NCCL and the fabric libraries are in the
    # image. The host environment (NCCL_*, FI_*, SLURM_*, PMI_*) passes through, which the cxi provider needs for
    # its job authorisation.
    argv = [runtime, "exec", "--nv", *binds, *extra, image]
    # Inside the container: the image's policy, else the checkout's (visible when it is under a bound path)
    return Container(runtime, IMAGE_POLICY + ":" + policy_file, "", argv, said)
