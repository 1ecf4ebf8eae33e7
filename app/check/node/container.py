"""Are we inside Apptainer, which image (its labels), and can the container see the GPUs and HCAs?"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.check.node.network import NetworkInventory
from app.check.node.probe import HOST, Probe
from app.check.report import FAIL, OK, WARN, Check
from app.host.common.provenance import read_labels


def in_apptainer(env: Mapping[str, str], root: str = "/") -> bool:
    return (
        bool(env.get("APPTAINER_CONTAINER") or env.get("SINGULARITY_CONTAINER"))
        or (Path(root) / ".singularity.d").is_dir()
    )


def image_version(labels: Mapping[str, str]) -> str:
    """A label identifying the image build (version, then digest-like keys), '' when there is none."""
    for key in sorted(labels):
        if key.lower().endswith(("image.version", "org.opencontainers.image.version", "version")):
            return labels[key]
    return ""


def check_container(
    env: Mapping[str, str], inv: NetworkInventory, gpu_count: int, probe: Probe = HOST
) -> list[Check]:
    labels = read_labels(str(probe.root))
    inside = in_apptainer(env, str(probe.root))
    checks = []
    if inside:
        image = env.get("APPTAINER_CONTAINER") or env.get("SINGULARITY_CONTAINER") or "?"
        version = image_version(labels)
        checks.append(
            Check(
                "container: Apptainer",
                OK,
                f"image {image}" + (f", version {version}" if version else "") + f", {len(labels)} labels",
            )
        )
    else:
        checks.append(Check("container: Apptainer", OK, "not in a container (host environment)"))
    dev = probe.dev
    nvidia = sorted(p.name for p in dev.glob("nvidia[0-9]*"))
    if nvidia and gpu_count == 0:
        checks.append(
            Check(
                "container: GPU devices",
                WARN,
                f"{', '.join(nvidia)} present but torch sees no GPU",
                "start the container with --nv, and use an image whose torch has CUDA",
            )
        )
    if inv.rdma and not (dev / "infiniband").is_dir():
        checks.append(
            Check(
                "container: /dev/infiniband",
                FAIL,
                "the node has HCAs but /dev/infiniband is not visible: NCCL cannot open them",
                "bind it: apptainer exec --bind /dev/infiniband ... (needed with --contain/--containall)",
            )
        )
    elif inv.rdma:
        checks.append(
            Check(
                "container: /dev/infiniband",
                OK,
                ", ".join(sorted(p.name for p in (dev / "infiniband").iterdir())),
            )
        )
    return checks
