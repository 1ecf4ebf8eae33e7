"""An image that is not this project's (a plain NGC PyTorch SIF, IMAGE=pytorch_XX.YY-py3.sif): what it lacks for
this node, and how to add it. The job scripts run this checkout's `app` in any image (the ranks start in the
submit directory, which Apptainer binds, and carry the compat step and the fabric policy as text), so what such an
image can lack is what it must bring itself: the Python packages the project imports, and on Slingshot the
aws-ofi-nccl plugin with a libfabric that has the cxi provider (NGC ships AWS's EFA build of aws-ofi-nccl under
/opt/amazon, with EFA's libfabric, which has no cxi).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Mapping

from app.check.node.arch import normalize
from app.check.node.network import NetworkInventory
from app.check.node.probe import Probe
from app.check.report import FAIL, OK, Check
from app.check.scheduler_words import build_image_job

NAME = "image: what it lacks"
#: A label only this project's image build writes (containers/app.def %labels)
PROJECT_LABEL = "app.flavour"
#: What a job imports of the project's dependencies (pyproject.toml) besides torch: distribution -> module. Not tqdm:
#: only a terminal's progress bar imports it (app/train/metrics.py), never a batch job.
RUNTIME_MODULES = {"pyyaml": "yaml", "numpy": "numpy"}
#: Where the project's image puts aws-ofi-nccl, built against its libfabric 1.22.0 with cxi (containers/scripts)
PROJECT_PLUGIN = "opt/aws-ofi-nccl/lib/libnccl-net.so"


def _slingshot(inventory: NetworkInventory, env: Mapping[str, str]) -> bool:
    """A Slingshot node: cxi devices seen, or the job's fabric named (FABRIC=slingshot: APP_FABRIC on the node)."""
    return bool(inventory.cxi) or env.get("APP_FABRIC", "").lower() == "slingshot"


def missing_modules(find: Callable[[str], object] = importlib.util.find_spec) -> list[str]:
    """The project's runtime dependencies this Python cannot import, by distribution name."""
    return [name for name, module in RUNTIME_MODULES.items() if find(module) is None]


def build_remedy(env: Mapping[str, str], image: str, machine: str) -> str:
    """This project's image built on IMAGE for this node's architecture: as a job, the way of those with no build
    host of their own (no root, no fakeroot, another architecture on the login node), else `make image`."""
    return (f"build this project's image on it as a job on a node like this one, from the project directory: "
            f"{build_image_job(machine, image, env)} (docs/images.md), then IMAGE=build/app-{machine}-<version>.sif; "
            f"with a build host of your own ({machine}, fakeroot): make image ARCH={machine} BASE={image}")


def check_image(env: Mapping[str, str], inventory: NetworkInventory, labels: Mapping[str, str], probe: Probe,
                inside: bool, find: Callable[[str], object] = importlib.util.find_spec,
                machine: str | None = None) -> list[Check]:
    """Nothing to say outside a container or in this project's own image (its build checks all of this).
    `machine`: this node's architecture (default: uname's), the flavour the remedy builds."""
    if not inside or PROJECT_LABEL in labels:
        return []
    image = env.get("APPTAINER_CONTAINER") or env.get("SINGULARITY_CONTAINER") or "this image"
    lacks = []
    packages = missing_modules(find)
    if packages:
        lacks.append("Python packages " + ", ".join(packages))
    if _slingshot(inventory, env) and not (probe.root / PROJECT_PLUGIN).exists():
        found = " (NGC's /opt/amazon/ofi-nccl is AWS's EFA build)" if (probe.root / "opt/amazon/ofi-nccl").is_dir() \
            else ""
        lacks.append("the libfabric (cxi) and aws-ofi-nccl stack Slingshot needs" + found)
    if not lacks:
        return [Check(NAME, OK, f"{image} is not this project's image (no {PROJECT_LABEL} label) and has what this "
                                "node needs: " + ", ".join(RUNTIME_MODULES)
                      + (", and Slingshot's stack" if _slingshot(inventory, env) else ""))]
    remedy = build_remedy(env, image, normalize(machine or os.uname().machine))
    if not _slingshot(inventory, env) or (probe.root / PROJECT_PLUGIN).exists():
        remedy = (f"add the packages: make image-extend IMAGE={image} WHEELS=<dir> OUT=my.sif "
                  f"PACKAGES='{' '.join(packages)}' (docs/packages.md: the wheels from a login node), then "
                  "IMAGE=my.sif; or " + remedy)
    return [Check(NAME, FAIL, f"{image} is not this project's image (no {PROJECT_LABEL} label) and lacks "
                              + "; ".join(lacks), remedy)]
