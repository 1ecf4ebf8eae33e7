"""Which software is this process running: Python, torch, the CUDA runtime and the NCCL torch was built with, for
the trainer's run manifest and the check's node report alike (imports torch: the trainer's and the check's side
only, never the batch host's; the image's labels are app/host/common/provenance.py's)."""

from __future__ import annotations

import platform


def nccl_version() -> str:
    """The NCCL torch was built with, '' without CUDA."""
    import torch

    if not torch.cuda.is_available() or not hasattr(torch.cuda, "nccl"):
        return ""
    try:
        version = torch.cuda.nccl.version()
    except (RuntimeError, AttributeError):
        return ""
    return ".".join(map(str, version)) if isinstance(version, tuple) else str(version)


def versions() -> dict[str, str | None]:
    """Python, torch, the CUDA runtime and NCCL torch was built with (None without CUDA), the machine."""
    import torch

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "nccl": nccl_version() or None,
        "machine": platform.machine(),
    }
