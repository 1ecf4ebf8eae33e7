"""What the job checks on the batch host before any rank starts (standard library only): that the python IMAGE=none
runs can import this project, and that the image is built for this node's architecture."""

import platform
import re
import shutil
import subprocess
from typing import Mapping, Optional, Tuple

from app.host.common.errors import UsageError
from app.host.launch.checkout import REPO
from app.host.launch.host_command import host_output


def program_python(program: str) -> str:
    """The python PROGRAM runs its code with: torchrun's workers run under its #! line's interpreter."""
    path = shutil.which(program) or ""
    if program != "torchrun" or not path:
        return path
    try:
        with open(path, encoding="utf-8", errors="replace") as script:
            first = script.readline()
    except OSError:
        first = ""
    interpreter = first[2:].split()[0] if first.startswith("#!") and first[2:].split() else ""
    if interpreter and shutil.which(interpreter):
        return interpreter
    return shutil.which("python3") or shutil.which("python") or ""


#: Whether a python has what the workers import first: this project (from PYTHONPATH, which the job points at this
#: checkout for its own workloads: app/host/launch/import_path.py, or installed) and the packages it cannot start
#: without (pyproject.toml's), found without importing them (torch takes seconds)
HAS_THE_PROJECT = ("import app.train, importlib.util, sys; "
                   "sys.exit(any(importlib.util.find_spec(name) is None for name in ('torch', 'yaml', 'numpy')))")


def imports_the_project(python: str) -> bool:
    """Whether PYTHON, started in this directory with the job's environment (as the ranks start), imports app.train
    and finds its packages."""
    try:
        return subprocess.call([python, "-c", HAS_THE_PROJECT], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) == 0
    except OSError:
        return False


def host_python_preflight(program: str, workload_kind: str, preflight: str) -> Tuple[str, str]:
    """IMAGE=none runs your environment's python (PROGRAM's), which may not have this project: fine for your own
    script, but `train`, `check` and the preflight (python -m app.check) would die on every rank with "No module
    named 'app'". Stops train and check here (UsageError); for your own script: the PREFLIGHT to use, and the log's
    line when it turns it off."""
    python = program_python(program)
    if python and imports_the_project(python):
        return preflight, ""
    shown = python or "python"
    if workload_kind in ("train", "check", ""):
        raise UsageError(f"IMAGE=none runs {shown} from your environment, which cannot import this project and its "
                         f"packages (app, torch, yaml, numpy); install it there ({shown} -m pip install -e {REPO}) "
                         "or run in the image (IMAGE=/path/to/app.sif)")
    if preflight != "1":
        return preflight, ""
    return "0", (f"no preflight: your environment's {shown} cannot import this project (app.check); your script runs "
                 f"without it (to have it: {shown} -m pip install -e {REPO})")


def check_image_arch(runtime: str, image: str, env: Mapping[str, str]) -> None:
    """An x86_64 image on an aarch64 node fails with "exec format error" on every rank: stopped here instead."""
    node_arch = env.get("DDP_NODE_ARCH") or platform.machine()
    labels = host_output([runtime, "inspect", "--labels", image])
    found = re.search(r"^app\.arch:\s*(\S+)", labels, re.MULTILINE)
    if found and found.group(1) != node_arch:
        raise UsageError(f"image {image} is built for {found.group(1)} but this node is {node_arch}; build it with "
                         f"'make image ARCH={node_arch}' and set IMAGE to it")


def slurm_tmpfs(scheduler: str, env: Mapping[str, str]) -> Optional[str]:
    """Where Slurm's mpi/pmix makes each step's client directory (spmix_appdir_UID_JOB.STEP), as `scontrol show
    config` shows it: mpi.conf's PMIxCliTmpDirBase where set, else slurm.conf's TmpFS (/tmp by default), which may
    hold %n and %h that slurmd expands on each node (pmix_binds.sh does too). DDP_PMIX_TMPFS where set; '' outside
    Slurm or without scontrol. The step's own SLURM_PMIX_TMPDIR, first of all in mpi/pmix's order
    (src/plugins/mpi/pmix/pmixp_info.c, slurm-25-11-7-1: SLURM_PMIX_TMPDIR, a container's spool directory,
    PMIxCliTmpDirBase, TmpFS), reaches each task and is read there (pmix_binds.sh)."""
    if "DDP_PMIX_TMPFS" in env:
        return env["DDP_PMIX_TMPFS"]
    if scheduler != "slurm":
        return ""
    config = host_output(["scontrol", "show", "config"])
    # mpi.conf's values are part of the dump ("MPI Plugins Configuration"); unset reads "(null)"
    base = re.search(r"^PMIxCliTmpDirBase\s*=\s*(\S+)", config, re.MULTILINE)
    if base and base.group(1) != "(null)":
        return base.group(1)
    found = re.search(r"^TmpFS\s*=\s*(\S+)", config, re.MULTILINE)
    return found.group(1) if found else ""
