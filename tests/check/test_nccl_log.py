import os
import stat
from pathlib import Path

import pytest

from app.check import nccl_log
from app.check.report import FAIL, OK, WARN
from tests.check.check_helpers import DATA

LOGS = DATA / "nccl"


def parse(name):
    return nccl_log.parse((LOGS / name).read_text().splitlines())


@pytest.mark.parametrize(
    ("log", "network", "intra", "inter"),
    [
        ("ib-two-nodes.log", ["IB"], ["P2P/CUMEM"], ["NET/IB"]),
        ("socket-fallback.log", ["Socket"], ["P2P/IPC"], ["NET/Socket"]),
        ("slingshot-ofi.log", ["AWS Libfabric"], ["P2P/CUMEM"], ["NET/AWS Libfabric"]),
        ("hpcx-ibext-nvls.log", ["IBext_v8"], ["NVLS", "P2P/IPC", "SHM"], ["NET/IBext_v8"]),
    ],
)
def test_transports_and_network_are_read_from_the_log(log, network, intra, inter):
    summary = parse(log)
    assert (summary["networks"], summary["intra"], summary["inter"]) == (network, intra, inter)


def test_aws_ofi_nccl_version_and_provider_are_read():
    summary = parse("slingshot-ofi.log")
    assert summary["plugin"] == "aws-ofi-nccl 1.14.0" and summary["provider"] == "cxi"


def test_failure_signatures_are_reported():
    assert any("libmlx5" in p for p in parse("socket-fallback.log")["problems"])
    problems = parse("slingshot-no-plugin.log")["problems"]
    assert any("plugin" in p for p in problems) and any("NCCL_NET" in p for p in problems)
    assert parse("ib-two-nodes.log")["problems"] == []


def test_inter_node_socket_on_a_fabric_node_fails():
    socket_run = [parse("socket-fallback.log"), parse("socket-fallback.log")]
    facts = [{"fast_fabric": True}, {"fast_fabric": True}]
    checks = {c.name: c for c in nccl_log.judge(socket_run, ["gpu01", "gpu02"], facts)}
    assert checks["nccl: inter-node transport"].status == FAIL
    assert "NCCL_IB_HCA" in checks["nccl: inter-node transport"].remedy
    assert checks["nccl: log warnings"].status == WARN


def test_inter_node_ib_passes_and_socket_without_fabric_is_fine():
    ib_run = [parse("ib-two-nodes.log")] * 2
    ok = {c.name: c for c in nccl_log.judge(ib_run, ["a", "b"], [{"fast_fabric": True}] * 2)}
    assert ok["nccl: inter-node transport"].status == OK and "NET/IB" in ok["nccl: inter-node transport"].detail
    ethernet = [parse("socket-fallback.log")] * 2
    plain = {c.name: c for c in nccl_log.judge(ethernet, ["a", "b"], [{"fast_fabric": False}] * 2)}
    assert plain["nccl: inter-node transport"].status == OK


def test_capture_respects_a_users_nccl_debug(tmp_path):
    env = {"NCCL_DEBUG": "WARN"}
    assert nccl_log.capture_to_files(env, str(tmp_path)) == "" and env == {"NCCL_DEBUG": "WARN"}
    env = {}
    pattern = nccl_log.capture_to_files(env, str(tmp_path))
    assert env["NCCL_DEBUG"] == "INFO" and env["NCCL_DEBUG_FILE"] == pattern and "%p" in pattern


def own_log(pattern: str, host: str = "gpu01") -> Path:
    """The file NCCL writes for this process: %h the host name, %p the pid."""
    return Path(pattern.replace("%h", host).replace("%p", str(os.getpid())))


def test_own_log_is_found_whatever_host_name_nccl_wrote(tmp_path):
    env = {}
    pattern = nccl_log.capture_to_files(env, str(tmp_path))
    own_log(pattern, host="gpu01").write_text((LOGS / "ib-two-nodes.log").read_text())
    summary = nccl_log.summarize_own_log(env)
    assert summary is not None and summary["inter"] == ["NET/IB"]


def test_the_log_goes_to_a_directory_only_this_user_can_enter_not_the_shared_one(tmp_path):
    env = {}
    pattern = nccl_log.capture_to_files(env, str(tmp_path))
    directory = Path(pattern).parent
    assert directory != tmp_path and directory.parent == tmp_path
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_a_log_another_user_planted_in_the_shared_directory_is_not_read(tmp_path):
    """/tmp is everyone's: a file named like this process's log, any host part, must not fail the check."""
    env = {}
    nccl_log.capture_to_files(env, str(tmp_path))
    planted = (LOGS / "socket-fallback.log").read_text()
    for host in ("gpu01", "evil"):
        (tmp_path / f"app-check-nccl.{host}.{os.getpid()}.log").write_text(planted)
    assert nccl_log.summarize_own_log(env) is None


def test_the_own_log_is_deleted_once_read(tmp_path):
    env = {}
    pattern = nccl_log.capture_to_files(env, str(tmp_path))
    log = own_log(pattern)
    log.write_text((LOGS / "ib-two-nodes.log").read_text())
    summary = nccl_log.summarize_own_log(env)
    assert summary is not None and summary["inter"] == ["NET/IB"]
    assert not log.exists() and not log.parent.exists()


def test_only_the_first_bytes_of_a_huge_log_are_read(tmp_path, monkeypatch):
    monkeypatch.setattr(nccl_log, "MAX_LOG_BYTES", 4096, raising=False)
    env = {}
    log = own_log(nccl_log.capture_to_files(env, str(tmp_path)))
    ib = (LOGS / "ib-two-nodes.log").read_text()
    log.write_text(ib[:3000] + "\n" + "x" * 10_000 + "\n" + (LOGS / "socket-fallback.log").read_text())
    summary = nccl_log.summarize_own_log(env)
    assert summary is not None and "NET/Socket" not in summary["inter"]


def test_nccls_start_up_probes_on_a_healthy_node_are_not_warnings():
    """NCCL probes the net plugin and InfiniBand on every start and logs each miss at INFO level, on healthy
    nodes too (captured from NCCL 2.28.9 on a one-GPU H200 host). A miss matters only where that network is
    the node's fabric: the plugin on Slingshot, IB where /sys/class/infiniband has devices."""
    healthy = [parse("h200-one-gpu-2.28.9.log")]
    assert nccl_log.judge(healthy, ["h200"], [{"fast_fabric": False, "rdma": False, "cxi": False}]) == []
    on_ib = {c.name: c for c in nccl_log.judge(healthy, ["gpu01"], [{"fast_fabric": True, "rdma": True, "cxi": False}])}
    assert "InfiniBand" in on_ib["nccl: log warnings"].detail and "plugin" not in on_ib["nccl: log warnings"].detail
    on_slingshot = nccl_log.judge(healthy, ["nid001"], [{"fast_fabric": True, "rdma": False, "cxi": True}])
    detail = {c.name: c for c in on_slingshot}["nccl: log warnings"].detail
    assert "plugin" in detail and "InfiniBand" not in detail


def test_the_net_plugin_failure_of_nccl_2_27_and_later_is_reported():
    # nccl src/plugin/net.cc, v2.27.3-1 to v2.30.7-1: WARN("Failed to initialize any NET plugin"), which replaced
    # "Error: network %s not found." (v2.26.6-1).
    problems = nccl_log.parse(["nid001:4521:4590 [0] plugin/net.cc:334 NCCL WARN Failed to initialize any NET plugin"])
    assert problems["problems"] == ["NCCL could not find the requested network (NCCL_NET)"]
