"""Small JSON messages between ranks through the rendezvous store (TCPStore): no process group, no
pickle. The node reports travel this way, so rank 0 can print every node's checks even when the
process group cannot start (a wrong NCCL_SOCKET_IFNAME breaks init, not the store)."""

from __future__ import annotations

import json
import time
from typing import Any

import torch.distributed as dist

#: The first poll comes after POLL_S, each later one after twice the wait before, up to MAX_POLL_S: a
#: key that is there at once costs one request, and N ranks waiting a minute for one key cost N requests a
#: second, not 20 N (at 1024 simulated ranks, 50 ms polls overloaded the store: bench/control_plane.py).
POLL_S = 0.05
MAX_POLL_S = 1.0


def put(store: dist.Store, key: str, value: Any) -> None:
    store.set(key, json.dumps(value))


def get(store: dist.Store, key: str) -> Any:
    return json.loads(store.get(key).decode())


def get_many(store: dist.Store, keys: list[str]) -> list[Any]:
    """Every key's value in one request (`multi_get`): rank 0 reads N records in one round trip, not N."""
    return [json.loads(raw.decode()) for raw in store.multi_get(keys)] if keys else []


def present(store: dist.Store, key: str) -> bool:
    return bool(probe(store, key))


def probe(store: dist.Store, key: str) -> bool | None:
    """Whether `key` exists; None when the store is unreachable (its host, rank 0 or the agent, is gone)."""
    return _all_present(store, [key])


def _all_present(store: dist.Store, keys: list[str]) -> bool | None:
    try:
        return bool(store.check(keys))
    except (RuntimeError, dist.DistError):
        return None


def wait_for(store: dist.Store, keys: list[str], deadline: float) -> list[str]:
    """Poll until every key exists or `deadline` (time.monotonic) passes; return the keys still missing.

    One request a poll whatever the number of keys (`check` of them all: true once every one exists); only
    at the deadline is each key asked for alone, to say which are missing."""
    pause = POLL_S
    while not _all_present(store, keys):
        now = time.monotonic()
        if now >= deadline:
            return [k for k in keys if not present(store, k)]
        time.sleep(min(pause, deadline - now))
        pause = min(MAX_POLL_S, 2 * pause)
    return []
