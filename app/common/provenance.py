"""Which image is this process running in? Reads the labels Apptainer stores in every SIF.

`make image` records every pinned version (app.pin.*), what the build actually installed
(app.installed.*), the base digest, the git revision and the build date as labels; inside the
container they are at /.singularity.d/labels.json. `python -m app.check` prints them and the trainer
writes them into each run's manifest, so a result can always be traced to the exact image.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LABELS_PATH = Path("/.singularity.d/labels.json")


def image_provenance(labels_path: Path = LABELS_PATH,
                     environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The running image's provenance, or None outside an Apptainer/Singularity container.

    Returns {"image": path of the SIF (from $APPTAINER_CONTAINER / $SINGULARITY_CONTAINER) or None,
             "labels": {label: value}}; "error" is added (and labels is {}) when the labels file
    cannot be read or parsed: provenance must never stop a training run.
    """
    environ = os.environ if environ is None else environ
    if not labels_path.exists():
        return None
    image = environ.get("APPTAINER_CONTAINER") or environ.get("SINGULARITY_CONTAINER")
    try:
        labels = json.loads(labels_path.read_text())
    except (OSError, ValueError) as err:
        return {"image": image, "labels": {}, "error": f"cannot read {labels_path}: {err}"}
    if not isinstance(labels, dict):
        return {"image": image, "labels": {}, "error": f"{labels_path} does not hold a JSON object"}
    return {"image": image, "labels": {str(k): str(v) for k, v in labels.items()}}
