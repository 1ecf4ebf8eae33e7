"""Which node is slow: each node's bandwidth compared with the other nodes', not with a threshold.

An absolute threshold says the job is slow; it cannot say which node, since a collective runs at the
pace of its slowest member. Two measurements can:
- within each node (the `intra:<node>` scopes the check runs anyway): a node whose GPUs talk to each
  other much slower than the other nodes' do (a degraded NVLink/PCIe path, a throttled GPU);
- node pairs: all_reduce between the leaders of neighbouring nodes in a ring (n1+n2, n2+n3, ..., nN+n1),
  at the largest size. A node whose every pair is slow is the slow one (a bad NIC, cable or switch
  port); a slow pair whose nodes are fast elsewhere is a link between them. Three nodes at least: one
  pair alone cannot say which of its two nodes is at fault.
"Much slower" is below SLOW_FRACTION of the median of the same measurement without the node (the other
nodes, the pairs it is not in): a node at a quarter of its peers' speed holds every collective of a job
to that pace, while ordinary spread (and the noise of CPU runs on shared cores) stays well above it.
Every node measures within itself at the same time, so nodes that share a machine (torchrun agents on
one host, containers or network namespaces of one kernel) share its cores and links while they do: those
are left out of the within-node comparison (two such agents on a loaded 2-core machine measured 0.46 and
0.03 GB/s). The pairs take turns (each waits for its ring neighbour's), so a shared machine does not
skew them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence

from app.check.collectives import Scope
from app.check.report import FAIL, OK, Check
from app.check.scheduler_words import leave_out

SLOW_FRACTION = 0.25
SITE_TASK = ("check its NICs (ibstat, link width and speed), GPUs (nvidia-smi -q: clocks, throttling, PCIe link) "
             "and cabling")


def pair_scopes(nodes: Sequence[str]) -> list[Scope]:
    """Ring pairs of node leaders (each node's first rank), from three nodes on; none below."""
    leaders: dict[str, int] = {}
    for rank, node in enumerate(nodes):
        leaders.setdefault(node, rank)
    names = list(leaders)
    if len(names) < 3:
        return []
    return [Scope(f"pair:{a}+{b}", f"node pair {a} + {b}", (leaders[a], leaders[b]))
            for a, b in zip(names, names[1:] + names[:1], strict=True)]


def judge_slow_nodes(intra: Mapping[str, float], pairs: Mapping[tuple[str, str], float],
                     machines: Mapping[str, str] | None = None) -> list[Check]:
    """One check from each node's own busbw (`intra`) and each ring pair's (`pairs`); [] when there is
    nothing to compare (fewer than two nodes with figures). `machines`: the machine each node runs on
    (node/collect.machine_of), where it is not a machine of its own."""
    slow: dict[str, str] = {}
    machine = (machines or {}).get
    shared = Counter(machine(node, node) for node in intra)
    side_by_side = sorted(node for node in intra if shared[machine(node, node)] > 1)
    intra = {node: busbw for node, busbw in intra.items() if node not in side_by_side}
    if len(intra) >= 2:
        for node, busbw in intra.items():
            others = statistics.median(v for n, v in intra.items() if n != node)
            if busbw < SLOW_FRACTION * others:
                slow[node] = f"{node} within itself {busbw:.2f} GB/s, the other nodes {others:.2f}"
    for node in sorted({n for pair in pairs for n in pair}):
        # Against the pairs without it: with three nodes, a slow one is in two of the three pairs.
        own = [busbw for pair, busbw in pairs.items() if node in pair]
        others = [busbw for pair, busbw in pairs.items() if node not in pair]
        if others and max(own) < SLOW_FRACTION * statistics.median(others):
            slow.setdefault(node, f"{node} slow with each neighbour ({max(own):.2f} GB/s at best, pairs without it "
                                  f"{statistics.median(others):.2f})")
    skipped = (f"; {', '.join(side_by_side)} share a machine: measured side by side, not compared within themselves"
               if side_by_side else "")
    if len(intra) < 2 and not pairs:
        return [Check("bandwidth: slow node", OK, skipped.removeprefix("; "), stage="bandwidth")] if skipped else []
    figures = ", ".join([f"{a}+{b} {busbw:.2f}" for (a, b), busbw in pairs.items()]
                        + [f"{node} {busbw:.2f}" for node, busbw in intra.items()]) + skipped
    if slow:
        return [Check("bandwidth: slow node", FAIL, f"{'; '.join(slow.values())} (all_reduce busbw GB/s: {figures})",
                      leave_out("the named node", SITE_TASK), stage="bandwidth", where=",".join(sorted(slow)),
                      nodes=sorted(slow))]
    return [Check("bandwidth: slow node", OK, f"no node below {SLOW_FRACTION:g} x its peers' all_reduce busbw "
                  f"(GB/s: {figures})", stage="bandwidth")]
