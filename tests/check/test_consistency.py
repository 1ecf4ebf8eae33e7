from app.check.consistency import check_consistency
from app.check.report import FAIL, OK, WARN


def facts(node, torch="2.13.0", env=None, gpus=4):
    return {"node": node, "versions": {"torch": torch, "nccl": "2.27.3"}, "env": env or {}, "gpu_count": gpus}


def test_one_node_with_another_torch_fails_and_is_named():
    ranks = [facts("a"), facts("a"), facts("b", "2.12.0"), facts("b", "2.12.0"), facts("c"), facts("c")]
    checks = {c.name: c for c in check_consistency(ranks)}
    torch = checks["consistency: torch version"]
    assert torch.status == FAIL and "b (ranks 2,3)" in torch.detail and "2.12.0" in torch.detail
    assert checks["consistency: nccl version"].status == OK


def test_different_fabric_settings_on_one_node_fail():
    ranks = [
        facts("a", env={"NCCL_SOCKET_IFNAME": "ib0"}),
        facts("b", env={"NCCL_SOCKET_IFNAME": "eth0"}),
        facts("c", env={"NCCL_SOCKET_IFNAME": "ib0"}),
    ]
    check = {c.name: c for c in check_consistency(ranks)}["consistency: NCCL/fabric env"]
    assert check.status == FAIL and "eth0 on b" in check.detail


def test_more_ranks_than_gpus_fails_fewer_warns():
    over = {c.name: c for c in check_consistency([facts("a", gpus=1), facts("a", gpus=1)])}
    assert over["consistency: GPUs per node"].status == FAIL
    under = {c.name: c for c in check_consistency([facts("a", gpus=4)])}
    assert under["consistency: GPUs per node"].status == WARN
    cpu = {c.name: c for c in check_consistency([facts("a", gpus=0), facts("a", gpus=0)])}
    assert cpu["consistency: GPUs per node"].status == OK
