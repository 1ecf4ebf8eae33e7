"""Collective tests: correctness with known values (every element checked, a #wrong count as in
nccl-tests), then a bandwidth sweep; per scope (within each node, across nodes with one rank per
node, all ranks), each scope a `new_group` subgroup.

algbw = bytes / time and busbw = algbw x factor, with nccl-tests' sizes and factors
(`doc/PERFORMANCE.md`): all_reduce 2(n-1)/n; all_gather and reduce_scatter (n-1)/n, their size being
the whole gathered buffer; broadcast and the send/recv ring 1. On GPU many back-to-back calls are
timed between CUDA events so small messages are not dominated by host overhead.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.distributed as dist

from app.common import injected_faults

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "sendrecv")
#: Message sizes in bytes: GPU sizes reach the fabric's plateau; CPU sizes keep the check under 30 s.
DEFAULT_SIZES_GPU = (32 << 10, 256 << 10, 2 << 20, 16 << 20, 128 << 20)
DEFAULT_SIZES_CPU = (1 << 10, 16 << 10, 256 << 10, 4 << 20)
#: Bytes moved per timed measurement, which sets the iteration count per size (bounded below).
BUDGET_BYTES = {"cpu": 64 << 20, "cuda": 4 << 30}
ITERS_MIN, ITERS_MAX, WARMUP = 3, 50, 2
DTYPE = torch.float32
CORRECTNESS_ELEMENTS = 4096 + 3  # not a power of two: catches chunking bugs at the edges


@dataclass(frozen=True)
class Scope:
    key: str
    """Short id: 'intra:<node>', 'inter', 'all' (used for thresholds and JSON)."""
    title: str
    ranks: tuple[int, ...]


def plan_scopes(nodes: Sequence[str]) -> list[Scope]:
    """Scopes from each rank's node name; a scope identical to 'all ranks' is not repeated."""
    world = tuple(range(len(nodes)))
    by_node: dict[str, list[int]] = {}
    for rank, node in enumerate(nodes):
        by_node.setdefault(node, []).append(rank)
    scopes = []
    for node, ranks in by_node.items():
        if len(ranks) > 1 and tuple(ranks) != world:
            scopes.append(Scope(f"intra:{node}", f"within node {node} ({len(ranks)} ranks)", tuple(ranks)))
    leaders = tuple(ranks[0] for ranks in by_node.values())
    if len(leaders) > 1 and leaders != world:
        scopes.append(Scope("inter", f"across nodes (one rank per node, {len(leaders)} ranks)", leaders))
    scopes.append(Scope("all", f"all ranks ({len(world)})", world))
    return scopes


def bus_factor(collective: str, n: int) -> float:
    return {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "reduce_scatter": (n - 1) / n}.get(
        collective, 1.0
    )


def _pattern(count: int, device: torch.device) -> torch.Tensor:
    """Small integers, exact in float32 when summed over thousands of ranks."""
    return (torch.arange(count, device=device, dtype=torch.int64) % 13 + 1).to(DTYPE)


def _all_gather(out: torch.Tensor, inp: torch.Tensor, group) -> None:
    fn = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
    fn(out, inp, group=group)


def _reduce_scatter(out: torch.Tensor, inp: torch.Tensor, group) -> None:
    fn = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
    fn(out, inp, group=group)


def _ring(send: torch.Tensor, recv: torch.Tensor, ranks: Sequence[int], me: int, group) -> None:
    i = ranks.index(me)
    ops = [
        dist.P2POp(dist.isend, send, ranks[(i + 1) % len(ranks)], group),
        dist.P2POp(dist.irecv, recv, ranks[(i - 1) % len(ranks)], group),
    ]
    for work in dist.batch_isend_irecv(ops):
        work.wait()


@dataclass
class Correctness:
    wrong: int
    bad_sources: list[int]
    """Global ranks whose data arrived wrong (all_gather, send/recv: the source is known)."""


def check_correctness(
    collective: str,
    scope: Scope,
    group,
    rank: int,
    device: torch.device,
    count: int = CORRECTNESS_ELEMENTS,
) -> Correctness:
    """Run `collective` once on known values and count the wrong elements this rank received.

    `count` is the element count of the size column: the whole buffer (all_reduce, broadcast,
    send/recv), the gathered output (all_gather) or the reduced input (reduce_scatter).
    """
    ranks, n = list(scope.ranks), len(scope.ranks)
    me = ranks.index(rank)
    per = count // n if collective in ("all_gather", "reduce_scatter") else count
    base = _pattern(per, device)
    mine = injected_faults.point("check.contribution", base * (rank + 1))  # test-only: a bad link or GPU
    bad: list[int] = []
    if collective == "all_reduce":
        out = mine.clone()
        dist.all_reduce(out, group=group)
        expected = base * sum(r + 1 for r in ranks)
    elif collective == "all_gather":
        out = torch.empty(per * n, device=device, dtype=DTYPE)
        _all_gather(out, mine, group)
        expected = torch.cat([base * (r + 1) for r in ranks])
        bad = [
            r
            for i, r in enumerate(ranks)
            if not torch.equal(out[i * per : (i + 1) * per], expected[i * per : (i + 1) * per])
        ]
    elif collective == "reduce_scatter":
        inp = torch.cat([mine + j for j in range(n)])  # chunk j differs, so a misrouted chunk is wrong
        out = torch.empty(per, device=device, dtype=DTYPE)
        _reduce_scatter(out, inp, group)
        expected = base * sum(r + 1 for r in ranks) + me * n
    elif collective == "broadcast":
        root = ranks[0]
        out = mine.clone() if rank == root else torch.zeros(per, device=device, dtype=DTYPE)
        dist.broadcast(out, src=root, group=group)
        expected = base * (root + 1)
        bad = [root] if not torch.equal(out, expected) else []
    elif collective == "sendrecv":
        if n < 2:
            return Correctness(0, [])
        out = torch.zeros(per, device=device, dtype=DTYPE)
        _ring(mine, out, ranks, rank, group)
        source = ranks[(me - 1) % n]
        expected = base * (source + 1)
        bad = [source] if not torch.equal(out, expected) else []
    else:
        raise ValueError(collective)
    wrong = int((out != expected).sum().item())
    return Correctness(wrong, bad)


def make_op(
    collective: str, scope: Scope, group, rank: int, device: torch.device, size: int
) -> tuple[Callable[[], None], int, int]:
    """A closure running `collective` once on `size` bytes, the element count and the size actually used."""
    ranks, n = list(scope.ranks), len(scope.ranks)
    elem = torch.tensor([], dtype=DTYPE).element_size()
    count = max(size // elem, n)
    if collective in ("all_gather", "reduce_scatter"):
        count -= count % n
    buf = torch.ones(count, device=device, dtype=DTYPE)
    if collective == "all_reduce":

        def op() -> None:
            dist.all_reduce(buf, group=group)
    elif collective == "all_gather":
        part = buf[: count // n].clone()

        def op() -> None:
            _all_gather(buf, part, group)
    elif collective == "reduce_scatter":
        part = buf[: count // n].clone()

        def op() -> None:
            _reduce_scatter(part, buf, group)
    elif collective == "broadcast":

        def op() -> None:
            dist.broadcast(buf, src=ranks[0], group=group)
    elif collective == "sendrecv":
        recv = torch.empty_like(buf)

        def op() -> None:
            _ring(buf, recv, ranks, rank, group)
    else:
        raise ValueError(collective)
    return op, count, count * elem


def iterations(size: int, device: torch.device) -> int:
    return max(ITERS_MIN, min(ITERS_MAX, BUDGET_BYTES.get(device.type, BUDGET_BYTES["cpu"]) // max(size, 1)))


def time_op(op: Callable[[], None], iters: int, device: torch.device, group) -> float:
    """Seconds per call, this rank's view: warm up, line the ranks up, time `iters` back-to-back calls."""
    for _ in range(WARMUP):
        op()
    sync = torch.zeros(1, device=device)
    dist.all_reduce(sync, group=group)  # start together (a barrier that works on every backend)
    if device.type == "cuda":
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            op()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / iters
    begin = time.perf_counter()
    for _ in range(iters):
        injected_faults.point("check.timed_call")  # test-only: a node on a bad link
        op()
    return (time.perf_counter() - begin) / iters


def supported(collective: str, n: int) -> bool:
    return not (collective == "sendrecv" and n < 2)
