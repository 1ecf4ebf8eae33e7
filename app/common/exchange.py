"""Small JSON messages between ranks through the rendezvous store (TCPStore): no process group, no
pickle. The node reports travel this way, so rank 0 can print every node's checks even when the
process group cannot start (a wrong NCCL_SOCKET_IFNAME breaks init, not the store)."""

from __future__ import annotations

import json
import time
from typing import Any

import torch.distributed as dist

POLL_S = 0.05


def put(store: dist.Store, key: str, value: Any) -> None:
    store.set(key, json.dumps(value))


def get(store: dist.Store, key: str) -> Any:
    return json.loads(store.get(key).decode())


def present(store: dist.Store, key: str) -> bool:
    return bool(probe(store, key))


def probe(store: dist.Store, key: str) -> bool | None:
    """Whether `key` exists; None when the store is unreachable (its host, rank 0 or the agent, is gone)."""
    try:
        return bool(store.check([key]))
    except (RuntimeError, dist.DistError):
        return None


def wait_for(store: dist.Store, keys: list[str], deadline: float) -> list[str]:
    """Poll until every key exists or `deadline` (time.monotonic) passes; return the keys still missing."""
    missing = list(keys)
    while True:
        missing = [k for k in missing if not present(store, k)]
        if not missing or time.monotonic() >= deadline:
            return missing
        time.sleep(POLL_S)
