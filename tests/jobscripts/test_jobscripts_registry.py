"""The registry route as a group uses it, end to end on the Slurm test cluster: a member signs and pushes the smoke
image once (`make push`), another submits `slurm.sh` with `IMAGE=oras://...` naming it. The job pulls it on the head
node before any step (once per digest, into IMAGE_CACHE), verifies the group's signature, trains through it on both
nodes, and the run records the digest and the reference that pulls the same image again (manifest.json,
history.jsonl). The registry is Debian's docker-registry on the cluster's bridge, where the nodes reach it; the
route's refusals (a stranger's signature, a wrong digest, an aarch64 image) are in
tests/containers/test_image_registry.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.containers.test_image_registry import pushed
from tests.fixtures.registry import running_registry
from tests.fixtures.slurm import JOB_USER, REPO, SlurmCluster

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

#: The address of the cluster's bridge in the root namespace, where slurmctld listens and every node routes
#: (tests/slurm/up.sh: CTL_IP=$NET.1)
BRIDGE_ADDRESS = "10.77.0.1"


@pytest.fixture(scope="module")
def cluster_registry(slurm_cluster: SlurmCluster, tmp_path_factory: pytest.TempPathFactory):
    with running_registry(tmp_path_factory.mktemp("cluster-registry"), BRIDGE_ADDRESS) as registry:
        yield registry


def test_a_job_with_image_oras_pulls_verifies_trains_and_records_the_digest(
        slurm_cluster: SlurmCluster, cluster_registry: str, smoke_image: Path, keyring, tmp_path: Path) -> None:
    keys = keyring("group")
    image = tmp_path / "app.sif"
    shutil.copy(smoke_image, image)  # `make push` signs it in place
    pinned = pushed(image, cluster_registry, keys)  # `make push`, as the member types it
    digest = pinned.rsplit("@", 1)[1]
    tag = pinned.rsplit("@", 1)[0]  # oras://HOST:PORT/group/app:VERSION-x86_64: the tag, as a member names it

    workdir = slurm_cluster.workdir()
    # The group's public keys, where the job user reads them (a member's own keyring, in practice)
    job_keys = workdir / "keys"
    shutil.copytree(keys, job_keys)
    subprocess.run(["chown", "-R", f"{JOB_USER}:{JOB_USER}", str(job_keys)], check=True)
    job_id = slurm_cluster.submit(workdir, "-N2", str(REPO / "jobscripts" / "slurm.sh"), "train", "train.max_steps=10",
                                  env={"CONFIG": "regression", "GPUS_PER_NODE": "2", "IMAGE": tag, "PREFLIGHT": "0",
                                       "IMAGE_NO_HTTPS": "1", "IMAGE_CACHE": str(workdir / "images"),
                                       "APPTAINER_KEYSDIR": str(job_keys)})
    job = slurm_cluster.wait(job_id, workdir, timeout_s=420)
    assert job.state == "COMPLETED" and job.exit_code == "0:0", job.output[-6000:]
    cached = workdir / "images" / (digest.replace(":", "-") + ".sif")
    assert cached.is_file(), sorted(p.name for p in (workdir / "images").iterdir())
    manifest = json.loads((job.run_dir / "manifest.json").read_text())
    assert (manifest["image"]["digest"], manifest["image"]["pull"]) == (digest, pinned), manifest["image"]
    assert manifest["image"]["image"] == str(cached)
    history = [json.loads(line) for line in (job.run_dir / "history.jsonl").read_text().splitlines()]
    assert history and all(entry["image_digest"] == digest for entry in history), history
    # Named by its digest, not hashed again by the job (a local image's sha256: test_jobscripts_slurm.py)
    assert "sha256" not in manifest["image"] and all(entry["image_sha256"] is None for entry in history), history
