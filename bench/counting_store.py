"""A rank's store client that counts what it sends: requests by method (heartbeats apart, as `beat`), per
rank, and the payload bytes (keys and values as the code passes them, plus the key prefix; TCP framing is not
counted). One `Tally` a process, shared by its simulated ranks' clients (bench.control_plane,
bench.watchdog_scale)."""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch.distributed as dist

from app.common.watchdog import beat_key

_NUMBER = re.compile(r"\d+")


def family(keys: Any) -> str:
    """The key family a request names: its (first) key with every number as '#' ("node/#", "watchdog/beat/#"), and
    how many keys a batched request names ("x256"): the same families at main and at an older commit compare."""
    if isinstance(keys, (list, tuple)):
        return f"{family(keys[0]) if keys else '-'} x{len(keys)}"
    return _NUMBER.sub("#", keys if isinstance(keys, str) else str(keys))


def payload_size(value: Any) -> int:
    if isinstance(value, (bytes, bytearray, str)):
        return len(value)
    if isinstance(value, (list, tuple)):
        return sum(payload_size(v) for v in value)
    return 8  # an integer (add's amount, a reply) or a bool


class Tally:
    """One process's counts: requests by method, payload bytes, requests per rank (beats included, and apart)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.requests: Counter[str] = Counter()
            self.bytes = 0
            self.by_rank: Counter[int] = Counter()
            self.beats_by_rank: Counter[int] = Counter()
            self.families: Counter[str] = Counter()

    def add(self, rank: int, method: str, nbytes: int, keys: Any = "") -> None:
        with self.lock:
            self.requests[method] += 1
            self.families[f"{method} {family(keys)}"] += 1
            self.bytes += nbytes
            self.by_rank[rank] += 1
            if method == "beat":
                self.beats_by_rank[rank] += 1

    def without_beats(self) -> Counter[int]:
        """Each rank's requests but its heartbeats."""
        with self.lock:
            return Counter({rank: n - self.beats_by_rank[rank] for rank, n in self.by_rank.items()})

    def busiest(self, beats: bool = True) -> int:
        """The most requests one rank sent (`beats=False`: heartbeats left out)."""
        counts = self.snapshot()["by_rank"] if beats else self.without_beats()
        return max(counts.values(), default=0)

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {"requests": dict(self.requests), "bytes": self.bytes, "by_rank": dict(self.by_rank),
                    "families": dict(self.families)}


class CountingStore:
    """A rank's store client that counts each request it sends (heartbeats as `beat`) and its bytes."""

    def __init__(self, store: dist.Store, rank: int, tally: Tally, prefix: str = "") -> None:
        self.store, self.rank, self.tally, self.prefix = store, rank, tally, len(prefix)
        self.beat = beat_key(rank)

    def _keys(self, keys: Any) -> int:
        return payload_size(keys) + self.prefix * (len(keys) if isinstance(keys, list) else 1)

    def set(self, key: str, value: Any) -> None:
        self.tally.add(self.rank, "beat" if key == self.beat else "set", self._keys(key) + payload_size(value), key)
        self.store.set(key, value)

    def compare_set(self, key: str, expected: Any, desired: Any) -> bytes:
        """A heartbeat after the first is a compare_set over the rank's last beat (app.common.watchdog): a beat too."""
        self.tally.add(self.rank, "beat" if key == self.beat else "compare_set",
                       self._keys(key) + payload_size(expected) + payload_size(desired), key)
        return self.store.compare_set(key, expected, desired)

    def get(self, key: str) -> bytes:
        value = self.store.get(key)
        self.tally.add(self.rank, "get", self._keys(key) + len(value), key)
        return value

    def multi_get(self, keys: list[str]) -> list[bytes]:
        values = self.store.multi_get(keys)
        self.tally.add(self.rank, "multi_get", self._keys(keys) + payload_size(values), keys)
        return values

    def multi_set(self, keys: list[str], values: list[Any]) -> None:
        self.tally.add(self.rank, "multi_set", self._keys(keys) + payload_size(values), keys)
        self.store.multi_set(keys, values)

    def __getattr__(self, name: str) -> Callable[..., Any]:  # add, check, wait, compare_set, ...
        method = getattr(self.store, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.tally.add(self.rank, name, self._keys(args[0]) + payload_size(list(args[1:])) if args else 0,
                           args[0] if args else "")
            return method(*args, **kwargs)

        return counted
