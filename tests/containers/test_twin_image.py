"""The CUDA flavour of containers/app.def, built for real on the NGC twin (containers/twin) from the source
mirror, offline, and checked as a user's job would meet it: the plugin loads against a Cray-layout host
libfabric 1.22.0 bound by the job scripts, nothing NGC left behind survives, nccl-tests are MPI builds.

Built once per session by the `twin_image` fixture (tests/fixtures/twin.py: `make twin-image SOURCES=<mirror>`,
about 15 minutes cold).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from app.host.launch.binds import container_binds
from tests.fixtures.apptainer import REPO as USER_VISIBLE_REPO
from tests.fixtures.apptainer import TEST_USER, user_dir
from tests.fixtures.twin import ARGS, REPO, source_mirror, twin_base, twin_image

pytestmark = [pytest.mark.apptainer, pytest.mark.slow]

PLUGIN = "/opt/aws-ofi-nccl/lib/libnccl-net.so"
#: The imported fixture, named here for pytest (which finds a module's fixtures among its names) and for ruff
__all__ = ["twin_base", "twin_image", "user_dir"]


@pytest.fixture(scope="session")
def in_twin(twin_image: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """in_twin(shell_command, binds=(), verb="exec"): run it in the image as the unprivileged test user."""
    def run(command: str, binds: tuple[str, ...] = (), verb: str = "exec") -> subprocess.CompletedProcess[str]:
        bind_args = [arg for bind in binds for arg in ("--bind", bind)]
        return subprocess.run(["runuser", "-u", TEST_USER, "--", "apptainer", verb, *bind_args, str(twin_image),
                               "sh", "-c", command], capture_output=True, text=True, timeout=600, cwd="/tmp")
    return run


@pytest.fixture(scope="session")
def cray_host_libfabric(twin_image: Path) -> Path:
    """A real libfabric 1.22.0, built from the mirror in Cray's layout (/opt/cray/libfabric/1.22.0/lib64):
    the host library the job scripts bind over the image's on Slingshot (without cxi: no libcxi here). Only its
    exported symbols and their versions are tested (ldd -r), which no optimisation changes: -O0 and no dependency
    tracking build it in about half the CPU time."""
    root = REPO / "build" / "cray-host-twin"
    prefix = root / "opt" / "cray" / "libfabric" / "1.22.0"
    if not (prefix / "lib64" / "libfabric.so.1").exists():
        script = f"""set -e
            rm -rf {root}.src && mkdir -p {root}.src && cd {root}.src
            tar -xzf {source_mirror() / ARGS['LIBFABRIC_ARCHIVE']} --strip-components=1
            ./autogen.sh >/dev/null 2>&1
            ./configure --prefix={prefix} --libdir={prefix}/lib64 --disable-static --enable-only --enable-tcp \
                --enable-rxm --enable-shm --disable-dependency-tracking CFLAGS=-O0 >/dev/null
            make -j"$(nproc)" >/dev/null && make install >/dev/null
            rm -rf {root}.src"""
        result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=1800)
        assert result.returncode == 0, result.stderr[-3000:]
    os.chmod(REPO / "build", 0o755)
    return root


def labels(sif: Path) -> dict[str, str]:
    result = subprocess.run(["apptainer", "inspect", "--json", "--labels", str(sif)], capture_output=True,
                            text=True, check=True, timeout=60)
    return json.loads(result.stdout)["data"]["attributes"]["labels"]


def test_the_cuda_flavour_builds_on_the_twin_with_every_part_recorded(twin_image):
    found = labels(twin_image)
    assert found["app.installed.nccl"] == ARGS["TWIN_NCCL_VERSION"]
    assert found["app.installed.torch"].startswith(ARGS["TWIN_TORCH_VERSION"] + "+cu")
    assert found["app.installed.libfabric"] == ARGS["LIBFABRIC_VERSION"] == "1.22.0"
    assert found["app.installed.cuda"] == ARGS["TWIN_CUDA_VERSION"].rsplit(".", 1)[0]
    assert found["app.libfabric.oldest-host-abi"] == "FABRIC_1.7"
    assert found["org.opencontainers.image.base.digest"].startswith("none: local twin")


def test_the_plugin_needs_no_libfabric_abi_newer_than_the_oldest_supported_host(in_twin):
    result = in_twin(f"objdump -T {PLUGIN} | grep -o 'FABRIC_[0-9.]*' | sort -u -V")
    assert result.returncode == 0, result.stderr
    versions = result.stdout.split()
    assert versions and versions[-1] == "FABRIC_1.7", versions


def test_on_a_slingshot_node_the_plugin_resolves_against_the_bound_cray_libfabric(in_twin, cray_host_libfabric,
                                                                                  user_dir):
    """The job's own binds (app/host/launch/binds.py, as the job's container part asks them) and the fabric policy: the
    loader takes libfabric from the host's /opt/cray/libfabric/1.22.0/lib64, with no library or version missing."""
    (cray_host_libfabric / "dev").mkdir(exist_ok=True)
    (cray_host_libfabric / "dev" / "cxi0").touch()
    args = container_binds("slingshot", str(user_dir), "", str(cray_host_libfabric), "", "").args
    binds = tuple(args[i + 1] for i, arg in enumerate(args) if arg == "--bind" and "/dev/cxi" not in args[i + 1])
    assert any(bind.endswith("/opt/cray/libfabric/1.22.0:/opt/libfabric") for bind in binds), binds
    result = in_twin(f". /opt/app/fabric_policy.env; ldd -r {PLUGIN}", binds=binds)
    assert result.returncode == 0, result.stderr
    assert "libfabric.so.1 => /opt/libfabric/lib64/libfabric.so.1" in result.stdout, result.stdout
    assert "not found" not in result.stdout  # ldd's own lines (Apptainer's INFO lines also say "not found")
    assert "undefined symbol" not in result.stdout + result.stderr


def test_the_base_has_cudas_math_headers_where_ngcs_toolkit_has_them(twin_base):
    """torch's ATen/cuda/CUDAContextLight.h includes these, so every CUDA extension (DeepSpeed's ops) needs them."""
    headers = ["cublas_v2.h", "cublasLt.h", "cusparse.h", "cusolverDn.h", "curand.h", "cufft.h"]
    result = subprocess.run(["runuser", "-u", TEST_USER, "--", "apptainer", "exec", str(twin_base), "ls",
                             *[f"/usr/local/cuda/include/{header}" for header in headers]],
                            capture_output=True, text=True, timeout=600, cwd="/tmp")
    assert result.returncode == 0, result.stderr


def test_deepspeeds_fused_adam_is_built_into_the_image_for_its_gpus(twin_image, in_twin):
    """FusedAdam (DeepSpeed's "Adam" on GPUs) compiled at build time, so no node compiles it at first use."""
    assert labels(twin_image)["app.deepspeed.prebuilt-ops"] == "fused_adam for TORCH_CUDA_ARCH_LIST=8.0;9.0+PTX"
    result = in_twin("python3 -c 'import deepspeed.ops.adam.fused_adam_op as op; print(op.__file__)'")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(".so")


def test_nothing_ngc_left_behind_survives_the_build(in_twin):
    result = in_twin("find / -xdev \\( -name 'libnccl-net*.so*' -o -path '/opt/amazon/*' -type f \\) 2>/dev/null"
                     " | sort; "
                     "echo NCCL_NET_PLUGIN=${NCCL_NET_PLUGIN-unset}")
    assert result.stdout.split() == ["/opt/aws-ofi-nccl/lib/libnccl-net-ofi.so", "/opt/aws-ofi-nccl/lib/libnccl-net.so",
                                     "NCCL_NET_PLUGIN=unset"]


def test_nccl_tests_are_mpi_builds_that_say_in_one_line_that_there_is_no_gpu(in_twin):
    linked = in_twin("ldd /opt/nccl-tests/bin/all_reduce_perf")
    assert "libmpi.so" in linked.stdout and "libnccl.so.2" in linked.stdout
    result = in_twin("mpirun --oversubscribe -np 2 all_reduce_perf -b 8 -e 8")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert output.count("Test CUDA failure") == 2, output  # both MPI ranks started and reached CUDA
    assert "CUDA driver version is insufficient" in output


#: What a host's `module load openmpi` exports, and Apptainer passes into the container
HOST_MPI = {"OPAL_PREFIX": "/host/openmpi", "OMPI_MCA_pml": "ucx", "UCX_TLS": "rc,sm"}


def _with_host_mpi(twin_image: Path, verb: str, *apptainer_args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["runuser", "-u", TEST_USER, "--", "apptainer", verb, *apptainer_args, str(twin_image),
                           "sh", "-c", 'echo "OPAL_PREFIX=$OPAL_PREFIX"; mpirun --version'],
                          env={**os.environ, **HOST_MPI, "APP_CUDA_COMPAT": "off"}, capture_output=True, text=True,
                          timeout=600, cwd="/tmp")


def test_the_images_open_mpi_prefix_wins_over_a_host_modules(twin_image):
    result = _with_host_mpi(twin_image, "exec")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == "OPAL_PREFIX=/opt/hpcx/ompi"
    assert "mpirun (Open MPI)" in result.stdout


def test_run_names_the_host_mpi_settings_it_keeps_in_one_line(twin_image):
    result = _with_host_mpi(twin_image, "run")
    assert result.returncode == 0, result.stdout + result.stderr
    warnings = [line for line in result.stderr.splitlines() if "OMPI_MCA_pml" in line]
    assert len(warnings) == 1, result.stderr
    for named in ("OMPI_MCA_pml=ucx", "UCX_TLS=rc,sm", "OPAL_PREFIX=/opt/hpcx/ompi"):
        assert named in warnings[0]


def test_a_prefix_given_with_env_still_wins(twin_image):
    """The documented override: `apptainer exec --env OPAL_PREFIX=DIR` (here the image's Open MPI's own /usr)."""
    result = _with_host_mpi(twin_image, "exec", "--env", "OPAL_PREFIX=/usr")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == "OPAL_PREFIX=/usr"
    assert "mpirun (Open MPI)" in result.stdout


def test_the_bases_path_finds_cuda_and_hpcx_tools_first(in_twin):
    """NGC's PATH replaces the one the container starts with (Apptainer writes a Docker base's PATH
    unconditionally): nvcc from /usr/local/cuda/bin, HPC-X's mpicc from /usr/local/mpi/bin; sh starts via shinit_v2."""
    result = in_twin("command -v nvcc; command -v mpicc; echo $ENV")  # dash answers only the first of several
    assert result.stdout.split() == ["/usr/local/cuda/bin/nvcc", "/usr/local/mpi/bin/mpicc", "/etc/shinit_v2"], (
        result.stdout + result.stderr)


def test_torchrun_can_bind_workers_to_numa_nodes(in_twin):
    """torchrun --numa-binding (the job scripts' NUMA_BINDING=auto on GH200) starts each worker under numactl."""
    result = in_twin("numactl --show && torchrun --help | grep -c -- --numa-binding")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "physcpubind:" in result.stdout


def test_percent_test_passes_on_a_slingshot_build_node(twin_image):
    """Where aarch64 images are built, the host's /dev/cxi0 is visible during %test (Apptainer binds the
    host's /dev), but no host libfabric is bound. The device is a plain file here, for this test only."""
    device = Path("/dev/cxi0")
    if device.exists():
        pytest.skip("this host has a real /dev/cxi0")
    device.touch()
    try:
        result = subprocess.run(["runuser", "-u", TEST_USER, "--", "apptainer", "test", str(twin_image)],
                                capture_output=True, text=True, timeout=600, cwd="/tmp")
    finally:
        device.unlink()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_exec_applies_the_fabric_policy_as_run_does(in_twin):
    result = in_twin("python3 -m app.check --help >/dev/null; env APP_NNODES=2 python3 -c "
                     "'from app.common.fabric_env import ensure_fabric_policy; import os; ensure_fabric_policy(0);"
                     " print(os.environ.get(\"NCCL_NET\"))'")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Socket"
    assert "[fabric none] setting NCCL_NET=Socket" in result.stderr


@pytest.fixture
def older_driver_node(user_dir: Path) -> Path:
    """An nvidia-smi that answers as a node with an H100 on driver 570 would, for /usr/local/nvidia/bin (first on
    NGC's PATH); there is no /proc/driver/nvidia here, so app/common/cuda_compat.sh asks it."""
    smi = user_dir / "nvidia-bin"
    smi.mkdir()
    (smi / "nvidia-smi").write_text('#!/bin/sh\ncase "$*" in *driver_version*) echo 570.124.06;; '
                                    '*name*) echo "NVIDIA H100 80GB HBM3";; esac\n')
    (smi / "nvidia-smi").chmod(0o755)
    return smi


def compat_env_in(image: Path, node: Path, verb: str) -> dict[str, str]:
    """`env` in IMAGE as a node with an older driver starts it: `apptainer exec` through the job scripts' step
    (sh -c "$DDP_CUDA_COMPAT"), or `apptainer run` (the runscript's /opt/app/cuda_compat.sh)."""
    compat = (REPO / "app/common/cuda_compat.sh").read_text()
    command = ["env"] if verb == "run" else ["/bin/sh", "-c", compat, "cuda-compat", "env"]
    result = subprocess.run(["runuser", "-u", TEST_USER, "--", "apptainer", verb, "--bind",
                             f"{node}:/usr/local/nvidia/bin", str(image), *command],
                            env={**os.environ, "APP_FABRIC": "none"}, capture_output=True, text=True, timeout=600,
                            cwd="/tmp")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "forward compatibility on for NVIDIA H100 80GB HBM3" in result.stderr, result.stderr[-3000:]
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)


def test_forward_compatibility_switches_on_in_the_plain_ngc_twin_under_the_job_step(twin_base, older_driver_node):
    """NGC's ENV always lists /usr/local/cuda/compat/lib: the decision is the driver's and the compat libraries'.
    The plain base (route 3: an image the user already has) gets the step's text from the job scripts."""
    found = compat_env_in(twin_base, older_driver_node, "exec")
    assert found["LD_LIBRARY_PATH"].startswith("/usr/local/cuda/compat/lib.real:"), found["LD_LIBRARY_PATH"]
    assert "/usr/local/cuda/compat/lib:" in found["LD_LIBRARY_PATH"]  # NGC's own entry, still there
    assert found["APP_CUDA_COMPAT_DONE"] == "on"


@pytest.mark.parametrize("verb", ["exec", "run"])
def test_forward_compatibility_switches_on_in_the_images_ngc_environment(twin_image, older_driver_node, verb):
    """The same in this project's image on the twin, under the job step (exec) and under `apptainer run`."""
    found = compat_env_in(twin_image, older_driver_node, verb)
    assert found["LD_LIBRARY_PATH"].startswith("/usr/local/cuda/compat/lib.real:"), found["LD_LIBRARY_PATH"]
    assert found["APP_CUDA_COMPAT_DONE"] == "on"


def test_app_check_in_the_plain_ngc_twin_names_what_it_lacks_for_slingshot(twin_base):
    """Route 3, an image the user already has: the plain NGC twin (no project build on it) runs this checkout's
    app.check from the submit directory, as the job scripts start it, and says what it lacks and how to add it."""
    result = subprocess.run(["runuser", "-u", TEST_USER, "--", "apptainer", "exec", str(twin_base), "python3",
                             "-m", "app.check", "--node-only"], env={**os.environ, "APP_FABRIC": "slingshot"},
                            capture_output=True, text=True, timeout=600, cwd=str(USER_VISIBLE_REPO))
    lines = [line for line in (result.stdout + result.stderr).splitlines() if "image: what it lacks" in line]
    assert lines, result.stdout[-3000:] + result.stderr[-3000:]
    text = result.stdout + result.stderr
    assert "lacks the libfabric (cxi) and aws-ofi-nccl stack Slingshot needs" in text, text[-3000:]
    assert f",BASE={twin_base} jobscripts/build-image.sh" in text, text[-3000:]
    assert result.returncode != 0
