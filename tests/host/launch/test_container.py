"""app/host/launch/container.py: the container command of every step, or none, with the host's PATH as given."""

from __future__ import annotations

import pytest

from app.host.common.errors import UsageError
from app.host.launch.container import container

POLICY = "/repo/app/host/common/fabric_policy.env"


def which(*found: str):
    """A stand-in for the PATH lookup: each name in FOUND is in /usr/bin."""
    return lambda name: f"/usr/bin/{name}" if name in found else None


def plan(image: str, tmp_path, *, found=("apptainer",), runtime="apptainer", args="", launch="torchrun",
         kind="train", dry_run=False):
    if image == "app.sif":
        (tmp_path / image).touch()
        image = str(tmp_path / image)
    return container(image, runtime, args, launch, kind, dry_run, ["--bind", "/runs/42"], POLICY, which(*found))


def test_the_image_runs_under_apptainer_with_the_binds_then_your_flags(tmp_path):
    got = plan("app.sif", tmp_path, args=" --contain\t--cleanenv ")
    assert got.argv == ["apptainer", "exec", "--nv", "--bind", "/runs/42", "--contain", "--cleanenv",
                        str(tmp_path / "app.sif")]
    assert (got.runtime, got.policy, got.host_program, got.said) == (
        "apptainer", "/opt/app/fabric_policy.env:" + POLICY, "", [])


def test_singularity_stands_in_for_a_missing_apptainer_but_not_for_one_you_named(tmp_path):
    assert plan("app.sif", tmp_path, found=("singularity",)).argv[0] == "singularity"
    with pytest.raises(UsageError, match=r"^/opt/x/apptainer not found in PATH; load it \(MareNostrum 5: module load "
                                         r"singularity\) or set APPTAINER=/path/to/apptainer$"):
        plan("app.sif", tmp_path, found=("singularity",), runtime="/opt/x/apptainer")


def test_a_missing_image_stops_the_job_but_only_warns_when_planning(tmp_path):
    missing = str(tmp_path / "none.sif")
    with pytest.raises(UsageError, match=f"^image {missing} not found; build it with 'make image'"):
        plan(missing, tmp_path)
    got = plan(missing, tmp_path, dry_run=True, found=())
    assert [line.split(":")[0] for line in got.said] == ["warning (DRY_RUN=1, going on)"] * 2
    assert got.argv[-1] == missing


def test_a_registry_image_the_dry_run_would_pull_is_not_called_missing(tmp_path):
    got = plan("oras://registry.example.org/group/app:0.1.0-x86_64", tmp_path, dry_run=True)
    assert got.said == [] and got.argv[-1] == "oras://registry.example.org/group/app:0.1.0-x86_64"


@pytest.mark.parametrize("launch, kind, program, checked", [
    ("torchrun", "train", "torchrun", "torchrun"),
    ("srun", "script", "python", "python"),
    ("torchrun", "nccl-tests", "all_reduce_perf", ""),  # an MPI program: no python to check
])
def test_image_none_runs_the_hosts_program_and_names_the_python_to_check(tmp_path, launch, kind, program, checked):
    got = plan("none", tmp_path, found=(program,), launch=launch, kind=kind)
    assert (got.argv, got.policy, got.host_program) == ([], POLICY, checked)
    assert got.said == [f"IMAGE=none: running the host's /usr/bin/{program}, no container"]


def test_image_none_without_the_program_says_how_to_get_it(tmp_path):
    with pytest.raises(UsageError, match=r"^IMAGE=none runs the host's torchrun, but torchrun is not in PATH; "
                                         r"activate your environment"):
        plan("none", tmp_path, found=())
    assert plan("none", tmp_path, found=(), dry_run=True).host_program == ""
