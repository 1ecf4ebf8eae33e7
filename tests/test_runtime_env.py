"""containers/runtime.env: fabric defaults by detected fabric, each only if unset (fake /dev and /sys trees)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

RUNTIME_ENV = Path(__file__).resolve().parents[1] / "containers" / "runtime.env"
SLINGSHOT = {"FI_PROVIDER": "cxi", "NCCL_SOCKET_IFNAME": "hsn", "NCCL_CROSS_NIC": "1", "NCCL_PROTO": "^LL128",
             "FI_CXI_RDZV_THRESHOLD": "0", "FI_MR_CACHE_MONITOR": "userfaultfd"}


def sourced_env(probe_root: Path, **env: str) -> dict[str, str]:
    """The environment after `. runtime.env` in POSIX sh, starting from `env` only."""
    result = subprocess.run(["sh", "-c", f'. "{RUNTIME_ENV}" && env'], env={"APP_PROBE_ROOT": str(probe_root), **env},
                            capture_output=True, text=True, check=True, timeout=30)
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)


def fabric_vars(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(("NCCL_", "FI_"))}


@pytest.fixture
def slingshot_node(tmp_path: Path) -> Path:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "cxi0").touch()
    return tmp_path


@pytest.fixture
def infiniband_node(tmp_path: Path) -> Path:
    (tmp_path / "sys/class/infiniband/mlx5_0").mkdir(parents=True)
    (tmp_path / "sys/class/net/ib0").mkdir(parents=True)
    return tmp_path


def test_multi_node_slingshot_job_gets_the_plugin_network_and_cxi_settings(slingshot_node):
    env = sourced_env(slingshot_node, SLURM_JOB_NUM_NODES="2")
    assert env["NCCL_NET"] == "AWS Libfabric"
    assert SLINGSHOT.items() <= env.items()


def test_single_node_slingshot_run_leaves_nccl_net_unset(slingshot_node):
    env = sourced_env(slingshot_node, SLURM_JOB_NUM_NODES="1")
    assert "NCCL_NET" not in env
    assert env["FI_PROVIDER"] == "cxi"


def test_pbs_node_file_with_two_hosts_counts_as_multi_node(slingshot_node, tmp_path):
    nodefile = tmp_path / "nodefile"
    nodefile.write_text("x3001\nx3001\nx3002\n")
    assert sourced_env(slingshot_node, PBS_NODEFILE=str(nodefile))["NCCL_NET"] == "AWS Libfabric"


def test_values_the_user_set_win_even_when_empty(slingshot_node):
    env = sourced_env(slingshot_node, SLURM_JOB_NUM_NODES="4", FI_PROVIDER="", NCCL_PROTO="Simple",
                      NCCL_NET="Socket")
    assert (env["FI_PROVIDER"], env["NCCL_PROTO"], env["NCCL_NET"]) == ("", "Simple", "Socket")
    assert env["NCCL_SOCKET_IFNAME"] == "hsn"


def test_infiniband_node_gets_nccl_ib_with_mlx5_and_ipoib(infiniband_node):
    assert fabric_vars(sourced_env(infiniband_node)) == {
        "NCCL_NET": "IB", "NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "mlx5", "NCCL_SOCKET_IFNAME": "ib"}


def test_node_without_a_fast_fabric_gets_no_fabric_settings(tmp_path):
    assert fabric_vars(sourced_env(tmp_path)) == {}


def test_nccl_net_plugin_from_an_ngc_base_is_unset(tmp_path):
    assert "NCCL_NET_PLUGIN" not in sourced_env(tmp_path, NCCL_NET_PLUGIN="hpcx")


def test_helpers_do_not_leak_into_the_environment(slingshot_node):
    env = sourced_env(slingshot_node, SLURM_NNODES="2")
    assert not [key for key in env if key.startswith("app_")]
