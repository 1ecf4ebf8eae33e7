"""app.host.common.provenance: the running image's labels, or None outside a container."""

from __future__ import annotations

import json

from app.host.common.provenance import image_provenance


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


def test_an_image_pulled_from_a_registry_names_its_digest_and_how_to_pull_it_again(tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_text("{}")
    digest = "sha256:" + "ab" * 32
    pull = "oras://registry.example.org/group/app:0.1.0-x86_64@" + digest
    environ = {"APPTAINER_CONTAINER": f"/home/u/ddp/build/images/sha256-{'ab' * 32}.sif",
               "DDP_IMAGE_DIGEST": digest, "DDP_IMAGE_PULL": pull}
    result = image_provenance(labels, environ=environ)
    assert result is not None
    assert (result["digest"], result["pull"]) == (digest, pull)


def test_a_digest_left_in_the_environment_is_not_claimed_for_another_image(tmp_path):
    labels = tmp_path / "labels.json"
    labels.write_text("{}")
    environ = {"APPTAINER_CONTAINER": "/images/app.sif", "DDP_IMAGE_DIGEST": "sha256:" + "ab" * 32,
               "DDP_IMAGE_PULL": "oras://registry.example.org/group/app@sha256:" + "ab" * 32}
    result = image_provenance(labels, environ=environ)
    assert result is not None
    assert "digest" not in result and "pull" not in result


def test_a_local_image_the_job_hashed_names_its_sha256(tmp_path):
    """`sha256sum app.sif` later says whether a file is the image the run ran (app/host/launch/image_sha256.py)."""
    labels = tmp_path / "labels.json"
    labels.write_text("{}")
    sha256 = "sha256:" + "ef" * 32
    environ = {"APPTAINER_CONTAINER": "/home/u/ddp/app.sif", "DDP_IMAGE_SHA256": sha256,
               "DDP_IMAGE_FILE": "/home/u/ddp/./app.sif"}
    result = image_provenance(labels, environ=environ)
    assert result is not None
    assert result["sha256"] == sha256 and "digest" not in result


def test_a_sha256_left_in_the_environment_is_not_claimed_for_another_image(tmp_path):
    """Your own script may start another image from the job (its environment passes on): the sha256 is the hashed
    file's only."""
    labels = tmp_path / "labels.json"
    labels.write_text("{}")
    environ = {"APPTAINER_CONTAINER": "/home/u/other.sif", "DDP_IMAGE_SHA256": "sha256:" + "ef" * 32,
               "DDP_IMAGE_FILE": "/home/u/ddp/app.sif"}
    result = image_provenance(labels, environ=environ)
    assert result is not None
    assert "sha256" not in result
