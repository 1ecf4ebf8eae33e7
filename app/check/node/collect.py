"""Run every node check and gather the facts that rank 0 compares across ranks."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Mapping
from typing import Any

from app.check.consistency import RELEVANT_ENV
from app.check.node import arch, container, fabric, gpu, network, rendezvous, storage, topology
from app.check.report import Check


@dataclasses.dataclass
class NodeResult:
    checks: list[Check]
    facts: dict[str, Any]
    topology: str
    inventory: network.NetworkInventory


def collect(
    env: Mapping[str, str],
    rank: int,
    local_rank: int,
    world_size: int,
    master: tuple[str, int] | None,
    sys_root: str = "/sys",
    dev_root: str = "/dev",
    root: str = "/",
    data_dir: str = "",
    min_read_mbps: float = 0.0,
    torch_version_suffix: str = "",
) -> NodeResult:
    inventory = network.scan(sys_root, dev_root)
    info = gpu.gpu_info()
    versions = gpu.versions()
    versions["torch"] += torch_version_suffix
    labels = container.read_labels(root)
    versions["image"] = container.image_version(labels) or "none"
    checks: list[Check] = []
    checks += gpu.check_gpus(info, versions, env)
    checks += arch.check_arch(labels)
    checks += network.check_network(env, inventory)
    checks += fabric.check_fabric(env, inventory, fabric.library_dirs(env), dev_root, sys_root)
    checks += container.check_container(env, inventory, info.count, root, dev_root)
    if master is not None:
        local_addresses = [a for i in inventory.interfaces for a in i.addresses]
        checks += rendezvous.check_master_address(master[0], master[1], rank == 0, local_addresses)
    topo_check, matrix = topology.topology_matrix()
    checks.append(topo_check)
    if data_dir:
        checks += storage.check_storage(data_dir, min_read_mbps)
    facts = {
        "rank": rank,
        "local_rank": local_rank,
        "hostname": socket.gethostname(),
        "launcher_node": env.get("GROUP_RANK", ""),
        "versions": versions,
        "env": {key: env[key] for key in RELEVANT_ENV if key in env},
        "gpu_count": info.count,
        "fast_fabric": bool(inventory.rdma or inventory.cxi),
        "world_size": world_size,
    }
    return NodeResult(checks, facts, matrix, inventory)


def node_names(facts: list[Mapping[str, Any]]) -> list[str]:
    """Each rank's node: its hostname, or hostname/agentN when several torchrun agents share one host
    (a multi-node launch emulated on one machine: each agent then stands for a node)."""
    agents: dict[str, set[str]] = {}
    for f in facts:
        agents.setdefault(f["hostname"], set()).add(f.get("launcher_node", ""))
    return [
        f"{f['hostname']}/agent{f['launcher_node']}" if len(agents[f["hostname"]]) > 1 else f["hostname"] for f in facts
    ]
