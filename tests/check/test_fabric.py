import os
import stat

from app.check.node.fabric import check_fabric
from app.check.node.network import scan
from app.check.node.probe import Probe
from app.check.report import FAIL, OK, WARN
from tests.check.check_helpers import DATA


def slingshot():
    return scan(Probe.tree(DATA / "slingshot-node"))


def ib():
    return scan(Probe.tree(DATA / "ib-node"))


def libdir(tmp_path, *names):
    for name in names:
        (tmp_path / name).write_bytes(b"")
    return [str(tmp_path)]


def by_name(checks):
    return {c.name: c for c in checks}


def run(env, inv, dirs, dev="slingshot-node/dev"):
    return by_name(check_fabric(env, inv, dirs, Probe(dev=DATA / dev)))


def test_slingshot_without_aws_ofi_nccl_fails(tmp_path):
    check = run({}, slingshot(), [str(tmp_path)])["fabric: NCCL net plugin"]
    assert check.status == FAIL and "aws-ofi-nccl" in check.remedy


def test_slingshot_plugin_found_but_nccl_net_unset_warns(tmp_path):
    check = run({}, slingshot(), libdir(tmp_path, "libnccl-net.so", "libnccl-net-ofi.so"))["fabric: NCCL net plugin"]
    assert check.status == WARN and "NCCL_NET='AWS Libfabric'" in check.remedy


def test_slingshot_plugin_and_nccl_net_set_is_ok(tmp_path):
    dirs = libdir(tmp_path, "libnccl-net-ofi.so")
    assert run({"NCCL_NET": "AWS Libfabric"}, slingshot(), dirs)["fabric: NCCL net plugin"].status == OK


def test_nccl_net_naming_libfabric_without_any_plugin_fails(tmp_path):
    check = run({"NCCL_NET": "AWS Libfabric"}, ib(), [str(tmp_path)], "ib-node/dev")["fabric: NCCL net plugin"]
    assert check.status == FAIL


def test_nccl_net_plugin_that_is_not_on_the_path_fails(tmp_path):
    check = run({"NCCL_NET_PLUGIN": "ofi"}, ib(), [str(tmp_path)], "ib-node/dev")["fabric: NCCL net plugin"]
    assert check.status == FAIL and "libnccl-net-ofi.so" in check.detail


def test_ngc_style_plugin_variable_next_to_nccl_net_warns(tmp_path):
    dirs = libdir(tmp_path, "libnccl-net-ofi.so", "libnccl-net-hpcx.so")
    check = run({"NCCL_NET": "AWS Libfabric", "NCCL_NET_PLUGIN": "hpcx"}, slingshot(), dirs)["fabric: NCCL net plugin"]
    assert check.status == WARN and check.remedy == "unset NCCL_NET_PLUGIN"


def test_fi_provider_efa_on_slingshot_fails_with_cxi_remedy(tmp_path):
    check = run({"FI_PROVIDER": "efa"}, slingshot(), [str(tmp_path)])["fabric: FI_PROVIDER"]
    assert check.status == FAIL and "FI_PROVIDER=cxi" in check.remedy


def test_fi_provider_cxi_without_dev_cxi_fails(tmp_path):
    check = run({"FI_PROVIDER": "cxi"}, ib(), [str(tmp_path)], "mgmt-node/dev")["fabric: FI_PROVIDER"]
    assert check.status == FAIL and "/dev/cxi" in check.remedy


def test_fi_info_is_asked_when_present(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "fi_info"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\n[ "$2" = cxi ] && echo "provider: cxi" || echo "fi_getinfo: -61 (No data available)"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    assert run({"FI_PROVIDER": "cxi"}, slingshot(), [str(tmp_path)])["fabric: fi_info"].status == OK
    bad = run({"FI_PROVIDER": "verbs"}, slingshot(), [str(tmp_path)])["fabric: fi_info"]
    assert bad.status == FAIL and "-61" in bad.detail


def test_ib_node_without_verbs_userspace_fails(tmp_path):
    assert run({}, ib(), [str(tmp_path)], "ib-node/dev")["fabric: verbs userspace"].status == FAIL
    only_verbs = run({}, ib(), libdir(tmp_path, "libibverbs.so.1"), "ib-node/dev")["fabric: verbs userspace"]
    assert only_verbs.status == FAIL and "libmlx5" in only_verbs.detail
    full = run({}, ib(), libdir(tmp_path, "libibverbs.so.1", "libmlx5.so.1"), "ib-node/dev")
    assert full["fabric: verbs userspace"].status == OK
