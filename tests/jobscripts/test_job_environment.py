"""What a training process sees inside the container in a job, scenario by scenario.

The job's own path, for real: the job chooses the fabric and builds `apptainer exec` with its binds (its fabric
and container parts, app/host/launch/job.py), then each node's wrapper sources the fabric policy inside the smoke image
and starts the command; here the command prints its environment, or loads libfabric the way aws-ofi-nccl does.
Run as the unprivileged test user, as on a cluster, on the host's python3 as the job runs.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app.host.common.fabric_policy import settings
from tests.fixtures.apptainer import REPO, TEST_USER  # REPO: where TEST_USER can read the checkout
from tests.host.launch.job_parts import job_parts

pytestmark = [pytest.mark.apptainer, pytest.mark.slow]

#: The job's nodes, by how many
NODES = {1: "node1", 2: "node1,node2"}
CRAY_LIBFABRIC = "opt/cray/libfabric/1.22.0/lib64"


def policy(fabric: str, nnodes: int) -> dict[str, str]:
    """The settings the policy file holds for this fabric and node count, on a node with mlx5 and ib0 (an opt-in
    group's only when asked for: APP_FABRIC_OPT_IN)."""
    return {s.name: s.value for s in settings()
            if s.fabric == fabric and not s.opt_in and (s.when != "multi-node" or nnodes > 1)}


def in_job_container(smoke_image: Path, workdir: Path, command: str, env: dict[str, str],
                     nnodes: int = 2) -> dict[str, str]:
    """Run COMMAND through the job's container and node wrapper; return the NCCL_*/FI_*/LD_* environment it saw,
    plus its stdout lines under 'stdout'."""
    full_env = {"PATH": os.environ["PATH"], "HOME": str(workdir), "PYTHONPATH": str(REPO),
                "IMAGE": str(smoke_image), "RUN_DIR": str(workdir / "run"), **env}
    as_user = ("runuser", "-u", TEST_USER, "--") if os.geteuid() == 0 else ()
    ran = job_parts(["fabric", "container"], full_env, cwd=workdir, out=workdir / "job-parts.json", python="python3",
                    prefix=as_user, submit_dir=str(workdir), nodes=NODES[nnodes])
    assert ran.returncode == 0, ran.stderr[-3000:]
    wrapper = (REPO / "app" / "common" / "node_wrapper.sh").read_text()
    step = [*ran.found["container"]["argv"], "/bin/sh", "-c", wrapper, "ddp-node", f"{workdir}/run/stop", "",
            ran.found["container"]["policy"], "/bin/sh", "-c", command]
    result = subprocess.run([*as_user, "env", "-i", *(f"{k}={v}" for k, v in ran.env.items()), *step],
                            cwd=workdir, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    seen = dict(line.split("=", 1) for line in lines if "=" in line and line.split("=", 1)[0].isidentifier())
    return {**{k: v for k, v in seen.items() if k.startswith(("NCCL_", "FI_", "LD_LIBRARY_PATH"))},
            "stdout": "\n".join(lines)}


@pytest.fixture
def node(user_dir: Path) -> Path:
    """A fake node: mlx5 HCA with IPoIB, and a Cray-layout host libfabric whose lib64 holds a stand-in
    libfabric.so.1 (a copy of the system's libz: any loadable ELF proves which file the loader picks)."""
    root = user_dir / "node"
    for directory in ("sys/class/infiniband/mlx5_0/ports", "sys/class/net/ib0", CRAY_LIBFABRIC, "usr/lib64"):
        (root / directory).mkdir(parents=True)
    shutil.copy(sorted(glob.glob("/lib/*/libz.so.1") + glob.glob("/usr/lib*/libz.so.1"))[0],
                root / CRAY_LIBFABRIC / "libfabric.so.1.22.0")
    (root / CRAY_LIBFABRIC / "libfabric.so.1").symlink_to("libfabric.so.1.22.0")
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755)
    return root


SCENARIOS = [
    # (id, fabric, nodes, the user's own settings)
    ("infiniband-2-nodes", "infiniband", 2, {}),
    ("infiniband-1-node", "infiniband", 1, {}),
    ("slingshot-2-nodes", "slingshot", 2, {}),
    ("slingshot-1-node", "slingshot", 1, {}),
    ("slingshot-users-values-win", "slingshot", 2, {"NCCL_SOCKET_IFNAME": "hsn1", "FI_CXI_RX_MATCH_MODE": "hybrid"}),
    ("roce-2-nodes", "roce", 2, {}),
    ("none", "none", 2, {}),
]


@pytest.mark.parametrize(("fabric", "nnodes", "users"), [s[1:] for s in SCENARIOS], ids=[s[0] for s in SCENARIOS])
def test_the_training_process_sees_exactly_the_policy_and_the_users_own_values(
        smoke_image: Path, user_dir: Path, node: Path, fabric: str, nnodes: int, users: dict[str, str]) -> None:
    env = in_job_container(smoke_image, user_dir, "env", {"FABRIC": fabric, "DDP_PROBE_ROOT": str(node), **users},
                           nnodes)
    fabric_env = {k: v for k, v in env.items() if k.startswith(("NCCL_", "FI_"))}
    assert fabric_env == {**policy(fabric, nnodes), **users}


def test_a_cray_lib64_host_libfabric_is_the_one_the_plugin_loads_in_the_container(
        smoke_image: Path, user_dir: Path, node: Path) -> None:
    # What NCCL does with aws-ofi-nccl: dlopen, and the plugin's libfabric.so.1 comes from the loader's search.
    load = ('python3 -c "import ctypes; ctypes.CDLL(\'libfabric.so.1\'); '
            'print(next(line.split()[-1] for line in open(\'/proc/self/maps\') if \'libfabric\' in line))"')
    env = in_job_container(smoke_image, user_dir, load, {"FABRIC": "slingshot", "DDP_PROBE_ROOT": str(node)})
    assert env["stdout"].splitlines()[-1] == "/opt/libfabric/lib64/libfabric.so.1.22.0"
