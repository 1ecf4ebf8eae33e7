"""The node's NVIDIA driver against the CUDA the image's torch was built for. From CUDA 11 on, a toolkit runs
on any driver of at least its major family's minimum ("minor version compatibility", NVIDIA's CUDA
Compatibility guide: 11.x >= 450.80.02, 12.x >= 525.60.13, 13.x >= 580), with a limited feature set below the
toolkit's own driver (no PTX JIT); below the minimum CUDA does not initialise ("CUDA driver version is
insufficient for CUDA runtime version"). The image cannot bring its own driver: Apptainer's --nv binds the
host's. It can bring the driver's user-space half: the CUDA compat libraries (NGC: /usr/local/cuda/compat/lib.real),
which let a data-center GPU on an older driver run the newer CUDA ("forward compatibility", same guide) once they
are first on LD_LIBRARY_PATH; app/common/cuda_compat.sh puts them there under `apptainer run` and the job scripts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from app.check.node.gpu import driver_version
from app.check.node.probe import Probe
from app.check.report import FAIL, OK, Check

NAME = "gpu: driver vs CUDA"
#: The smallest driver each CUDA major family runs on (CUDA Compatibility guide, minor version compatibility).
MINIMUM = {11: "450.80.02", 12: "525.60.13", 13: "580"}
#: Where NGC's base keeps the compat libraries, first found first (the cuda-compat package's own layout second).
IMAGE_COMPAT_DIRS = ("/usr/local/cuda/compat/lib.real", "/usr/local/cuda/compat")


@dataclass(frozen=True)
class Compat:
    """The CUDA compat libraries: where they are, the driver they come from, whether they lead LD_LIBRARY_PATH."""

    path: str = ""
    driver: str = ""
    in_use: bool = False

    def describe(self) -> str:
        if self.in_use:
            return f"forward compatibility on: {self.path} (driver {self.driver or '?'}) first on LD_LIBRARY_PATH"
        if self.path:
            return f"forward compatibility off (the image has it: {self.path}, driver {self.driver or '?'})"
        return "forward compatibility off"


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _compat_driver(directory: Path) -> str | None:
    """The driver the compat libraries come from (libcuda.so.1 -> libcuda.so.595.45.04); None: no libcuda there."""
    libcuda = directory / "libcuda.so.1"
    if not libcuda.exists():
        return None
    target = os.readlink(libcuda) if libcuda.is_symlink() else ""
    version = Path(target).name.removeprefix("libcuda.so.")
    return version if _numbers(version) and version.replace(".", "").isdigit() else ""


def find_compat(root: Path, env: Mapping[str, str], driver: str = "") -> Compat:
    """The compat libraries in use: the first directory on LD_LIBRARY_PATH holding a libcuda.so.1 of another driver
    than the node's DRIVER (not a path's name: NGC's ENV always lists /usr/local/cuda/compat/lib, which holds none).
    Else the image's, present but not in use."""
    for entry in filter(None, env.get("LD_LIBRARY_PATH", "").split(":")):
        found = _compat_driver(root / entry.lstrip("/"))
        if found is None:
            continue
        if found and found != driver:  # "": a plain file, as Apptainer's --nv binds the host's libcuda
            return Compat(entry.rstrip("/") or entry, found, in_use=True)
        break
    for path in IMAGE_COMPAT_DIRS:
        found = _compat_driver(root / path.lstrip("/"))
        if found is not None:
            return Compat(path, found)
    return Compat()


def _compat_remedy(helper: str) -> str:
    """How to put the image's compat libraries first, given what app/common/cuda_compat.sh did
    (APP_CUDA_COMPAT_DONE; unset where it never ran): never "start it as you just did"."""
    if not helper:
        return ("start it with `apptainer run` or the job scripts, which put the image's compat libraries first on a "
                "data-center GPU (APP_CUDA_COMPAT=on forces it)")
    if helper == "off":
        return "APP_CUDA_COMPAT=off kept the image's compat libraries off: unset it (auto) or set APP_CUDA_COMPAT=on"
    return (f"the compat step ran (APP_CUDA_COMPAT_DONE={helper}) and left them off: set APP_CUDA_COMPAT=on to force "
            "them first")


def judge_driver(driver: str, cuda: str, compat: Compat = Compat(), helper: str = "") -> Check:
    major = (_numbers(cuda) or (0,))[0]
    detail = f"driver {driver}, the image's torch built for CUDA {cuda}"
    minimum = MINIMUM.get(major)
    if minimum is None:
        return Check(NAME, OK, f"{detail} (no minimum known for CUDA {major}); {compat.describe()}")
    if _numbers(driver) < _numbers(minimum):
        if compat.in_use:
            return Check(NAME, OK, f"{detail}; {compat.describe()}")
        remedy = ("run on nodes with a newer driver (the admins update it), or build the image on an older NGC PyTorch "
                  "base (containers/versions.env) whose CUDA this driver runs and point IMAGE= at it")
        if compat.path:
            remedy = _compat_remedy(helper) + "; or " + remedy
        return Check(NAME, FAIL, f"{detail}; {compat.describe()}: CUDA {major}.x needs driver {minimum} or newer",
                     remedy)
    # On a driver this new the image's compat libraries are not needed: naming them would only distract.
    state = compat.describe() if compat.in_use else Compat().describe()
    return Check(NAME, OK, f"{detail} (at least {minimum}); {state}")


def check_driver(probe: Probe, cuda: str, env: Mapping[str, str] | None = None) -> list[Check]:
    """Nothing to compare on a CPU build of torch or a node without an NVIDIA driver."""
    driver = driver_version(str(probe.proc)) if cuda not in ("", "none") else ""
    if not driver:
        return []
    env = os.environ if env is None else env
    return [judge_driver(driver, cuda, find_compat(probe.root, env, driver), env.get("APP_CUDA_COMPAT_DONE", ""))]
