"""Route 3 of docs/images.md, an image the user already has: a plain NGC PyTorch SIF given to the job scripts as
IMAGE=, here the NGC twin's base (tests/fixtures/twin.py: NGC's layout and environment, no project build on it),
submitted as docs/images.md says (`sbatch ... --export=ALL,IMAGE=$PWD/pytorch_XX.YY-py3.sif jobscripts/slurm.sh
check`) to the Slurm test cluster. The ranks run this checkout's `app` in it (PYTHONPATH,
app/host/launch/import_path.py) and the check's `image: what it lacks` line (app/check/node/image.py) says what the
image lacks for the site, or that it has what the node needs.

The twin base (3 GB of CUDA wheels from PyPI and a squashfs: a few minutes) is built by `nox -s tests` (`make test`,
CI) beside its first run (DDP_TEST_TWIN_BASE=1), and by `nox -s image_twin`; elsewhere these tests skip, saying so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fixtures.slurm import REPO, Job, SlurmCluster
from tests.fixtures.twin import twin_base

pytestmark = [pytest.mark.slurm, pytest.mark.apptainer, pytest.mark.slow]

#: The imported fixture, named here for pytest (which finds a module's fixtures among its names) and for ruff
__all__ = ["twin_base"]

SLURM_SH = REPO / "jobscripts" / "slurm.sh"
NOT_OURS = "is not this project's image (no app.flavour label) and "


def check_job(cluster: SlurmCluster, image: Path, **env: str) -> Job:
    """`sbatch -N2 jobscripts/slurm.sh check` with IMAGE=the plain image, 2 CPU ranks a node, from a submit directory
    of the job user's, which is not the checkout: the job binds the checkout, as docs/images.md says to."""
    workdir = cluster.workdir()
    job_id = cluster.submit(workdir, "-N2", str(SLURM_SH), "check",
                            env={"IMAGE": str(image), "GPUS_PER_NODE": "2", "BINDS": str(REPO), **env})
    job = cluster.wait(job_id, workdir, timeout_s=600)
    print(f"\n--- job {job_id} ({job.state} {job.exit_code}) ---\n{job.output[-6000:]}")
    return job


def image_lines(job: Job) -> list[str]:
    return [line for line in job.output.splitlines() if "image: what it lacks" in line]


def test_the_job_scripts_check_the_nodes_in_a_plain_ngc_image_which_has_what_a_socket_node_needs(
        twin_base: Path, slurm_cluster: SlurmCluster) -> None:
    job = check_job(slurm_cluster, twin_base)
    assert job.state == "COMPLETED", job.output[-6000:]
    [line] = image_lines(job) or [""]
    assert NOT_OURS + "has what this node needs: pyyaml, numpy" in line, job.output[-6000:]


def test_on_slingshot_the_check_in_a_plain_ngc_image_names_the_stack_it_lacks_and_how_to_add_it(
        twin_base: Path, slurm_cluster: SlurmCluster) -> None:
    """FABRIC=slingshot (gh200 sites): NGC's aws-ofi-nccl is AWS's EFA build; the check says so, with the build
    on the file the user has as the way to add it, and the job fails."""
    job = check_job(slurm_cluster, twin_base, FABRIC="slingshot", PREFLIGHT="0")
    assert job.state != "COMPLETED", job.output[-6000:]
    text = "\n".join(image_lines(job))
    assert NOT_OURS + "lacks the libfabric (cxi) and aws-ofi-nccl stack Slingshot needs" in text, job.output[-6000:]
    assert re.search(r"sbatch -p <partition> --export=ALL,FLAVOUR=\S+,BASE=\S+ jobscripts/build-image\.sh",
                     job.output), job.output[-6000:]
