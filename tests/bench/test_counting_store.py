"""bench.counting_store, the store client wrapper both simulated worlds count with (bench.control_plane,
bench.watchdog_scale): each rank's requests by method, its heartbeats apart, and the bytes of keys and values."""

from __future__ import annotations

import torch.distributed as dist

from app.common.watchdog import beat_key
from bench.counting_store import CountingStore, Tally


def test_a_ranks_requests_are_counted_by_method_with_its_beats_apart_and_their_bytes():
    tally = Tally()
    client = CountingStore(dist.HashStore(), 3, tally)
    client.set(beat_key(3), "b" * 10)
    client.set("k", "abc")
    assert client.get("k") == b"abc"
    client.add("n", 1)
    assert client.multi_get(["k", "k"]) == [b"abc", b"abc"]
    CountingStore(client.store, 4, tally).check(["k"])
    counts = tally.snapshot()
    assert counts["requests"] == {"beat": 1, "set": 1, "get": 1, "add": 1, "multi_get": 1, "check": 1}
    assert counts["by_rank"] == {3: 5, 4: 1}
    assert tally.busiest(beats=False) == 4  # rank 3's requests but its beat
    assert counts["bytes"] == (len(beat_key(3)) + 10) + (1 + 3) + (1 + 3) + (1 + 8) + (2 + 6) + 1


def test_a_prefix_counts_once_a_key():
    tally = Tally()
    client = CountingStore(dist.PrefixStore("sim/", dist.HashStore()), 0, tally, prefix="sim/")
    client.set("k", "v")
    client.multi_get(["k", "k"])
    assert tally.snapshot()["bytes"] == (1 + 4 + 1) + (2 + 2 * 4 + 2)  # key, prefix, value


def test_a_heartbeat_written_with_compare_set_is_a_beat_and_other_compare_sets_are_not():
    """The hang watch writes every beat after its first with compare_set over the last (app.common.watchdog)."""
    tally = Tally()
    client = CountingStore(dist.HashStore(), 3, tally)
    client.set(beat_key(3), "b1")
    assert client.compare_set(beat_key(3), "b1", "b2") == b"b2"
    assert client.compare_set("verdict", "", "v") == b"v"
    counts = tally.snapshot()
    assert counts["requests"] == {"beat": 2, "compare_set": 1}
    assert counts["bytes"] == (len(beat_key(3)) + 2) + (len(beat_key(3)) + 2 + 2) + (7 + 0 + 1)
