"""A sealed store's prefixes joined in Python (app.common.signed_store.prefixed): the same keys and seals as torch's
PrefixStore gives, the tampering mark and the flight-recorder flag still at the root, and no call of the project's
own into the store that makes C++ call back into Python (each such call waits for the interpreter lock again)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import torch.distributed as dist

from app.common import attempts
from app.common.cluster import detect_environment
from app.common.distributed import open_store
from app.common.signed_store import (
    SignedStore,
    StoreTampered,
    for_process_groups,
    forget_tampering,
    mark_tampered,
    marked_tampered,
    prefixed,
)
from app.host.common import exitcodes
from tests.trainer_runs import free_port

SECRET = "0123456789abcdef0123456789abcdef"
PREFIXES = ("app/", "attempt-3/", "app.check/")  # the check's, under torchrun's agent store


def serve() -> dist.TCPStore:
    """A TCPStore server on a free port. It is a client of its own port too: the tests' other user, who can do
    whatever any client does, reads and writes through it. A test opens as few connections as it can: torch looks
    up the name of both ends of each (getnameinfo, client and server side), and for the IPv6-mapped
    ::ffff:127.0.0.1 it connects to, /etc/hosts' 127.0.0.1 line does not answer, so each lookup goes to the DNS
    server; a resolver that drops queries past a rate (this machine's: about 50 a second) stalls the connect 5 s,
    glibc's wait before it asks again. 60 s: a connect that meets such a stall still succeeds."""
    return dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))


@pytest.fixture
def server() -> dist.TCPStore:
    return serve()


def client(server: dist.TCPStore) -> dist.TCPStore:
    """A connection of the job's own (see `serve` for why a test opens few)."""
    return dist.TCPStore("127.0.0.1", server.port, is_master=False, timeout=timedelta(seconds=60))


def in_python(connection: dist.Store) -> dist.Store:
    store: dist.Store = SignedStore(connection, SECRET)
    for prefix in PREFIXES:
        store = prefixed(store, prefix)
    return store


def in_cxx(connection: dist.Store) -> dist.Store:
    store: dist.Store = SignedStore(connection, SECRET)
    for prefix in PREFIXES:
        store = dist.PrefixStore(prefix, store)
    return store


def everything(raw: dist.TCPStore) -> dict[str, bytes]:
    return {key: raw.get(key) for key in raw.list_keys()}


def write(store: dist.Store) -> None:
    store.set("plan", "p")
    store.multi_set(["result/0", "result/1"], ["r0", b"\xffr1"])
    store.compare_set("beat/0", "", "b1")
    store.compare_set("beat/0", "b1", "b2")
    store.add("claim", 2)


@pytest.mark.parametrize("writer, reader", [(in_python, in_cxx), (in_cxx, in_python)])
def test_a_store_prefixed_in_python_keeps_every_key_name_and_seal_of_torchs_prefix_store(writer, reader):
    """The stored format is unchanged, byte for byte: either way of scoping reads what the other wrote."""
    servers = [serve() for _ in range(2)]
    jobs = [client(server) for server in servers]
    write(writer(jobs[0]))
    write(reader(jobs[1]))
    assert everything(servers[0]) == everything(servers[1])
    assert "app//attempt-3//app.check//plan" in everything(servers[0])
    read = reader(jobs[0])
    read.wait(["plan", "result/1"], timedelta(seconds=5))
    assert read.get("plan") == b"p" and read.multi_get(["result/0", "result/1"]) == [b"r0", b"\xffr1"]
    assert read.compare_set("beat/0", "b2", "b3") == b"b3" and read.add("claim", 1) == 3
    assert read.check(["plan"]) and read.delete_key("plan") and not writer(jobs[0]).check(["plan"])


def test_a_value_moved_to_another_key_of_a_prefixed_store_is_refused(server):
    """The seal covers the full name, prefixes included: a value the job wrote is no good under another key."""
    job = client(server)
    store = in_python(job)
    store.set("verdict", "0")
    server.set("app//attempt-3//app.check//plan", server.get("app//attempt-3//app.check//verdict"))
    with pytest.raises(StoreTampered, match="authentication fails"):
        store.get("plan")
    server.set("app//attempt-4//app.check//verdict", server.get("app//attempt-3//app.check//verdict"))
    with pytest.raises(StoreTampered, match="authentication fails"):
        attempt_4 = SignedStore(job, SECRET).prefixed("app/").prefixed("attempt-4/")
        attempt_4.prefixed("app.check/").get("verdict")


def test_the_tampering_mark_from_a_prefixed_store_lands_at_the_root_where_every_rank_looks(server):
    job = client(server)
    mark_tampered(in_python(job))
    assert marked_tampered(SignedStore(job, SECRET))
    assert marked_tampered(in_python(job)) and marked_tampered(in_cxx(job))


def agent_rank_env(server: dist.TCPStore, rank: int) -> dict[str, str]:
    """A rank of a two-rank job under torchrun's agent store, as torchrun sets its environment."""
    return {"TORCHELASTIC_RUN_ID": "4242", "TORCHELASTIC_USE_AGENT_STORE": "True", "TORCHELASTIC_RESTART_COUNT": "0",
            "RANK": str(rank), "LOCAL_RANK": "0", "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "1", "GROUP_RANK": str(rank),
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(server.port), "DDP_STORE_SECRET": SECRET}


def test_rank_0_whose_follower_stopped_on_a_forged_attempt_number_stops_for_the_tampering_not_the_rendezvous(
        server):
    """Rank 0 publishes the attempt; another user writes a forged number over it; rank 1 reads that, refuses it
    and stops (exit 10). Rank 0, waiting in vain for rank 1's answer, then ends with the tampering's cause and exit
    code, not as a rendezvous that timed out (exit 3). Rank 0 waits its whole timeout, 1 s: rank 1 stops within
    milliseconds of the forged write (3 ms here, 2 cores busy with 3 other processes included)."""
    with ThreadPoolExecutor(1) as pool:
        leader = pool.submit(open_store, detect_environment(agent_rank_env(server, 0)), timeout_s=1)
        deadline = time.monotonic() + 60
        while not any(key.endswith(attempts.CURRENT) for key in server.list_keys()):
            if leader.done():  # ended before it published: its own error, not a wait without end
                raise AssertionError(f"rank 0 ended before it published the attempt: {leader.result()!r}")
            assert time.monotonic() < deadline, "rank 0 did not publish the attempt within 60 s"
            time.sleep(0.01)
        prefixed(SignedStore(server, "another user's secret"), "app/").set(attempts.CURRENT, "7")
        with pytest.raises(StoreTampered, match="authentication fails"):
            open_store(detect_environment(agent_rank_env(server, 1)), timeout_s=5)
        forget_tampering()  # rank 0 is another process: it has seen no tampering itself
        with pytest.raises(StoreTampered, match="another rank stopped on a value the job did not write") as stopped:
            leader.result()
    assert stopped.value.exit_code == exitcodes.STORE


def test_the_flight_recorder_flag_is_deleted_at_the_root_through_a_prefixed_store(server):
    """NCCL raises it past every prefix (app/common/attempts.py); rank 0 of the next attempt deletes it there."""
    server.set(attempts.FLIGHT_RECORDER_FLAG, b"\x00")
    attempts.agree_on_attempt(prefixed(SignedStore(client(server), SECRET), "app/"), 0, 1, timeout_s=5)
    assert not server.check([attempts.FLIGHT_RECORDER_FLAG])


def test_the_process_groups_get_the_prefixes_as_torchs_prefix_stores_over_the_sealed_root(server):
    """torch's C++ finds the store under the prefixes where it looks (NCCL's flag), with the same names and seals."""
    job = client(server)
    store = for_process_groups(in_python(job))
    chain = []
    while isinstance(store, dist.PrefixStore):
        chain.append(store)
        store = store.underlying_store
    assert len(chain) == len(PREFIXES) and isinstance(store, SignedStore) and not store.prefixes
    chain[0].set("plan", "p")
    assert in_python(job).get("plan") == b"p"


def calls_back_into_python(work: Callable[[], object]) -> list[str]:
    """The Python functions that ran inside a call into C++ during `work`: each is a callback from C++, which
    takes the interpreter lock once more (torch's trampoline for a Python store)."""
    inside_c, callbacks = [0], []

    def profile(frame, event, arg):
        if event == "c_call":
            inside_c[0] += 1
        elif event in ("c_return", "c_exception"):
            inside_c[0] -= 1
        elif event == "call" and inside_c[0] > 0 and frame.f_back is not None:
            callbacks.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return callbacks


def test_the_projects_own_store_calls_never_make_torch_call_back_into_python():
    """The check's rendezvous store as `open_store` builds it for a rank under torchrun's agent store: each request
    is one call into C++ (the TCPStore's), not C++ prefixes calling the sealed store back through the trampoline.
    On 512 threads of one process each callback waited for the lock up to the switch interval (bench.store_gil)."""
    port = free_port()
    server = dist.TCPStore("127.0.0.1", port, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))
    env = {"TORCHELASTIC_RUN_ID": "none", "TORCHELASTIC_USE_AGENT_STORE": "True", "TORCHELASTIC_RESTART_COUNT": "0",
           "RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "LOCAL_WORLD_SIZE": "1", "GROUP_RANK": "0",
           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "DDP_STORE_SECRET": SECRET}
    store = prefixed(open_store(detect_environment(env), timeout_s=10), "app.check/")

    def requests() -> None:
        store.set("plan", "p")
        store.get("plan")
        store.multi_get(["plan"])
        store.compare_set("plan", "p", "q")
        store.check(["plan"])
        store.wait(["plan"], timedelta(seconds=1))

    assert calls_back_into_python(requests) == []
    assert any(key.endswith("app.check//plan") for key in server.list_keys())
