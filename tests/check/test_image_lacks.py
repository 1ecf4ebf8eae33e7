"""app.check on an image that is not this project's (a plain NGC PyTorch SIF): it names what the image lacks for
the node, and how to add it; this project's own image and the host say nothing."""

from __future__ import annotations

import re
from pathlib import Path

from app.check.node.image import NAME, RUNTIME_MODULES, check_image
from app.check.node.network import CxiDevice, NetworkInventory
from app.check.node.probe import Probe
from app.check.report import FAIL, OK

REPO = Path(__file__).resolve().parents[2]
NGC = {"APPTAINER_CONTAINER": "/scratch/me/pytorch_26.05-py3.sif"}
SLINGSHOT = NetworkInventory([], [], [CxiDevice("cxi0", "hsn0", True)])
INFINIBAND = NetworkInventory([], [], [])


def everything(module: str) -> object:
    return object()


def without(*modules: str):
    return lambda module: None if module in modules else object()


def ngc_root(tmp_path: Path) -> Probe:
    """NGC's tree as far as the check looks: AWS's EFA aws-ofi-nccl, none of this project's."""
    (tmp_path / "opt/amazon/ofi-nccl/lib").mkdir(parents=True, exist_ok=True)
    return Probe.tree(tmp_path)


def test_a_plain_ngc_image_on_slingshot_lacks_the_cxi_stack_and_says_how_to_add_it(tmp_path) -> None:
    """The way that needs no build host comes first: the build job on a node like this one (docs/images.md), on
    the file the user has; `make image` only for those with a build host of the node's architecture."""
    [check] = check_image({**NGC, "SLURM_JOB_ID": "4242"}, SLINGSHOT, {}, ngc_root(tmp_path), inside=True,
                          find=everything, machine="aarch64")
    assert check.name == NAME and check.status == FAIL
    assert check.detail == ("/scratch/me/pytorch_26.05-py3.sif is not this project's image (no app.flavour label) "
                            "and lacks the libfabric (cxi) and aws-ofi-nccl stack Slingshot needs (NGC's "
                            "/opt/amazon/ofi-nccl is AWS's EFA build)")
    assert check.remedy == ("build this project's image on it as a job on a node like this one, from the project "
                            "directory: sbatch -p <partition> --export=ALL,FLAVOUR=aarch64,"
                            "BASE=/scratch/me/pytorch_26.05-py3.sif jobscripts/build-image.sh (docs/images.md), then "
                            "IMAGE=build/app-aarch64-<version>.sif; with a build host of your own (aarch64, "
                            "fakeroot): make image ARCH=aarch64 BASE=/scratch/me/pytorch_26.05-py3.sif")


def test_under_pbs_the_build_job_is_submitted_with_qsub(tmp_path) -> None:
    [check] = check_image({**NGC, "PBS_JOBID": "15481.pbs01"}, SLINGSHOT, {}, ngc_root(tmp_path), inside=True,
                          find=everything, machine="arm64")
    assert check.remedy.startswith("build this project's image on it as a job on a node like this one, from the "
                                   "project directory: qsub -q <queue> -v FLAVOUR=aarch64,"
                                   "BASE=/scratch/me/pytorch_26.05-py3.sif jobscripts/build-image.sh (docs/images.md)")


def test_the_knobs_the_remedy_sets_are_the_build_jobs_own(tmp_path) -> None:
    """Each variable the remedy passes to jobscripts/build-image.sh is an override its header lists and
    docs/knobs.md's build-job table documents."""
    [check] = check_image(NGC, SLINGSHOT, {}, ngc_root(tmp_path), inside=True, find=everything, machine="x86_64")
    exported = re.search(r"--export=ALL,(\S+) jobscripts/build-image\.sh", check.remedy)
    assert exported, check.remedy
    knobs = [item.split("=", 1)[0] for item in exported.group(1).split(",")]
    assert knobs == ["FLAVOUR", "BASE"]
    header = (REPO / "jobscripts" / "build-image.sh").read_text().split("set -euo pipefail")[0]
    table = (REPO / "docs" / "knobs.md").read_text().split("## The image build job")[1].split("\n## ")[0]
    for knob in knobs:
        assert re.search(rf"^#.*\b{knob} \[", header, re.M), f"build-image.sh's header lists no {knob}"
        assert f"| `{knob}` |" in table, f"docs/knobs.md's build-job table has no {knob}"


def test_a_missing_python_package_is_named_with_image_extend(tmp_path) -> None:
    [check] = check_image(NGC, INFINIBAND, {}, ngc_root(tmp_path), inside=True, find=without("yaml"))
    assert check.status == FAIL
    assert check.detail.endswith("lacks Python packages pyyaml")
    assert check.remedy.startswith("add the packages: make image-extend IMAGE=/scratch/me/pytorch_26.05-py3.sif "
                                   "WHEELS=<dir> OUT=my.sif PACKAGES='pyyaml' (docs/packages.md")
    assert "; or build this project's image on it as a job" in check.remedy


def test_the_slingshot_fabric_named_by_the_job_counts_without_cxi_devices_visible(tmp_path) -> None:
    [check] = check_image({**NGC, "APP_FABRIC": "slingshot"}, INFINIBAND, {}, ngc_root(tmp_path), inside=True,
                          find=everything)
    assert check.status == FAIL and "Slingshot needs" in check.detail


def test_a_plain_image_with_everything_the_node_needs_passes_and_says_it_is_not_ours(tmp_path) -> None:
    [check] = check_image(NGC, INFINIBAND, {}, ngc_root(tmp_path), inside=True, find=everything)
    assert check.status == OK and "not this project's image" in check.detail


def test_this_projects_image_and_the_host_say_nothing(tmp_path) -> None:
    assert check_image(NGC, SLINGSHOT, {"app.flavour": "aarch64"}, ngc_root(tmp_path), inside=True) == []
    assert check_image({}, SLINGSHOT, {}, ngc_root(tmp_path), inside=False) == []


def test_the_modules_checked_are_the_projects_runtime_dependencies() -> None:
    text = (REPO / "pyproject.toml").read_text()
    dependencies = re.search(r'^dependencies = \[(.*)\]$', text, re.M).group(1)
    names = {re.match(r'"([A-Za-z0-9_.-]+)', item.strip()).group(1).lower() for item in dependencies.split(",")}
    assert names - {"torch", "tqdm"} == set(RUNTIME_MODULES)  # tqdm: a terminal's progress bar only
