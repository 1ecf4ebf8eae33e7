"""The run manifest: what ran, where, with which versions: enough to reproduce or compare a run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import torch

from app.common.software_versions import versions
from app.host.common.provenance import image_provenance

PACKAGE_DIR = Path(__file__).resolve().parent


def git_revision(directory: Path = PACKAGE_DIR) -> str | None:
    try:
        result = subprocess.run(
            ["git", "-C", str(directory), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() or None


def _versions() -> dict[str, Any]:
    found = versions()
    if torch.cuda.is_available():
        found["gpu"] = torch.cuda.get_device_name()
    return found


def build_manifest(config: dict[str, Any], hostnames: list[str], launcher: str, backend: str) -> dict[str, Any]:
    return {
        "command": sys.argv,
        "config": config,
        "versions": _versions(),
        "world_size": len(hostnames),
        "hosts": sorted(set(hostnames)),
        "rank_hosts": hostnames,
        "launcher": launcher,
        "backend": backend,
        "git_revision": git_revision(),
        "image": image_provenance(),
    }
