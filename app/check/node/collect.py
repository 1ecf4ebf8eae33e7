"""Run every node check and gather the facts that rank 0 compares across ranks."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Mapping
from typing import Any

from app.check.consistency import RELEVANT_ENV
from app.check.node import (
    arch,
    container,
    driver,
    fabric,
    fabric_manager,
    gpu,
    health,
    image,
    memlock,
    network,
    rendezvous,
    shm,
    storage,
    topology,
)
from app.check.node.probe import Probe
from app.check.report import Check
from app.common import injected_faults
from app.host.common.provenance import read_labels


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where this rank sits: what the node checks need to know about the job."""

    rank: int
    local_rank: int
    world_size: int
    master: tuple[str, int] | None
    """Rank 0's rendezvous address and port; None when no rendezvous follows (one rank, --node-only)."""


@dataclasses.dataclass
class NodeResult:
    checks: list[Check]
    facts: dict[str, Any]
    topology: str


def collect(env: Mapping[str, str], placement: Placement, probe: Probe, data_dir: str = "",
            min_read_mbps: float = 0.0) -> NodeResult:
    """Every node check of this rank; `data_dir`: the training data's directory, whose read speed is probed."""
    inventory = network.scan(probe)
    info = gpu.gpu_info()
    versions = injected_faults.point("check.versions", gpu.agreed_versions())  # test-only: another image
    labels = read_labels(str(probe.root))
    versions["image"] = container.image_version(labels) or "none"
    checks: list[Check] = []
    checks += gpu.check_gpus(info, versions, env)
    checks += health.check_health(info.count)
    checks += driver.check_driver(probe, versions["cuda"], env)
    checks += fabric_manager.check_fabric_manager(probe, info.count)
    checks += shm.check_shm(probe, info.count)
    checks += arch.check_arch(labels)
    checks += network.check_network(env, inventory)
    checks += fabric.check_fabric(env, inventory, fabric.library_dirs(env), probe)
    checks += memlock.check_memlock(probe, inventory)
    checks += container.check_container(env, inventory, info.count, probe)
    checks += image.check_image(env, inventory, labels, probe, container.in_apptainer(env, str(probe.root)))
    if placement.master is not None:
        local_addresses = [a for i in inventory.interfaces for a in i.addresses]
        address, port = placement.master
        checks += rendezvous.check_master_address(address, port, placement.rank == 0, local_addresses)
    topo_check, matrix = topology.topology_matrix()
    checks.append(topo_check)
    if data_dir:
        checks += storage.check_storage(data_dir, min_read_mbps)
    facts = {
        "rank": placement.rank,
        "local_rank": placement.local_rank,
        "hostname": socket.gethostname(),
        "machine": machine_of(probe),
        "launcher_node": env.get("GROUP_RANK", ""),
        "versions": versions,
        "env": {key: env[key] for key in RELEVANT_ENV if key in env},
        "gpu_count": info.count,
        "fast_fabric": bool(inventory.rdma or inventory.cxi),
        "rdma": bool(inventory.rdma),
        "cxi": bool(inventory.cxi),
        "world_size": placement.world_size,
    }
    return NodeResult(checks, facts, matrix)


def node_names(facts: list[Mapping[str, Any]]) -> list[str]:
    """Each rank's node: its hostname, or hostname/agentN when several torchrun agents share one host
    (a multi-node launch emulated on one machine: each agent then stands for a node)."""
    agents: dict[str, set[str]] = {}
    for f in facts:
        agents.setdefault(f["hostname"], set()).add(f.get("launcher_node", ""))
    return [
        f"{f['hostname']}/agent{f['launcher_node']}" if len(agents[f["hostname"]]) > 1 else f["hostname"] for f in facts
    ]


def machine_of(probe: Probe) -> str:
    """The kernel this rank runs on, by its boot id: network namespaces and containers of one machine have
    hostnames of their own and share it (and the machine's cores and links); the hostname where it cannot
    be read."""
    try:
        boot_id = (probe.proc / "sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        boot_id = ""
    return boot_id[:64] or socket.gethostname()
