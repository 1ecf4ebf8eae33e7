"""app/host/common/fabric_policy.env: fabric defaults by fabric and node count, each only if unset (fake /dev and
/sys trees), and its Python reader."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from app.host.common.fabric_policy import POLICY_FILE, export_line, recommended, settings

REPO = Path(__file__).resolve().parents[2]
SLINGSHOT = {"FI_PROVIDER": "cxi", "NCCL_SOCKET_IFNAME": "hsn", "NCCL_CROSS_NIC": "0", "NCCL_PROTO": "^LL128",
             "FI_MR_CACHE_MONITOR": "userfaultfd", "FI_CXI_DEFAULT_TX_SIZE": "16384",
             "FI_CXI_RX_MATCH_MODE": "software"}
#: CSCS' known-issue workaround against NCCL hangs on Slingshot (cscs-docs nccl.md, "Known issues"): opt-in.
NO_EAGER = {"FI_CXI_RDZV_GET_MIN": "0", "FI_CXI_RDZV_THRESHOLD": "0", "FI_CXI_RDZV_EAGER_SIZE": "0"}


def sourced_env(probe_root: Path, **env: str) -> dict[str, str]:
    """The environment after `. fabric_policy.env` in POSIX sh, starting from `env` only."""
    result = subprocess.run(["sh", "-c", f'. "{POLICY_FILE}" && env'], env={"APP_PROBE_ROOT": str(probe_root), **env},
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


def test_slingshot_eager_messages_stay_on_unless_the_user_opts_in(slingshot_node):
    assert not NO_EAGER.keys() & sourced_env(slingshot_node, APP_NNODES="2").keys()
    opted = sourced_env(slingshot_node, APP_NNODES="2", APP_FABRIC_OPT_IN="cxi-no-eager")
    assert NO_EAGER.items() <= opted.items()
    assert NO_EAGER.items() <= sourced_env(slingshot_node, APP_FABRIC_OPT_IN="other, cxi-no-eager").items()


def test_an_opt_in_value_the_user_set_still_wins(slingshot_node):
    env = sourced_env(slingshot_node, APP_FABRIC_OPT_IN="cxi-no-eager", FI_CXI_RDZV_THRESHOLD="16384")
    assert (env["FI_CXI_RDZV_THRESHOLD"], env["FI_CXI_RDZV_EAGER_SIZE"]) == ("16384", "0")


def test_an_opt_in_name_the_policy_does_not_know_is_said_in_one_line(slingshot_node):
    result = subprocess.run(["sh", "-c", f'. "{POLICY_FILE}"'], capture_output=True, text=True, timeout=30, env={
        "APP_PROBE_ROOT": str(slingshot_node), "APP_FABRIC_OPT_IN": "cxi-no-eagre"})
    assert result.returncode == 0
    assert result.stderr.count("\n") == 1 and "'cxi-no-eagre'" in result.stderr and "cxi-no-eager" in result.stderr


@pytest.mark.parametrize("opt_in", [None, "", " , "], ids=["unset", "empty", "separators"])
def test_no_opt_in_named_is_said_nowhere(slingshot_node, opt_in):
    env = {"APP_PROBE_ROOT": str(slingshot_node), **({} if opt_in is None else {"APP_FABRIC_OPT_IN": opt_in})}
    result = subprocess.run(["sh", "-c", f'. "{POLICY_FILE}"'], capture_output=True, text=True, timeout=30, env=env)
    assert (result.returncode, result.stderr) == (0, "")


def test_an_unknown_opt_in_lists_each_known_group_once(slingshot_node):
    result = subprocess.run(["sh", "-c", f'. "{POLICY_FILE}"'], capture_output=True, text=True, timeout=30, env={
        "APP_PROBE_ROOT": str(slingshot_node), "APP_FABRIC_OPT_IN": "nope"})
    assert "not one of: cxi-no-eager;" in result.stderr, result.stderr


def test_opt_in_settings_are_read_with_their_group():
    no_eager = [s for s in settings() if s.opt_in == "cxi-no-eager"]
    assert {s.name: s.value for s in no_eager} == NO_EAGER
    assert all(s.fabric == "slingshot" and "hang" in s.why for s in no_eager)


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


@pytest.fixture
def roce_node(tmp_path: Path) -> Path:
    """A user's RoCE node: mlx5 ports whose link layer is Ethernet, carried by eth0, eth1."""
    for i in (0, 1):
        port = tmp_path / f"sys/class/infiniband/mlx5_{i}/ports/1"
        port.mkdir(parents=True)
        (port / "link_layer").write_text("Ethernet\n")
        (tmp_path / f"sys/class/net/eth{i}").mkdir(parents=True)
    return tmp_path


def test_a_roce_node_gets_the_ib_transport_and_leaves_site_values_to_the_site(roce_node):
    env = fabric_vars(sourced_env(roce_node, APP_NNODES="2"))
    assert env == {"NCCL_NET": "IB", "NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "mlx5"}


def test_multi_node_infiniband_job_gets_nccl_ib_with_mlx5_and_ipoib(infiniband_node):
    assert fabric_vars(sourced_env(infiniband_node, APP_NNODES="2")) == {
        "NCCL_NET": "IB", "NCCL_IB_DISABLE": "0", "NCCL_IB_HCA": "mlx5", "NCCL_SOCKET_IFNAME": "ib"}


def test_single_node_infiniband_run_leaves_nccl_net_unset(infiniband_node):
    # NCCL_NET=IB makes NCCL fail at start without a usable HCA, which one node does not need.
    assert "NCCL_NET" not in sourced_env(infiniband_node, APP_NNODES="1")


def test_the_fabric_a_job_script_names_wins_over_detection(infiniband_node):
    env = fabric_vars(sourced_env(infiniband_node, APP_FABRIC="none", APP_NNODES="2"))
    assert env == {"NCCL_NET": "Socket"}
    assert sourced_env(infiniband_node, APP_FABRIC="slingshot", APP_NNODES="2")["NCCL_NET"] == "AWS Libfabric"


def test_each_setting_is_logged_when_asked(slingshot_node):
    result = subprocess.run(["sh", "-c", f'. "{POLICY_FILE}"'], capture_output=True, text=True, timeout=30, env={
        "APP_PROBE_ROOT": str(slingshot_node), "APP_NNODES": "2", "APP_FABRIC_LOG": "1", "NCCL_PROTO": "Simple"})
    assert "[fabric slingshot] setting FI_PROVIDER=cxi (libfabric provider for Slingshot NICs)" in result.stderr
    assert "[fabric slingshot] keeping NCCL_PROTO=Simple (set by you)" in result.stderr


def test_node_without_a_fast_fabric_gets_no_fabric_settings(tmp_path):
    assert fabric_vars(sourced_env(tmp_path)) == {}


def test_multi_node_job_without_a_fabric_uses_nccls_sockets_not_the_ofi_plugin(tmp_path):
    # NCCL 2.30 tries libnccl-net.so (our aws-ofi-nccl) first when NCCL_NET is unset (src/plugin/net.cc).
    assert fabric_vars(sourced_env(tmp_path, SLURM_JOB_NUM_NODES="2")) == {"NCCL_NET": "Socket"}


def test_transmit_queue_size_is_within_the_cxi_providers_maximum(slingshot_node):
    # libfabric prov/cxi/include/cxip.h: #define CXIP_MAX_TX_SIZE 16384U; larger values fall back to 512.
    assert int(sourced_env(slingshot_node)["FI_CXI_DEFAULT_TX_SIZE"]) <= 16384


def test_the_policy_exports_the_fabric_it_applied(slingshot_node, tmp_path_factory):
    assert sourced_env(slingshot_node)["APP_FABRIC_POLICY"] == "slingshot"
    assert sourced_env(tmp_path_factory.mktemp("ethernet-node"))["APP_FABRIC_POLICY"] == "none"


def test_nccl_net_plugin_from_an_ngc_base_is_unset_and_the_log_says_so(tmp_path):
    """NGC's own value (its plugin removed from the image) or a site module's stale one: NCCL would fail to load it
    and ignore NCCL_NET."""
    assert "NCCL_NET_PLUGIN" not in sourced_env(tmp_path, NCCL_NET_PLUGIN="hpcx")
    logged = subprocess.run(["sh", "-c", f'. "{POLICY_FILE}"'], env={"APP_PROBE_ROOT": str(tmp_path),
                            "NCCL_NET_PLUGIN": "hpcx", "APP_FABRIC_LOG": "1"}, capture_output=True, text=True,
                            check=True, timeout=30).stderr
    assert "unsetting NCCL_NET_PLUGIN=hpcx (no libnccl-net-hpcx.so or hpcx on the library path" in logged, logged


@pytest.mark.parametrize("named", ["NAME", "libnccl-net-NAME.so", "DIR/libnccl-net-NAME.so"])
def test_a_net_plugin_you_name_that_is_there_is_kept(tmp_path, named):
    """NCCL dlopens NCCL_NET_PLUGIN as given, then as libnccl-net-NAME.so (src/plugin/net.cc): a plugin you bound in
    and named is yours to choose, as every other setting of this policy is."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "libnccl-net-site.so").touch()
    value = named.replace("NAME", "site").replace("DIR", str(plugins))
    env = sourced_env(tmp_path, NCCL_NET_PLUGIN=value, LD_LIBRARY_PATH=f"/nowhere:{plugins}")
    assert env["NCCL_NET_PLUGIN"] == value


def test_helpers_do_not_leak_into_the_environment(slingshot_node):
    env = sourced_env(slingshot_node, SLURM_NNODES="2")
    assert not [key for key in env if key.startswith("app_")]


def test_every_setting_is_read_with_its_reason_and_a_sourced_why():
    found = settings()
    assert {s.fabric for s in found} == {"infiniband", "roce", "slingshot", "none"}
    assert all(s.reason and s.why for s in found)
    assert recommended("slingshot", "NCCL_NET") == "AWS Libfabric"
    assert export_line("slingshot", "NCCL_NET", "FI_PROVIDER") == "export NCCL_NET='AWS Libfabric' FI_PROVIDER=cxi"


@pytest.mark.parametrize("fabric", ["slingshot", "infiniband", "roce"])
def test_the_python_reader_and_the_shell_agree_on_every_value(request, fabric):
    """What sh sets on a multi-node job of each fabric is exactly what the parsed settings say."""
    node = request.getfixturevalue(f"{fabric}_node")
    expected = {s.name: s.value for s in settings() if s.fabric == fabric and not s.opt_in}
    assert fabric_vars(sourced_env(node, APP_NNODES="2")) == expected
    groups = ",".join({s.opt_in for s in settings() if s.opt_in})
    everything = {s.name: s.value for s in settings() if s.fabric == fabric}
    assert fabric_vars(sourced_env(node, APP_NNODES="2", APP_FABRIC_OPT_IN=groups)) == everything


def test_the_documented_table_is_the_policy():
    readme = (REPO / "docs" / "fabric-policy.md").read_text()
    rows = {tuple(cell.strip(" `") for cell in line.strip("|").split("|")[:4])
            for line in readme.splitlines() if line.startswith("| `") and line.count("|") >= 6}
    policy_rows = {(s.fabric, s.when, s.name, s.value) for s in settings()}
    assert policy_rows <= rows, f"missing from docs/fabric-policy.md's table: {sorted(policy_rows - rows)}"
    stale = {r for r in rows if r[0] in ("infiniband", "roce", "slingshot")} - policy_rows
    assert not stale, f"docs/fabric-policy.md rows the policy does not hold: {sorted(stale)}"


def test_a_setting_for_a_fabric_the_shell_never_matches_is_refused(tmp_path):
    """A typo in FABRIC or WHEN would make the shell skip the line silently on every node."""
    broken = tmp_path / "fabric_policy.env"
    broken.write_text(POLICY_FILE.read_text().replace("app_setting slingshot always FI_PROVIDER",
                                                      "app_setting slingshoot always FI_PROVIDER"))
    with pytest.raises(ValueError, match="'slingshoot'"):
        settings(broken)
