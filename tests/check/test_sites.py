"""The shipped site profiles judged against published figures, through the same judge the check uses.

A healthy node must pass with margin and a node whose NCCL fell back to TCP sockets must fail, in each
scope: `inter` runs one rank per node, so over one NIC (InfiniBand NDR200 and Slingshot-11: 25 GB/s per
NIC; CSCS measures ~24 GB/s per Slingshot NIC), `all` runs every GPU of both nodes over all four NICs
(CSCS: 122.6 GB/s all_reduce busbw at 128 MiB on 2x4 GH200; 4 x 25 GB/s x 0.9 for 4 NDR200 ports), and
the TCP figure is CSCS' 5.4 GB/s for 2x4 GH200 with the OFI plugin missing (one node pair: a quarter).
"""

from __future__ import annotations

import pytest

from app.check.collectives import Scope
from app.check.judge import judge_bandwidth
from app.check.options import load_site
from app.check.report import FAIL, OK, BandwidthRow

MIB128 = 128 << 20
#: all_reduce busbw (GB/s) at 128 MiB for 2 nodes x 4 GPUs: healthy, and NCCL over TCP sockets.
HEALTHY = {"mn5": {"inter": 24.0, "all": 90.0}, "slingshot-gh200": {"inter": 24.0, "all": 122.6}}
ON_TCP = {"inter": 5.4 / 4, "all": 5.4}
SCOPE = {"inter": Scope("inter", "across nodes (one rank per node, 2 ranks)", (0, 4)),
         "all": Scope("all", "all ranks (8)", tuple(range(8)))}
#: Ranks 0-3 on the first node, 4-7 on the second.
NODES = ["n1"] * 4 + ["n2"] * 4


def judged(site: str, busbw: dict[str, float]) -> dict[str, str]:
    thresholds = load_site(site).thresholds
    tables = {SCOPE[k].key: [BandwidthRow("all_reduce", MIB128, MIB128 // 4, "float", "sum", -1, 1.0, bw, bw, 0)]
              for k, bw in busbw.items()}
    checks = judge_bandwidth([SCOPE[k] for k in busbw], tables, thresholds, NODES)
    return {c.name.split(": ")[1]: c.status for c in checks}


@pytest.mark.parametrize("site", sorted(HEALTHY))
def test_a_healthy_pair_of_nodes_passes_every_scope_of_the_site_profile(site: str) -> None:
    assert judged(site, HEALTHY[site]) == {"inter": OK, "all": OK}


@pytest.mark.parametrize("site", sorted(HEALTHY))
def test_nodes_whose_nccl_fell_back_to_tcp_fail_every_scope(site: str) -> None:
    assert judged(site, ON_TCP) == {"inter": FAIL, "all": FAIL}


@pytest.mark.parametrize("site", sorted(HEALTHY))
def test_healthy_nodes_pass_with_margin_not_by_a_hair(site: str) -> None:
    profile = load_site(site)
    for scope, busbw in HEALTHY[site].items():
        assert getattr(profile, f"min_busbw_{scope}") <= 0.6 * busbw, f"{site} {scope}"
