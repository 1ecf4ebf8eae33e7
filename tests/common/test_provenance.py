"""app.common.provenance: the running image's labels, or None outside a container."""

from __future__ import annotations

import json

from app.common.provenance import image_provenance


def test_outside_a_container_there_is_no_provenance(tmp_path):
    assert image_provenance(tmp_path / "labels.json", environ={}) is None


def test_inside_an_image_the_labels_and_the_sif_path_are_returned(tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"app.pin.torch": "2.13.0", "org.opencontainers.image.revision": "abc123"}))
    assert image_provenance(labels, environ={"APPTAINER_CONTAINER": "/images/app.sif"}) == {
        "image": "/images/app.sif",
        "labels": {"app.pin.torch": "2.13.0", "org.opencontainers.image.revision": "abc123"},
    }


def test_a_corrupt_labels_file_is_reported_not_raised(tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_text("{not json")
    result = image_provenance(labels, environ={"SINGULARITY_CONTAINER": "/x.sif"})
    assert result is not None
    assert (result["image"], result["labels"]) == ("/x.sif", {})
    assert result["error"].startswith(f"cannot read {labels}")
