"""Machine vs image vs Python build architecture: an x86_64 image on an aarch64 node fails here,
not with `exec format error` deep in a job."""

from __future__ import annotations

import os
import sysconfig
from collections.abc import Mapping

from app.check.report import FAIL, OK, Check

#: Names for one architecture across uname, OCI/Debian and Python's platform tags.
ALIASES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def normalize(arch: str) -> str:
    return ALIASES.get(arch.strip().lower(), arch.strip().lower())


def image_arch(labels: Mapping[str, str]) -> str:
    for key, value in labels.items():
        if key.lower().endswith(("arch", "architecture")):
            return normalize(value)
    return ""


def check_arch(
    labels: Mapping[str, str], machine: str | None = None, python_platform: str | None = None
) -> list[Check]:
    machine = normalize(machine or os.uname().machine)
    python_arch = normalize((python_platform or sysconfig.get_platform()).rsplit("-", 1)[-1])
    image = image_arch(labels)
    detail = f"machine {machine}, Python build {python_arch}" + (f", image {image}" if image else "")
    remedy = f"build the image for this node: make image ARCH={machine}"
    if image and image != machine:
        return [Check("arch: machine/image/python", FAIL, detail + ": the image is for another architecture", remedy)]
    if python_arch != machine:
        return [Check("arch: machine/image/python", FAIL, detail + ": Python runs under emulation", remedy)]
    return [Check("arch: machine/image/python", OK, detail)]
