"""app.common.exchange: waiting for keys other ranks write, through the job's sealed store as the check uses it."""

from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
import torch.distributed as dist

from app.common import exchange
from app.common.signed_store import SignedStore


class Counted:
    """A store client that counts the requests it sends, by method."""

    def __init__(self, store: dist.Store) -> None:
        self.store, self.requests = store, Counter()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.store, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.requests[name] += 1
            return method(*args, **kwargs)

        return counted


@pytest.fixture
def server() -> dist.TCPStore:
    return dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, use_libuv=True,
                         timeout=timedelta(seconds=10))


def sealed_client(server: dist.TCPStore) -> dist.Store:
    """A rank's view of the check's keys: a prefix over its own sealed connection (app/check/runner.py)."""
    client = dist.TCPStore("127.0.0.1", server.port, is_master=False, timeout=timedelta(seconds=10))
    return dist.PrefixStore("app.check/", SignedStore(client, "s" * 32))


def test_a_rank_hears_a_key_the_moment_it_is_set_in_one_request(server):
    """Polling with a growing pause heard a key set 0.8 s in at the 1.55 s poll, five requests later: at every
    exchange of the check, each rank lost up to a poll interval (bench/control_plane.py)."""
    waiter, writer = Counted(sealed_client(server)), sealed_client(server)
    setter = threading.Timer(0.8, lambda: exchange.put(writer, "plan", 1))
    started = time.monotonic()
    setter.start()
    assert exchange.wait_for(waiter, ["plan"], started + 30) == []
    heard_after_s = time.monotonic() - started
    setter.join()
    assert sum(waiter.requests.values()) == 1, waiter.requests
    assert heard_after_s < 0.8 + 0.5, heard_after_s


def test_every_key_of_a_batch_in_one_request(server):
    waiter, writer = Counted(sealed_client(server)), sealed_client(server)
    keys = [f"node/{rank}" for rank in range(64)]
    setter = threading.Timer(0.3, lambda: [exchange.put(writer, key, rank) for rank, key in enumerate(keys)])
    setter.start()
    assert exchange.wait_for(waiter, keys, time.monotonic() + 30) == []
    setter.join()
    assert waiter.requests == {"wait": 1}


def test_the_keys_still_missing_at_the_deadline_are_returned(server):
    client, writer = sealed_client(server), sealed_client(server)
    exchange.put(writer, "ack/1", 1)
    started = time.monotonic()
    assert exchange.wait_for(client, ["ack/1", "ack/2", "ack/3"], started + 0.5) == ["ack/2", "ack/3"]
    assert 0.5 <= time.monotonic() - started < 5


def test_a_store_that_does_not_answer_reads_as_every_key_missing_at_the_deadline():
    class Gone:
        def __getattr__(self, name: str) -> Any:
            def refuse(*_: Any) -> Any:
                raise dist.DistNetworkError("Connection reset by peer")
            return refuse

    started = time.monotonic()
    assert exchange.wait_for(Gone(), ["verdict"], started + 0.3) == ["verdict"]
    assert time.monotonic() - started < 5
