"""The node's NVIDIA driver against the CUDA the image's torch was built for. From CUDA 11 on, a toolkit runs
on any driver of at least its major family's minimum ("minor version compatibility", NVIDIA's CUDA
Compatibility guide: 11.x >= 450.80.02, 12.x >= 525.60.13, 13.x >= 580), with a limited feature set below the
toolkit's own driver (no PTX JIT); below the minimum CUDA does not initialise ("CUDA driver version is
insufficient for CUDA runtime version"). The image cannot bring its own driver: Apptainer's --nv binds the
host's.
"""

from __future__ import annotations

from app.check.node.gpu import driver_version
from app.check.node.probe import Probe
from app.check.report import FAIL, OK, Check

NAME = "gpu: driver vs CUDA"
#: The smallest driver each CUDA major family runs on (CUDA Compatibility guide, minor version compatibility).
MINIMUM = {11: "450.80.02", 12: "525.60.13", 13: "580"}


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def judge_driver(driver: str, cuda: str) -> Check:
    major = (_numbers(cuda) or (0,))[0]
    detail = f"driver {driver}, the image's torch built for CUDA {cuda}"
    minimum = MINIMUM.get(major)
    if minimum is None:
        return Check(NAME, OK, f"{detail} (no minimum known for CUDA {major})")
    if _numbers(driver) < _numbers(minimum):
        return Check(NAME, FAIL, f"{detail}: CUDA {major}.x needs driver {minimum} or newer",
                     "run on nodes with a newer driver (the admins update it), or build the image on an older "
                     "NGC PyTorch base (containers/versions.env) whose CUDA this driver runs and point IMAGE= at it")
    return Check(NAME, OK, f"{detail} (at least {minimum})")


def check_driver(probe: Probe, cuda: str) -> list[Check]:
    """Nothing to compare on a CPU build of torch or a node without an NVIDIA driver."""
    driver = driver_version(str(probe.proc)) if cuda not in ("", "none") else ""
    return [judge_driver(driver, cuda)] if driver else []
