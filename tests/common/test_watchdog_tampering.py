"""Another client of the job's store deletes a rank's heartbeat or writes back an older sealed one (it cannot forge
one): the hang watch ends for the tampering (exit code STORE) and names no rank (app/common/watchdog.py). In-process,
on a real TCPStore (its compare_set is the server's), sealed as the job seals it; the raw client plays the other
user. tests/security/test_beat_tampering.py does it to a real training run."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
import torch.distributed as dist

from app.common.signed_store import TAMPERED_MARK, SignedStore, marked_tampered, tampering_seen
from app.common.watchdog import TAMPERED_BEAT, Beat, Verdict, Watchdog, beat_key
from app.host.common import exitcodes

SECRET = "0123456789abcdef0123456789abcdef"
INTERVAL_S = 0.1
#: Rank 1's beat as the other user lists it (PrefixStore puts a "/" after its prefix)
RAW_KEY = "app//" + beat_key(1)


@pytest.fixture
def server() -> dist.TCPStore:
    return dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))


def connect(server: dist.TCPStore) -> dist.TCPStore:
    return dist.TCPStore("127.0.0.1", server.port, is_master=False, timeout=timedelta(seconds=60))


def job_store(server: dist.TCPStore) -> dist.Store:
    return dist.PrefixStore("app/", SignedStore(connect(server), SECRET))


def until(condition, within_s: float = 10.0) -> bool:
    end = time.monotonic() + within_s
    while not condition() and time.monotonic() < end:
        time.sleep(0.01)
    return condition()


def watched(server: dist.TCPStore, rank: int, world_size: int = 2, deadline_s: float = 30.0,
            named: list[Verdict] | None = None) -> tuple[Watchdog, list[int]]:
    ended: list[int] = []
    hung = named if named is not None else []
    dog = Watchdog(job_store(server), rank, world_size, f"node{rank}", deadline_s,
                   lambda verdict, reporter: hung.append(verdict), end_process=ended.append, interval_s=INTERVAL_S)
    dog.mark(3, "step 3, phase forward/backward")
    return dog, ended


@pytest.mark.parametrize("tamper", ["delete", "replay"])
def test_a_rank_whose_heartbeat_is_deleted_or_written_back_ends_for_tampering_at_its_next_beat(
        server: dist.TCPStore, tamper: str) -> None:
    dog, ended = watched(server, 1)
    raw = connect(server)  # the other user: it reads and writes the sealed bytes as they are
    key = RAW_KEY
    dog.start()
    try:
        assert until(lambda: raw.check([key]))
        older = raw.get(key)
        assert until(lambda: raw.get(key) != older)  # rank 1 beat again: `older` is an older beat now
        if tamper == "delete":
            raw.delete_key(key)
        else:
            raw.set(key, older)
        assert until(lambda: bool(ended), within_s=5 * INTERVAL_S), "rank 1 went on beating"
    finally:
        dog.stop()
    assert ended[0] == exitcodes.STORE
    said = "deleted" if tamper == "delete" else "replaced by an older one"
    assert f"heartbeat 'watchdog/beat/1' was {said} by another client" in tampering_seen()
    last = Beat.from_json(1, SignedStore(connect(server), SECRET).open(key, raw.get(key)))
    assert last is not None and last.where == TAMPERED_BEAT  # what a judge reading now finds
    assert marked_tampered(job_store(server)) and raw.check([TAMPERED_MARK])


def test_a_healthy_rank_beats_on_through_the_judges_never_and_its_own_late_first_beat(server: dist.TCPStore) -> None:
    """No false alarm: a judge wrote "never" before the rank's first beat, and a beat whose write raised may have
    reached the store."""
    store = job_store(server)
    store.compare_set(beat_key(1), "", "never")  # a judge read every beat before rank 1's first
    dog, ended = watched(server, 1)
    dog.start()
    try:
        time.sleep(8 * INTERVAL_S)
    finally:
        dog.stop()
    assert not ended and not tampering_seen()
    assert Beat.from_json(1, store.get(beat_key(1))).count >= 5


def test_a_beat_that_vanishes_while_the_judge_watches_is_tampering_and_nobody_is_named(server: dist.TCPStore) -> None:
    """Rank 1 is frozen (its last beat a deadline old, as a frozen rank's is): the judge watches a beat and a half
    before naming it, and meanwhile the other user deletes the beat: a frozen rank cannot, so it is tampering."""
    store = job_store(server)
    store.set(beat_key(1), Beat(1, 7, 3, "step 3, phase data", "node1", at=time.time() - 60).to_json())
    named: list[Verdict] = []
    judge, ended = watched(server, 0, deadline_s=1.0, named=named)
    raw = connect(server)
    threading.Timer(0.5 * INTERVAL_S, lambda: raw.delete_key(RAW_KEY)).start()
    verdict = judge._judge()
    assert ended and ended[0] == exitcodes.STORE, verdict
    assert verdict.culprits == [] and not named
    assert "vanished after the hang watch had read it" in tampering_seen()


def test_a_beat_whose_counter_goes_back_while_the_judge_watches_is_tampering(server: dist.TCPStore) -> None:
    store = job_store(server)
    older = SignedStore(connect(server), SECRET).seal(RAW_KEY,
                                                      Beat(1, 5, 3, "step 3", "node1", at=time.time() - 70).to_json())
    store.set(beat_key(1), Beat(1, 7, 3, "step 3, phase data", "node1", at=time.time() - 60).to_json())
    judge, ended = watched(server, 0, deadline_s=1.0)
    raw = connect(server)
    threading.Timer(0.5 * INTERVAL_S, lambda: raw.set(RAW_KEY, older)).start()
    verdict = judge._judge()
    assert ended and ended[0] == exitcodes.STORE and verdict.culprits == [], verdict
    assert "went back from beat 7 to beat 5" in tampering_seen()


def tamper_with_rank_1s_beat(server: dist.TCPStore, raw: dist.TCPStore, tamper: str) -> None:
    """The other user, through `raw`, deletes rank 1's beat (`delete`) or writes back its first, a minute old
    (`replay`: sealed as the job sealed it; the seal is the job's, made here)."""
    if tamper == "delete":
        raw.delete_key(RAW_KEY)
    else:
        raw.set(RAW_KEY, SignedStore(connect(server), SECRET).seal(
            RAW_KEY, Beat(1, 1, 0, "start", "node1", at=time.time() - 60).to_json()))


@pytest.mark.parametrize("tamper", ["delete", "replay"])
def test_a_judge_that_reads_just_after_the_tampering_names_nobody(server: dist.TCPStore, tamper: str) -> None:
    """The race: the other user deletes rank 1's beat, or writes back one a minute old, just before the judge
    reads (it can see the round's claim key appear). Rank 1 is healthy: it finds out at its next beat and says
    so, within the beat and a half the judge watches before naming anyone."""
    store = job_store(server)
    rank1, ended1 = watched(server, 1)
    rank1.start()
    raw = connect(server)
    key = RAW_KEY
    try:
        assert until(lambda: raw.check([key]))
        tamper_with_rank_1s_beat(server, raw, tamper)
        named: list[Verdict] = []
        judge, ended0 = watched(server, 0, deadline_s=1.0, named=named)
        store.set(beat_key(0), Beat(0, 1, 3, "step 3", "node0", at=time.time()).to_json())
        verdict = judge._judge()
    finally:
        rank1.stop()
    assert ended1 and ended1[0] == exitcodes.STORE  # rank 1 found it itself
    assert ended0 and ended0[0] == exitcodes.STORE and verdict.culprits == [] and not named, verdict


class TamperBeforeTheEarlyRead:
    """Rank 0's store, on which the other user's `tamper` lands just after rank 0 asks for the round's early read,
    before it reads (the other user can see that counter appear, and so time its tampering)."""

    def __init__(self, store: dist.Store, tamper) -> None:  # type: ignore[no-untyped-def]
        self.store, self.tamper, self.tampered = store, tamper, False

    def add(self, key: str, amount: int) -> int:
        count = self.store.add(key, amount)
        if key.endswith("/watch") and not self.tampered:
            self.tampered = True
            self.tamper()
        return count

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.store, name)


@pytest.mark.parametrize("tamper", ["delete", "replay"])
def test_tampering_just_before_the_early_read_names_nobody(server: dist.TCPStore, tamper: str) -> None:
    """The race a beat or two earlier: rank 1's beat is deleted or written back (a minute old) just before rank 0
    reads every beat ahead of its deadline. Rank 1 is healthy and finds out at its next beat; rank 0, whose watch
    passed before its deadline did, reads rank 1 again after its claim and sees it: no verdict is posted."""
    rank1, ended1 = watched(server, 1)
    raw = connect(server)

    named: list[Verdict] = []
    judge, ended0 = watched(server, 0, deadline_s=1.0, named=named)
    judge.store = store = TamperBeforeTheEarlyRead(judge.store, lambda: tamper_with_rank_1s_beat(server, raw, tamper))
    rank1.start()
    try:
        assert until(lambda: raw.check([RAW_KEY]))
        judge.start()
        assert until(lambda: bool(ended0)), "rank 0 never ended"
    finally:
        rank1.stop()
        judge.stop()
    assert store.tampered
    assert ended1 and ended1[0] == exitcodes.STORE  # rank 1 found it itself
    assert ended0[0] == exitcodes.STORE and not named
    assert not store.check(["watchdog/round/1/verdict"])  # rank 0 judged nobody: it stopped for the tampering


def test_a_rank_that_never_beat_is_still_named(server: dist.TCPStore) -> None:
    store = job_store(server)
    store.set(beat_key(0), Beat(0, 1, 3, "step 3", "node0", at=time.time()).to_json())
    judge, ended = watched(server, 0, deadline_s=1.0)
    started = time.monotonic()
    verdict = judge._judge()
    assert verdict.culprits == [1] and "rank 1 sent no heartbeat" in verdict.sentence and not ended
    assert time.monotonic() - started < 1.5 * INTERVAL_S + 1.0  # a beat and a half watched, not a deadline
