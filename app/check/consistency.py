"""Across ranks: the same torch / CUDA / NCCL / image versions and the same fabric settings on every
node, and enough GPUs for the ranks placed on each node. A mismatch FAILs and names the odd nodes."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from app.check.report import FAIL, OK, WARN, Check

#: Environment that must agree across nodes: the fabric and NCCL/libfabric selection.
RELEVANT_ENV = (
    "NCCL_SOCKET_IFNAME",
    "NCCL_IB_HCA",
    "NCCL_IB_DISABLE",
    "NCCL_NET",
    "NCCL_NET_PLUGIN",
    "NCCL_PROTO",
    "NCCL_ALGO",
    "NCCL_CROSS_NIC",
    "NCCL_NET_GDR_LEVEL",
    "FI_PROVIDER",
    "GLOO_SOCKET_IFNAME",
    "TORCH_NCCL_ASYNC_ERROR_HANDLING",
)


def _odd_ones(values: Mapping[int, str]) -> tuple[str, list[int]]:
    """The majority value and the ranks that differ from it (ties: the value of the lowest rank wins)."""
    counts = Counter(values.values())
    majority = max(counts, key=lambda v: (counts[v], -min(r for r, x in values.items() if x == v)))
    return majority, sorted(r for r, v in values.items() if v != majority)


def _nodes_of(ranks: Sequence[int], facts: Sequence[Mapping[str, Any]]) -> str:
    by_node: dict[str, list[int]] = defaultdict(list)
    for rank in ranks:
        by_node[facts[rank]["node"]].append(rank)
    return ", ".join(f"{node} (rank{'s' * (len(r) > 1)} {','.join(map(str, r))})" for node, r in by_node.items())


def check_consistency(facts: Sequence[Mapping[str, Any]]) -> list[Check]:
    """`facts[rank]` holds node, versions{...}, env{...}, gpu_count, local_rank."""
    checks = []
    for key in sorted({k for f in facts for k in f["versions"]}):
        values = {rank: str(f["versions"].get(key, "missing")) for rank, f in enumerate(facts)}
        majority, odd = _odd_ones(values)
        name = f"consistency: {key} version"
        if odd:
            odd_values = dict.fromkeys(values[r] for r in odd)
            shown = "; ".join(f"{v} on {_nodes_of([r for r in odd if values[r] == v], facts)}" for v in odd_values)
            checks.append(
                Check(
                    name,
                    FAIL,
                    f"{majority} on most ranks but {shown}",
                    f"run the same image on every node (apptainer exec app.sif ...); check {key} on the odd nodes",
                    stage="consistency",
                )
            )
        else:
            checks.append(Check(name, OK, f"{majority} on all {len(facts)} ranks", stage="consistency"))
    env_keys = sorted({k for f in facts for k in f["env"]})
    differing = []
    for key in env_keys:
        values = {rank: f["env"].get(key, "<unset>") for rank, f in enumerate(facts)}
        majority, odd = _odd_ones(values)
        if odd:
            differing.append(f"{key}={majority} on most ranks but {values[odd[0]]} on {_nodes_of(odd, facts)}")
    if differing:
        checks.append(
            Check(
                "consistency: NCCL/fabric env",
                FAIL,
                "; ".join(differing),
                "export the same NCCL_*/FI_* settings on every node (put them in the job script, before srun/mpiexec)",
                stage="consistency",
            )
        )
    else:
        checks.append(
            Check(
                "consistency: NCCL/fabric env",
                OK,
                f"{len(env_keys)} settings agree" + (f": {', '.join(env_keys)}" if env_keys else ""),
                stage="consistency",
            )
        )
    checks.append(_gpus_per_node(facts))
    return checks


def _gpus_per_node(facts: Sequence[Mapping[str, Any]]) -> Check:
    ranks_on: dict[str, int] = Counter(f["node"] for f in facts)
    gpus_on = {f["node"]: int(f["gpu_count"]) for f in facts}
    short = [node for node, ranks in ranks_on.items() if 0 < gpus_on[node] < ranks]
    idle = [node for node, ranks in ranks_on.items() if gpus_on[node] > ranks]
    summary = ", ".join(f"{node}: {ranks_on[node]} ranks/{gpus_on[node]} GPUs" for node in ranks_on)
    if short:
        return Check(
            "consistency: GPUs per node",
            FAIL,
            f"more ranks than GPUs on {', '.join(short)} ({summary})",
            f"start one process per GPU: --nproc-per-node={gpus_on[short[0]]} or --ntasks-per-node={gpus_on[short[0]]}",
            stage="consistency",
        )
    if idle:
        return Check(
            "consistency: GPUs per node",
            WARN,
            f"fewer ranks than GPUs on {', '.join(idle)} ({summary})",
            f"to use every GPU start --nproc-per-node={gpus_on[idle[0]]} (torchrun) or "
            f"--ntasks-per-node={gpus_on[idle[0]]} (srun)",
            stage="consistency",
        )
    return Check("consistency: GPUs per node", OK, summary, stage="consistency")
