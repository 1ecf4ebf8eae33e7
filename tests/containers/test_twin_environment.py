"""The NGC twin's environment (containers/twin/ngc-environment.sh, run by lay-out-ngc.sh) behaves as NGC's Docker
ENV does under Apptainer: the image's PATH replaces the one a container starts with (so HPC-X's mpirun and mpicc
and CUDA's nvcc are found), every other variable yields to the user's, shells start through /etc/shinit_v2, and
PIP_CONSTRAINT names an empty file, as in NGC 26.05.

The script is run into a scratch root and its environment file sourced by sh, as Apptainer sources it: no image
is built (the twin takes minutes; tests/containers/test_twin_image.py checks the built image).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TWIN = REPO / "containers" / "twin"
SITE = "/usr/local/lib/python3.11/dist-packages"
ENV_FILE = ".singularity.d/env/10-docker2singularity.sh"
#: The PATH a container has before the image's environment files run (Apptainer's default)
START_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    env = {"PATH": os.environ["PATH"], "TWIN_CUDA_VERSION": "13.0.88", "TWIN_TORCH_VERSION": "2.14.1",
           "TWIN_NCCL_VERSION": "2.30.7"}
    result = subprocess.run(["bash", str(TWIN / "ngc-environment.sh"), str(root), SITE], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return root


def _sourced(root: Path, names: list[str], **preset: str) -> dict[str, str]:
    """NAMES after sh sources the environment file, started with PATH=START_PATH and PRESET."""
    script = f". {root / ENV_FILE}\n" + "".join(f'printf "%s=%s\\n" {name} "${{{name}-unset}}"\n' for name in names)
    result = subprocess.run(["/bin/sh", "-c", script], env={"PATH": START_PATH, **preset}, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return dict(line.split("=", 1) for line in result.stdout.splitlines())


def test_the_images_path_replaces_the_one_the_container_starts_with(root):
    path = _sourced(root, ["PATH"])["PATH"].split(":")
    assert path[:3] == ["/usr/local/nvidia/bin", "/usr/local/cuda/bin", "/usr/local/mpi/bin"], path
    assert "/usr/bin" in path


def test_every_other_variable_yields_to_a_value_the_user_set(root):
    found = _sourced(root, ["CUDA_HOME", "NCCL_VERSION", "LD_LIBRARY_PATH"], CUDA_HOME="/opt/my-cuda")
    assert found["CUDA_HOME"] == "/opt/my-cuda"
    assert found["NCCL_VERSION"] == "2.30.7"
    assert found["LD_LIBRARY_PATH"].startswith(f"{SITE}/torch/lib:/usr/local/cuda/compat/lib")


def test_open_mpi_is_found_at_hpcxs_prefix_unless_the_host_passes_its_own_in(root):
    """NGC's ENV names HPC-X's Open MPI by OPAL_PREFIX; like any Docker ENV under Apptainer it yields to the value
    a host's `module load openmpi` exported (containers/app.def's %environment puts the image's back)."""
    assert _sourced(root, ["OPAL_PREFIX"]) == {"OPAL_PREFIX": "/opt/hpcx/ompi"}
    assert _sourced(root, ["OPAL_PREFIX"], OPAL_PREFIX="/host/openmpi") == {"OPAL_PREFIX": "/host/openmpi"}


def test_the_file_reads_as_apptainer_writes_a_docker_bases(root):
    """internal/pkg/build/sources/conveyorPacker_oci.go (insertEnv): PATH plain, the rest `${NAME:-"value"}`."""
    lines = (root / ENV_FILE).read_text().splitlines()
    assert lines[0] == "#!/bin/sh"
    assert [line for line in lines if line.startswith("export PATH=")] == [
        'export PATH="/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/mpi/bin:/usr/local/sbin:/usr/local/bin:'
        '/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/ucx/bin:/opt/amazon/efa/bin"']
    assert 'export CUDA_HOME="${CUDA_HOME:-"/usr/local/cuda"}"' in lines


def test_shells_start_through_shinit_v2_which_runs_nvidia_smi(root, tmp_path):
    found = _sourced(root, ["ENV", "BASH_ENV", "SHELL"])
    assert found == {"ENV": "/etc/shinit_v2", "BASH_ENV": "/etc/bash.bashrc", "SHELL": "/bin/bash"}
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    (bin_dir / "nvidia-smi").write_text(f'#!/bin/sh\necho "$*" >>{calls}\n')
    (bin_dir / "nvidia-smi").chmod(0o755)
    result = subprocess.run(["/bin/sh", "-c", f". {root / 'etc/shinit_v2'}; echo started"],
                            env={"PATH": f"{bin_dir}:{START_PATH}"}, capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "started\n", "")
    assert calls.read_text() == "-q -d COMPUTE\n"


def test_pip_constraint_names_an_empty_file_as_in_ngc_26_05(root):
    assert _sourced(root, ["PIP_CONSTRAINT", "PIP_BREAK_SYSTEM_PACKAGES"]) == {
        "PIP_CONSTRAINT": "/etc/pip/constraint.txt", "PIP_BREAK_SYSTEM_PACKAGES": "1"}
    assert (root / "etc/pip/constraint.txt").read_text() == ""


def test_the_twin_build_lays_its_environment_out_with_this_script():
    """The twin's %post runs lay-out-ngc.sh from /opt/twin-build: both scripts must be copied there and used."""
    definition = (TWIN / "ngc-pytorch.def").read_text()
    for script in ("lay-out-ngc.sh", "ngc-environment.sh", "write-docker-env.sh"):
        assert f"containers/twin/{script} /opt/twin-build/{script}" in definition
    layout = (TWIN / "lay-out-ngc.sh").read_text()
    assert 'bash "$(dirname "$0")/ngc-environment.sh" / "$site"' in layout
    assert "docker2singularity" not in layout.split("set -euo pipefail", 1)[1]  # the header's table names it
