"""Which attempt of an elastic torchrun job this process belongs to, agreed by all its ranks.

torchrun's agent keeps one store server for all its rounds (torch/distributed/elastic/rendezvous/
dynamic_rendezvous.py creates it once, at the first `next_rendezvous`), so the keys of an earlier attempt
(process-group addresses, NCCL unique ids, flight-recorder dump flags) are still there when the workers
of the next one start: each attempt must read and write under its own prefix. TORCHELASTIC_RESTART_COUNT
cannot name it: every agent counts for itself, and an agent whose worker was still running when another
agent's died restarts it for the new round without counting (`_invoke_run` in
torch/distributed/elastic/agent/server/api.py; pytorch/pytorch#108158, #135712). On an H100, a rank blocked
in NCCL on its dead peer was such a worker: the new rank 0 read the first attempt's keys and the job hung.

So the ranks agree on a number through the store itself. Rank 0, a new process in every attempt, takes
the next number and publishes it. Every other rank answers the published number with a token of its own
process and waits for rank 0 to echo that token. A number left by an earlier attempt gets the echo of an earlier
process, or none (that attempt's rank 0 died first): once the new rank 0 has published its number it writes
MOVED to each follower's echo key of the number before, so a follower that read that one reads again. Five
requests per rank (two of them waits), and one wait, one multi_get and two multi_sets for rank 0, whatever the
world size.

Every wait is the store's own, to the deadline: none times out unless the agreement fails. torch prints two
warnings for each `wait` that times out, each naming the socket's address through getnameinfo ("waitForInput:
poll for socket ... returned 0, likely a timeout", SocketImpl::waitForInput in
torch/csrc/distributed/c10d/socket.cpp): followers that waited a second at a time for the echo printed them on
every try while a slow rank had not answered, and each such name is a reverse lookup through the resolver (one
it loses costs its 5 s retry: measured here on the lookup each new store connection makes).
Polling with `check` instead cost 2.5 times the requests and 2-5 times the time at 4096 simulated ranks.

One key of an earlier attempt is out of a prefix's reach: PyTorch's NCCL process group raises its
flight-recorder flag at the root of the store (`exception_dump`, kStoreDumpKey in
torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp, polled through getUnderlyingNonPrefixStore) when a
collective fails, as the survivors' collectives do when a peer dies. Left there, it sends every rank of the
next attempt into the dump path: on an H200 (torch 2.11) both ranks of a restarted run finished it
bit-identical and then hung in destroy_process_group; where the heartbeat monitor ends the process after a
dump (HeartbeatMonitor::runLoop in ProcessGroupNCCL.cpp: terminateProcess once
TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC has passed), a longer run would be aborted. Rank 0 deletes it before it
publishes the attempt, so before any rank of the new attempt builds a process group; no process of the
earlier attempt is left by then (torchrun stops an agent's workers before the agent joins the next round).
"""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

import torch.distributed as dist

from app.common import exchange
from app.common.signed_store import SignedStore

COUNTER = "app/attempts/counter"
FLIGHT_RECORDER_FLAG = "exception_dump"  # kStoreDumpKey: see the module's docstring
CURRENT = "app/attempts/current"
POLL_S = 1.0  # how long a rank whose old process's token came back waits before it reads the number again
MOVED = "moved on"  # what rank 0 echoes to the followers of the attempt before its own


class NoAgreement(TimeoutError):
    """The ranks did not agree on an attempt within the deadline (rank 0 never started, or never answered)."""


def agree_on_attempt(store: dist.Store, rank: int, world_size: int, timeout_s: float) -> int:
    """The attempt number every rank of this attempt gets (1 for the job's first)."""
    return _lead(store, world_size, timeout_s) if rank == 0 else _follow(store, rank, timeout_s)


def _lead(store: dist.Store, world_size: int, timeout_s: float) -> int:
    _root(store).delete_key(FLIGHT_RECORDER_FLAG)
    before = _published(store) if store.check([CURRENT]) else None
    attempt = int(store.add(COUNTER, 1))
    store.set(CURRENT, str(attempt))
    followers = range(1, world_size)
    if before is not None and followers:  # release whoever read the number before (the module's docstring)
        store.multi_set([f"app/attempts/{before}/echo/{rank}" for rank in followers], [MOVED] * len(followers))
    answers = [f"app/attempts/{attempt}/answer/{rank}" for rank in followers]
    if answers:
        try:
            store.wait(answers, timedelta(seconds=timeout_s))
        except dist.DistError:
            raise NoAgreement(f"rank 0 waited {timeout_s:.0f}s for the other ranks to join attempt {attempt}") from None
        store.multi_set([f"app/attempts/{attempt}/echo/{rank}" for rank in followers], store.multi_get(answers))
    return attempt


def _published(store: dist.Store) -> int | None:
    """The attempt rank 0 published, or None (logged once) when it is no attempt number (a whole number from 1).
    A number no rank 0 took gets no echo, as an earlier attempt's does not."""
    try:
        raw = store.get(CURRENT)
        exchange.require(len(raw) <= 18 and raw.isdigit(), f"{raw[:20]!r} is not a whole number")
        return exchange.bounded_int(int(raw), 1, 10**18)
    except ValueError as err:  # Malformed included
        exchange.report_malformed(CURRENT, str(err))
        return None


def _root(store: dist.Store) -> dist.Store:
    """The store under every prefix: where the process group raises its flight-recorder flag (a sealed store's
    prefixes are joined in Python; app.common.signed_store.for_process_groups makes them C++ PrefixStores)."""
    while isinstance(store, dist.PrefixStore):
        store = store.underlying_store
    return store.root() if isinstance(store, SignedStore) else store


def _follow(store: dist.Store, rank: int, timeout_s: float) -> int:
    token = uuid.uuid4().hex
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and _appears(store, CURRENT, deadline):
        attempt = _published(store)
        if attempt is None:  # malformed: read as absent until rank 0 publishes one
            time.sleep(POLL_S)
            continue
        store.set(f"app/attempts/{attempt}/answer/{rank}", token)
        echo = f"app/attempts/{attempt}/echo/{rank}"
        if not _appears(store, echo, deadline):
            break
        said = store.get(echo).decode(errors="replace")
        if said == token:
            return attempt
        if said != MOVED:  # an earlier process of this rank was echoed: the new rank 0 has not published yet
            time.sleep(POLL_S)
    raise NoAgreement(f"rank {rank} had no answer from rank 0 within {timeout_s:.0f}s")


def _appears(store: dist.Store, key: str, deadline: float) -> bool:
    """Whether `key` is in the store by `deadline` (a monotonic time), waiting for it with the store's own wait."""
    try:
        store.wait([key], timedelta(seconds=max(0.001, deadline - time.monotonic())))
    except dist.DistError:
        return False
    return True
