"""GPUs and the software that drives them: count, model, memory, driver; torch, CUDA and NCCL versions."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import torch

from app.check.report import FAIL, OK, Check
from app.common.gpu_presence import unusable_gpus
from app.common.software_versions import versions

NVIDIA_SMI_TIMEOUT_S = 15.0


@dataclass
class GpuInfo:
    count: int
    models: list[str] = field(default_factory=list)
    memory_gib: list[float] = field(default_factory=list)
    driver: str = ""


def driver_version(proc_root: str = "/proc") -> str:
    """From /proc/driver/nvidia/version ('NVRM version: ... 550.54.15 ...'), else nvidia-smi."""
    text = ""
    with contextlib.suppress(OSError):
        text = (Path(proc_root) / "driver/nvidia/version").read_text()
    for token in text.split():
        if token.count(".") >= 1 and token.replace(".", "").isdigit():
            return token
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run(
                [smi, "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=NVIDIA_SMI_TIMEOUT_S,
            )
            return (out.stdout.split() or [""])[0]
        except (subprocess.TimeoutExpired, OSError):
            return ""
    return ""


def gpu_info() -> GpuInfo:
    if not torch.cuda.is_available():
        return GpuInfo(0)
    count = torch.cuda.device_count()
    props = [torch.cuda.get_device_properties(i) for i in range(count)]
    return GpuInfo(count, [p.name for p in props], [round(p.total_memory / 2**30, 1) for p in props], driver_version())


#: The versions every rank must agree on ('none' where absent).
AGREED_VERSIONS = ("torch", "cuda", "nccl", "python")


def agreed_versions() -> dict[str, str]:
    found = versions()
    return {key: found[key] or "none" for key in AGREED_VERSIONS}


def check_gpus(info: GpuInfo, vers: Mapping[str, str], env: Mapping[str, str]) -> list[Check]:
    software = f"torch {vers['torch']}, CUDA runtime {vers['cuda']}, NCCL {vers['nccl']}"
    if info.count == 0:
        problem = unusable_gpus(env)
        if problem:  # a GPU node whose CUDA does not work: the job would train on the CPU
            cause, _, fix = problem.partition("; ")
            return [Check("gpu: devices", FAIL, f"{cause} ({software})", remedy=fix)]
        return [Check("gpu: devices", OK, f"no GPU visible: CPU run with gloo ({software})")]
    models = sorted(set(info.models))
    visible = env.get("CUDA_VISIBLE_DEVICES", "<unset>")
    return [
        Check(
            "gpu: devices",
            OK,
            f"{info.count}x {'/'.join(models)} ({min(info.memory_gib)} GiB), driver {info.driver or '?'}, "
            f"CUDA_VISIBLE_DEVICES={visible}; {software}",
        )
    ]
