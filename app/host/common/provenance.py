"""Which image is this process running? One reader of the image labels, for the trainer's run manifest and the
check's node report alike (standard library only: the job scripts' history line runs it on the batch host; which
torch, CUDA and NCCL run is app/common/software_versions.py's, which imports torch).

`make image` records every pinned version (app.pin.*), what the build actually installed
(app.installed.*), the base digest, the git revision and the build date as labels; inside the
container Apptainer keeps them at /.singularity.d/labels.json.
"""

import json
import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Tuple

#: Where Apptainer/Singularity images keep their labels (`%labels` plus build metadata).
LABELS_FILE = ".singularity.d/labels.json"
LABELS_PATH = Path("/") / LABELS_FILE


def _load_labels(path: Path) -> Tuple[Dict[str, str], str]:
    """The labels and '' , or {} and what is wrong with the file."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        return {}, f"cannot read {path}: {err}"
    if not isinstance(data, dict):
        return {}, f"{path} does not hold a JSON object"
    return {str(k): str(v) for k, v in data.items()}, ""


def read_labels(root: str = "/") -> Dict[str, str]:
    """The image's labels under `root`, {} outside a container or when the file is unreadable."""
    return _load_labels(Path(root) / LABELS_FILE)[0]


def image_provenance(labels_path: Path = LABELS_PATH,
                     environ: Optional[Mapping[str, str]] = None) -> Optional[Dict[str, Any]]:
    """The running image's provenance, or None outside an Apptainer/Singularity container.

    Returns {"image": path of the SIF (from $APPTAINER_CONTAINER / $SINGULARITY_CONTAINER) or None,
             "labels": {label: value}}, with "digest" and "pull" for an image pulled from a registry, "sha256" for a
    local image the job hashed; "error" is added (and labels is {}) when the labels file cannot be read or parsed:
    provenance must never stop a training run.
    """
    environ = os.environ if environ is None else environ
    if not labels_path.exists():
        return None
    image = environ.get("APPTAINER_CONTAINER") or environ.get("SINGULARITY_CONTAINER")
    labels, error = _load_labels(labels_path)
    return {"image": image, **registry_digest(image, environ), **local_sha256(image, environ), "labels": labels,
            **({"error": error} if error else {})}


def registry_digest(image: Optional[str], environ: Mapping[str, str]) -> Dict[str, str]:
    """{"digest": ..., "pull": ...} when the running image is the one the job script pulled from a registry
    (app/host/launch/image_registry.py names the file for its digest and exports both), else {}: a run names exactly
    which image to pull again (`IMAGE=<pull>`)."""
    digest, pull = environ.get("DDP_IMAGE_DIGEST", ""), environ.get("DDP_IMAGE_PULL", "")
    if not (image and digest and pull) or Path(image).name != digest.replace(":", "-") + ".sif":
        return {}
    return {"digest": digest, "pull": pull}


def local_sha256(image: Optional[str], environ: Mapping[str, str]) -> Dict[str, str]:
    """{"sha256": ...} when the running image is the local file the job script hashed (app/host/launch/image_sha256.py
    exports its sha256 and path), else {}: `sha256sum FILE` says later whether a file is the image the run ran."""
    sha256, hashed = environ.get("DDP_IMAGE_SHA256", ""), environ.get("DDP_IMAGE_FILE", "")
    if not (image and sha256 and hashed) or os.path.normpath(image) != os.path.normpath(hashed):
        return {}
    return {"sha256": sha256}
