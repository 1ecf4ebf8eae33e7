"""The ranks of an elastic job agree on their attempt through one real TCPStore that outlives attempts
(as torchrun's agent store does), whatever order the new processes start in."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch.distributed as dist

from app.common import attempts
from app.common.attempts import CURRENT, NoAgreement, agree_on_attempt
from tests.trainer_runs import free_port


@pytest.fixture
def server(monkeypatch):
    # A follower reads the published number again every POLL_S (1 s in a job): a tenth of it tests the same rounds
    monkeypatch.setattr(attempts, "POLL_S", 0.1)
    port = free_port()
    store = dist.TCPStore("127.0.0.1", port, is_master=True, wait_for_workers=False)
    yield port
    del store


def client(port: int) -> dist.TCPStore:
    return dist.TCPStore("127.0.0.1", port, is_master=False)


class ReadsOfCurrent:
    """A follower's store that counts its reads of the published attempt number."""

    def __init__(self, store: dist.Store) -> None:
        self.store, self.reads = store, 0

    def get(self, key: str) -> bytes:
        value = self.store.get(key)
        self.reads += key == CURRENT
        return value

    def __getattr__(self, name: str):
        return getattr(self.store, name)


def attempt_of_each_rank(port: int, world_size: int, leader_late: bool = False) -> list[int]:
    """Every rank's attempt; with `leader_late`, rank 0 starts once each other rank has read what the store held
    before it, twice (what an earlier attempt left there, or a damaged number)."""
    followers = [ReadsOfCurrent(client(port)) for _ in range(1, world_size)]

    def one(rank: int) -> int:
        if rank == 0:
            deadline = time.monotonic() + 20
            while leader_late and min(f.reads for f in followers) < 2:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the followers read the attempt {[f.reads for f in followers]} times")
                time.sleep(0.01)
            return agree_on_attempt(client(port), 0, world_size, timeout_s=20)
        return agree_on_attempt(followers[rank - 1], rank, world_size, timeout_s=20)

    with ThreadPoolExecutor(world_size) as pool:
        return list(pool.map(one, range(world_size)))


def test_every_rank_gets_the_same_attempt_and_the_next_attempt_the_next_number(server):
    assert attempt_of_each_rank(server, 4) == [1, 1, 1, 1]
    assert attempt_of_each_rank(server, 4) == [2, 2, 2, 2]


def test_ranks_that_start_before_the_new_rank_0_do_not_stay_in_the_old_attempt(server):
    """The earlier attempt's number and echoes are in the store: followers that read them first wait for
    an echo of their own and read again once the new rank 0 has published its number."""
    attempt_of_each_rank(server, 3)
    assert attempt_of_each_rank(server, 3, leader_late=True) == [2, 2, 2]


def test_world_of_one_and_a_missing_rank_0(server):
    assert agree_on_attempt(client(server), 0, 1, timeout_s=5) == 1
    # Connected before the clock starts: torch names the peer of every new connection through the resolver
    # (SocketImpl's constructor formats its address with getnameinfo, torch/csrc/distributed/c10d/socket.cpp),
    # and a lookup the resolver lost took its 5 s retry inside this test's second
    follower = client(server)
    started = time.monotonic()
    with pytest.raises(NoAgreement, match="rank 1 had no answer from rank 0 within 1s"):
        agree_on_attempt(follower, 1, 2, timeout_s=1)  # attempt 1's rank 0 is gone and none follows
    assert time.monotonic() - started < 5


def test_followers_waiting_for_rank_0_print_none_of_torchs_socket_timeout_warnings(server, capfd):
    """torch prints two warnings for every store `wait` that times out, each naming the socket's address through
    the resolver (SocketImpl::waitForInput, torch/csrc/distributed/c10d/socket.cpp): followers that waited a second
    at a time for rank 0's echo while a slow rank had not answered printed them on every try, thousands of lines at
    scale, each name a reverse lookup through the resolver."""

    def one(rank: int) -> int:
        time.sleep(1.5 if rank == 2 else 0)  # the others wait longer than POLL_S for rank 0's echo
        return agree_on_attempt(client(server), rank, 3, timeout_s=20)

    with ThreadPoolExecutor(3) as pool:
        assert list(pool.map(one, range(3))) == [1, 1, 1]
    assert attempt_of_each_rank(server, 3, leader_late=True) == [2, 2, 2]
    assert "waitForInput" not in capfd.readouterr().err


def test_followers_that_read_a_number_whose_rank_0_died_before_its_echo_join_the_next_attempt(server):
    """Attempt 1's rank 0 published its number and died before it echoed: a follower of attempt 2 that reads
    that number first waits for an echo no process will send, until attempt 2's rank 0 releases it."""
    assert agree_on_attempt(client(server), 0, 1, timeout_s=5) == 1  # a world of one: no echo for rank 1 or 2

    def one(rank: int) -> int:
        time.sleep(1.0 if rank == 0 else 0)  # both followers read 1 and answer it before rank 0 starts
        return agree_on_attempt(client(server), rank, 3, timeout_s=20)

    started = time.monotonic()
    with ThreadPoolExecutor(3) as pool:
        assert list(pool.map(one, range(3))) == [2, 2, 2]
    assert time.monotonic() - started < 10


def test_an_earlier_attempts_flight_recorder_dump_flag_is_gone_before_any_rank_of_the_next_starts(server):
    """PyTorch's NCCL process group raises `exception_dump` at the root of the store when a collective fails
    (kStoreDumpKey, torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp) and every process group polls it there,
    past any PrefixStore. Left from the failed attempt, it sent each rank of the next into its flight-recorder
    dump on an H200: destroy_process_group then hung at the end of a completed run, and the monitor aborts a
    long one after TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC."""
    client(server).set("exception_dump", b"\x00\x00\x00\x00")  # rank 0's NCCL watchdog, attempt 1

    def one(rank: int) -> bool:
        store = client(server)
        if rank == 0:
            time.sleep(0.3)  # followers wait for the new rank 0 before they may build a process group
        agree_on_attempt(store, rank, 3, timeout_s=20)
        return store.check(["exception_dump"])

    with ThreadPoolExecutor(3) as pool:
        assert list(pool.map(one, range(3))) == [False, False, False]


@pytest.mark.parametrize("current", ["not a number", "-3", "1e9", b"\xff", "99999999999999999999999"])
def test_a_damaged_or_forged_attempt_number_is_read_as_absent_until_rank_0_publishes(server, current):
    """`int(store.get(...))` of a value that is not a number ended the rank with a traceback; a number rank 0 never
    gave is no attempt either."""
    client(server).set("app/attempts/current", current)
    assert attempt_of_each_rank(server, 3, leader_late=True) == [1, 1, 1]
