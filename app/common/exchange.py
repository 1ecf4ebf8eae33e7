"""Small JSON messages between ranks through the rendezvous store (TCPStore): no process group, no
pickle. The node reports travel this way, so rank 0 can print every node's checks even when the
process group cannot start (a wrong NCCL_SOCKET_IFNAME breaks init, not the store)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

import torch.distributed as dist

#: A store that fails a wait (not a timeout: its connection) is asked again after POLL_S, each later time after
#: twice the pause before, up to MAX_POLL_S, until the caller's deadline.
POLL_S = 0.05
MAX_POLL_S = 1.0
#: The longest one `wait` asks the server for; a caller without a deadline (the check's exchanges, which its
#: watchdog bounds) waits again. A wait that outlives its timeout costs a cancel and two warning lines of torch's.
MAX_WAIT_S = 300.0


#: The largest value a reader parses: a check's per-rank results are kilobytes; anything past this is damage or
#: another client's, and is read as absent. (TCPStore itself bounds nothing: the bytes have arrived by then.)
MAX_VALUE_BYTES = 16 * 2**20

log = logging.getLogger(__name__)
_reported: set[str] = set()

T = TypeVar("T")


class Malformed(ValueError):
    """A value read from the store that is not what its reader expects (damaged, or written by someone else)."""


def put(store: dist.Store, key: str, value: Any) -> None:
    store.set(key, json.dumps(value))


def parse(raw: bytes | str) -> Any:
    """A JSON value read from the store; `Malformed` when it is oversized, not UTF-8 or not JSON."""
    if len(raw) > MAX_VALUE_BYTES:
        raise Malformed(f"{len(raw)} bytes, over {MAX_VALUE_BYTES}")
    try:
        return json.loads(raw.decode() if isinstance(raw, bytes) else raw)
    except ValueError as err:  # UnicodeDecodeError and JSONDecodeError are both ValueErrors
        raise Malformed(f"not JSON ({str(err)[:80]})") from None


def get_checked(store: dist.Store, key: str, check: Callable[[Any], T]) -> T | None:
    """`key`'s value as `check` makes it from the JSON, or None (logged once per key) when it is malformed."""
    return _checked(key, store.get(key), check)


def get_many_checked(store: dist.Store, keys: list[str], check: Callable[[int, Any], T]) -> list[T | None]:
    """Every key's value in one request (`multi_get`), each as `check(index, json)` makes it, None where malformed:
    rank 0 reads N records in one round trip, not N."""
    raws = store.multi_get(keys) if keys else []
    return [_checked(key, raw, lambda data, i=i: check(i, data)) for i, (key, raw) in enumerate(zip(keys, raws,
                                                                                                   strict=True))]


def _checked(key: str, raw: bytes, check: Callable[[Any], T]) -> T | None:
    try:
        return check(parse(raw))
    except (ValueError, TypeError, KeyError, AttributeError) as err:  # Malformed, or the check's own refusal
        report_malformed(key, str(err))
        return None


def report_malformed(key: str, why: str) -> None:
    """One warning per key, however often it is read: the reader treats the value as absent."""
    if key not in _reported:
        _reported.add(key)
        log.warning("ignoring the store's value at %r: %s (read as absent; damaged, or written by another "
                    "client of the store)", key, why[:200])


def require(condition: bool, what: str) -> None:
    """A check of a value read from the store: `Malformed(what)` unless `condition`."""
    if not condition:
        raise Malformed(what)


# bounded_int and text write their refusal only when they refuse: rank 0 checks every field of every rank's record, and
# every rank each node name of the plan; the message made for every field cost 5 ms a plan at 1024 ranks.
def bounded_int(value: Any, low: int, high: int) -> int:
    """`value` as an int in [low, high], or `Malformed` (bool is no number here, though Python says it is)."""
    if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
        raise Malformed(f"{value!r:.40} is not a whole number in [{low}, {high}]")
    return value


def text(value: Any, limit: int) -> str:
    """`value` as a str of at most `limit` characters, or `Malformed`."""
    if not (isinstance(value, str) and len(value) <= limit):
        raise Malformed(f"{value!r:.40} is not a text of at most {limit} chars")
    return value


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
    """Wait until every key exists or `deadline` (time.monotonic) passes; return the keys still missing.

    One request whatever the number of keys: the store's own `wait`, which the server answers the moment the last
    of them is set. Polling with `check` heard a key up to a poll interval late at each exchange of the check (up
    to a second: at 256 simulated ranks, rank 1 read the plan 0.7 s after rank 0 posted it, and the polls were
    three quarters of the check's requests: bench/control_plane.py). Only at the deadline is each key
    asked for alone, to say which are missing."""
    pause = POLL_S
    while (left := deadline - time.monotonic()) > 0:
        try:
            store.wait(keys, timedelta(seconds=min(left, MAX_WAIT_S)))
            return []
        except (RuntimeError, dist.DistError):  # its timeout (DistStoreError), or the store did not answer
            time.sleep(max(0.0, min(pause, deadline - time.monotonic())))
            pause = min(MAX_POLL_S, 2 * pause)
    return [k for k in keys if not present(store, k)]
