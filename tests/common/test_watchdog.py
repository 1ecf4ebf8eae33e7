"""The common watchdog (app.common.watchdog): naming the rank that holds a run up from two reads of every
heartbeat, on an in-memory store (tests/bench/test_watchdog_scale.py: a simulated world on a real TCPStore)."""

from __future__ import annotations

import threading
import time

import pytest
import torch.distributed as dist

from app.common.watchdog import FINISHED, Beat, BoundedCalls, Verdict, Watchdog, beat_key, judge, name_the_hang
from app.host.common import exitcodes


def beat(rank: int, count: int, position: int, where: str, reason: str = "") -> Beat:
    return Beat(rank, count, position, where, f"node{rank}", reason)


def test_a_rank_whose_heartbeat_stopped_is_named_with_where_the_others_wait():
    first = [beat(0, 5, 9, "step 9, phase f"), beat(1, 3, 4, "step 4, phase data"), beat(2, 5, 9, "step 9, phase f")]
    second = [beat(0, 7, 9, "step 9, phase f"), beat(1, 3, 4, "step 4, phase data"), beat(2, 7, 9, "step 9, phase f")]
    ranks, sentence = name_the_hang(first, second)
    assert ranks == [1]
    assert sentence == ("rank 1 (node1) stopped answering (no heartbeat; last heard at step 4, phase data) "
                        "while rank 0 waits at step 9, phase f")


def test_a_live_rank_behind_the_others_is_named():
    first = [beat(0, 5, 9, "step 9, phase f"), beat(1, 5, 8, "step 9, phase data")]
    second = [beat(0, 6, 9, "step 9, phase f"), beat(1, 6, 8, "step 9, phase data")]
    ranks, sentence = name_the_hang(first, second)
    assert ranks == [1] and sentence.startswith("rank 1 (node1) at step 9, phase data stopped making progress")


def test_waiting_peers_one_step_ahead_are_not_blamed():
    # Rank 2 hangs before step 5; ranks 0, 1 wait inside step 5; rank 3 (outside the subgroup) ran ahead.
    first = [beat(0, 1, 5, "a"), beat(1, 1, 5, "a"), beat(2, 1, 4, "b"), beat(3, 1, 9, "c")]
    second = [beat(0, 2, 5, "a"), beat(1, 2, 5, "a"), beat(2, 2, 4, "b"), beat(3, 2, 9, "c")]
    assert name_the_hang(first, second)[0] == [2]


def test_a_rank_never_heard_from_is_named():
    ranks, sentence = name_the_hang([beat(0, 1, 1, "x"), None], [beat(0, 2, 1, "x"), None])
    assert ranks == [1] and "rank 1 sent no heartbeat" in sentence


def test_every_rank_in_the_same_collective_names_nobody():
    first = [beat(0, 5, 9, "step 9"), beat(1, 5, 9, "step 9")]
    second = [beat(0, 6, 9, "step 9"), beat(1, 6, 9, "step 9")]
    ranks, sentence = name_the_hang(first, second)
    assert ranks == [] and "the collective itself does not complete" in sentence


def test_the_verdict_keeps_a_collective_error_and_picks_the_lowest_live_rank_to_report():
    first = [beat(0, 5, 9, "s"), beat(1, 5, 9, "s"), beat(2, 5, 8, "t")]
    second = [beat(0, 5, 9, "s"), beat(1, 6, 9, "s", "Connection closed by peer"), beat(2, 6, 8, "t")]
    verdict = judge(first, second)
    assert verdict.culprits == [0] and verdict.reporter == 1
    assert verdict.sentence.endswith("(Connection closed by peer)")


def stalled(stalls: list[Verdict], times: int, within_s: float = 20.0) -> bool:
    """Whether `times` stalls were reported within `within_s` (each a deadline that passed with nobody named)."""
    end = time.monotonic() + within_s
    while len(stalls) < times and time.monotonic() < end:
        time.sleep(0.02)
    return len(stalls) >= times


def test_when_every_rank_waits_in_one_collective_the_trainer_waits_on():
    store = dist.HashStore()
    stalls: list[Verdict] = []
    ended: list[int] = []
    dogs = [Watchdog(store, rank, 2, "node", 0.6, lambda verdict, reporter: None, on_stall=stalls.append,
                     end_process=ended.append, interval_s=0.1) for rank in range(2)]
    for dog in dogs:
        dog.mark(7, "step 1, phase forward/backward")
        dog.start()
    try:
        assert stalled(stalls, times=4), stalls  # each rank's 0.6 s deadline passes twice: the wait goes on
    finally:
        for dog in dogs:
            dog.stop()
    assert not ended and all(not v.culprits for v in stalls)


def test_a_store_call_answered_late_once_is_asked_again_and_a_gone_store_fails_both():
    calls = BoundedCalls(within_s=0.3)
    assert calls(lambda: time.sleep(0.45)) is None  # a moment's slowness: no answer within 0.3 s
    assert calls(lambda: 1) is None  # while that call is pending, others give up at once
    assert calls.again(lambda: 1) == 1  # waits for it to answer, then asks again
    gone = BoundedCalls(within_s=0.2)
    assert gone(lambda: time.sleep(5)) is None and gone.again(lambda: 1) is None


def test_a_rank_that_judges_late_takes_the_verdict_already_posted():
    """A rank that heard the verdict late judges for itself, when the others have heard it and stopped beating,
    and names them all; it must take the posted verdict instead."""
    store = dist.HashStore()
    posted = Verdict([37], "rank 37 (node37) stopped answering at 'step 4'", 0)
    store.set("watchdog/round/1/verdict", posted.to_json())
    dog = Watchdog(store, 5, 64, "node5", 1.0, lambda verdict, reporter: None, end_process=lambda code: None,
                   interval_s=0.1)
    assert dog._verdict().to_json() == posted.to_json()


@pytest.mark.parametrize("claimed_first", [True, False])
@pytest.mark.parametrize("raw", [
    '{"culprits": [-1], "sentence": "rank -1 stopped answering", "reporter": 0}',
    '{"culprits": [2], "sentence": "rank 2 stopped answering", "reporter": 0}',  # no rank 2 in a world of 2
    '{"culprits": [0], "sentence": "s", "reporter": 5}', '{"culprits": "0", "sentence": "s", "reporter": 0}',
    '{"culprits": [true], "sentence": "s", "reporter": 0}', '{"culprits": [0, 0], "sentence": "s", "reporter": 0}',
    '{"culprits": [0], "sentence": "s"}', "[]", "not json", b"\xff", '{"culprits": [0], "sentence": "' + "s" * 100_000
    + '", "reporter": 0}',
])
def test_a_damaged_or_forged_verdict_is_not_taken_and_the_rank_judges_for_itself(raw: str | bytes, claimed_first: bool):
    """A verdict naming rank -1 made the trainer write rank_hosts[-1], a healthy host, into nodes-to-exclude.txt;
    one that is not JSON killed the watchdog's thread silently (no hang ever reported)."""
    store = dist.HashStore()
    if not claimed_first:
        store.add("watchdog/round/1/claim", 1)  # another rank claimed the round: this one reads the verdict
    store.set("watchdog/round/1/verdict", raw)
    for rank in range(2):
        beat_now = Beat(rank, 3, 7, "step 1, phase data", f"node{rank}", at=time.time() - 0.1)
        store.set(beat_key(rank), beat_now.to_json())
    # Both ranks beat just now (a beat is 1 s): judged for itself, the verdict names nobody
    dog = Watchdog(store, 1, 2, "node1", 3.0, lambda verdict, reporter: None, end_process=lambda code: None,
                   interval_s=1.0)
    dog.mark(7, "step 1, phase data")
    verdict = dog._verdict()
    assert verdict.culprits == [] and verdict.reporter in (-1, 0, 1), verdict


def test_a_rank_that_finished_is_not_named_while_rank_0_still_writes_the_last_snapshot():
    """When train() returns, the other ranks stop beating while rank 0 may still write the run's last snapshot:
    their last beat says they finished, and a verdict names no finished rank."""
    finished = [beat(0, 5, 640, "step 640, phase snapshot"), beat(1, 7, 640, FINISHED)]
    later = [beat(0, 9, 640, "step 640, phase snapshot"), beat(1, 7, 640, FINISHED)]
    assert name_the_hang(finished, later)[0] == []

    store = dist.HashStore()
    stalls: list[Verdict] = []
    ended: list[int] = []
    dogs = [Watchdog(store, rank, 2, f"node{rank}", 0.6, lambda verdict, reporter: None, on_stall=stalls.append,
                     end_process=ended.append, interval_s=0.1) for rank in range(2)]
    for dog in dogs:
        dog.mark(640, "step 640, phase snapshot")
        dog.start()
    dogs[1].finish()  # rank 1's train() returned; rank 0 writes for two deadlines more
    try:
        assert stalled(stalls, times=2), stalls
    finally:
        dogs[0].stop()
    assert not ended and all(not verdict.culprits for verdict in stalls), stalls


class CountingReads:
    """A store that counts the reads of every rank's heartbeat (one `multi_get` of them all)."""

    def __init__(self, store: dist.Store, world_size: int) -> None:
        self.store, self.world_size, self.full_reads = store, world_size, 0

    def multi_get(self, keys: list[str]) -> list[bytes]:
        self.full_reads += len(keys) == self.world_size
        return self.store.multi_get(keys)

    def __getattr__(self, name: str):
        return getattr(self.store, name)


def _judged(ages: dict[int, float], deadline_s: float, interval_s: float,
            store: dist.Store | CountingReads | None = None) -> tuple[Verdict, float]:
    """Rank 0 judges a world of 5 where rank r in `ages` beat last `ages[r]` seconds ago and never again, and
    the other ranks wait in step 5's all-reduce, beating every tenth of a beat; the verdict and how long
    judging took."""
    store = dist.HashStore() if store is None else store
    for rank, age in ages.items():
        store.set(beat_key(rank), Beat(rank, 5, 40, "step 4, phase forward/backward", f"node{rank}",
                                       at=time.time() - age).to_json())
    beating = threading.Event()
    live = [rank for rank in range(1, 5) if rank not in ages]

    def live_ranks() -> None:
        count = 0
        while not beating.wait(interval_s / 10):
            count += 1
            for rank in live:
                store.set(beat_key(rank), Beat(rank, count, 50, "step 5, phase forward/backward", f"node{rank}",
                                               at=time.time()).to_json())

    threading.Thread(target=live_ranks, daemon=True).start()
    time.sleep(interval_s / 2)
    dog = Watchdog(store, 0, 5, "node0", deadline_s, lambda verdict, reporter: None, end_process=lambda code: None,
                   interval_s=interval_s)
    dog.mark(50, "step 5, phase forward/backward")
    dog.start()
    try:
        started = time.monotonic()
        verdict = dog._judge()
        return verdict, time.monotonic() - started
    finally:
        beating.set()
        dog.stop()



def test_a_rank_silent_for_a_deadline_is_named_from_one_read_of_every_heartbeat():
    """When the others' deadline passes, a frozen rank's last beat is already that old: the judge names it from
    its first read, without a second read of every beat 1.5 beats later."""
    store = CountingReads(dist.HashStore(), 5)
    verdict, _ = _judged({2: 10.0}, deadline_s=2.0, interval_s=0.5, store=store)
    assert verdict.culprits == [2] and verdict.reporter == 0, verdict
    assert "rank 2 (node2) stopped answering" in verdict.sentence
    assert store.full_reads == 1

def test_a_rank_whose_read_of_the_posted_verdict_goes_unanswered_once_asks_again_and_does_not_judge():
    """A starved process's `get` of the posted verdict can go unanswered; a rank that then judged alone would read
    every beat and starve the other ranks of its process in turn, so that they judge alone too."""

    class FirstGetTimesOut(CountingReads):
        def get(self, key: str) -> bytes:
            if key.endswith("/verdict") and not getattr(self, "timed_out", False):
                self.timed_out = True
                raise RuntimeError("Socket Timeout")  # as TCPStore's get does when its answer comes too late
            return self.store.get(key)

    store = FirstGetTimesOut(dist.HashStore(), 4)
    posted = Verdict([2], "rank 2 (node2) stopped answering", 0)
    store.add("watchdog/round/1/claim", 1)  # rank 0 claimed the round and posted
    store.set("watchdog/round/1/verdict", posted.to_json())
    dog = Watchdog(store, 3, 4, "node3", 3.0, lambda verdict, reporter: None, end_process=lambda code: None,
                   interval_s=0.1)
    assert dog._verdict().to_json() == posted.to_json()
    assert store.full_reads == 0


def test_a_rank_that_beat_long_after_the_silent_one_is_not_named_and_not_waited_for():
    """Rank 2 has been silent for the deadline; rank 3 beat late (a slow node: its last beat three beats old)
    and was alive long after the job stopped. The verdict names rank 2 at once, without waiting for
    the slow node's next beat."""
    verdict, took_s = _judged({2: 10.0, 3: 1.5}, deadline_s=2.0, interval_s=0.5)
    assert verdict.culprits == [2], verdict
    # The beat and a half every verdict watches before naming a rank (one read of the suspects: a healthy rank
    # whose beat another client deleted or wrote back finds out meanwhile), and no more
    assert took_s < 1.5 * 0.5 + 0.4, took_s


def test_ranks_that_stopped_within_a_beat_and_a_half_of_the_silent_one_are_named_with_it():
    """A node gone: its ranks' last beats lie up to a beat apart, so when the oldest has been silent for the
    deadline the others are a little short of it. They stopped together and are named together."""
    verdict, _ = _judged({2: 2.2, 3: 1.7}, deadline_s=2.0, interval_s=0.5)
    assert verdict.culprits == [2, 3], verdict


def wait_for_the_end(ended: list[int], within_s: float = 20.0) -> None:
    """Until the watchdog has ended its process (`end_process` appends the exit code), for up to `within_s`."""
    end = time.monotonic() + within_s
    while not ended and time.monotonic() < end:
        time.sleep(0.02)


def test_a_hang_report_that_fails_is_logged_and_the_process_still_ends_with_the_timeout_code(caplog):
    """on_hang runs just before the process ends (os._exit): an error in it would vanish with the process."""
    def report(verdict: Verdict, reporter: bool) -> None:
        raise OSError(28, "No space left on device")

    ended: list[int] = []
    # rank 1 never beats: rank 0 names it and reports
    dog = Watchdog(dist.HashStore(), 0, 2, "node0", 1.0, report, end_process=ended.append, interval_s=0.05)
    dog.mark(3, "step 3, phase forward/backward")
    dog.start()
    try:
        dog.fire("a peer vanished")
        wait_for_the_end(ended)
    finally:
        dog.stop()
    assert ended == [exitcodes.TIMEOUT]
    assert any("No space left on device" in record.getMessage() + str(record.exc_info) for record in caplog.records)


def test_a_fire_just_after_progress_is_not_undone_by_that_progress():
    """`mark` then `fire` at once (a collective raised as its step began): the watchdog's thread, woken by the fire,
    saw the new position, restarted the deadline and so dropped the fire; the rank gave up a whole deadline late."""
    ended: list[int] = []
    # rank 1 never beats: once rank 0 gives up it names rank 1 and ends
    dog = Watchdog(dist.HashStore(), 0, 2, "node0", 60.0, lambda verdict, reporter: None, end_process=ended.append,
                   interval_s=1.0)
    dog.start()
    try:
        dog.mark(4, "step 4, phase forward/backward")
        dog.fire("a peer vanished")
        wait_for_the_end(ended)
    finally:
        dog.stop()
    assert ended == [exitcodes.TIMEOUT]


class Recording(CountingReads):
    """A store that records, in order, each `add` (the claim, the early read's counter), each read of heartbeats
    (how many) and each verdict posted."""

    def __init__(self, store: dist.Store, world_size: int) -> None:
        super().__init__(store, world_size)
        self.calls: list[tuple[str, str | int]] = []

    def add(self, key: str, amount: int) -> int:
        self.calls.append(("add", key))
        return self.store.add(key, amount)

    def multi_get(self, keys: list[str]) -> list[bytes]:
        self.calls.append(("read", len(keys)))
        return super().multi_get(keys)

    def compare_set(self, key: str, expected: str, desired: str) -> bytes:
        if key.endswith("/verdict"):
            self.calls.append(("post", key))
        return self.store.compare_set(key, expected, desired)


class Beating:
    """Simulated ranks beating every tenth of a beat at `position` (in step `position`) until `freeze`d or `stop`ped."""

    def __init__(self, store: dist.Store | Recording, ranks: list[int], interval_s: float, position: int) -> None:
        self.store, self.ranks, self.interval_s, self.position = store, ranks, interval_s, position
        self.frozen: set[int] = set()
        self._stopped = threading.Event()
        self._beat_once(1)
        threading.Thread(target=self._beat, daemon=True).start()

    def _beat_once(self, count: int) -> None:
        for rank in self.ranks:
            if rank not in self.frozen:
                self.store.set(beat_key(rank), Beat(rank, count, self.position, f"step {self.position}", f"node{rank}",
                                                    at=time.time()).to_json())

    def _beat(self) -> None:
        count = 1
        while not self._stopped.wait(self.interval_s / 10):
            count += 1
            self._beat_once(count)

    def freeze(self, rank: int) -> None:
        self.frozen.add(rank)

    def stop(self) -> None:
        self._stopped.set()


def rank_2_frozen_among_4() -> tuple[Recording, Beating, Watchdog, list[Verdict], list[int]]:
    """Rank 0's started watch (2 s deadline, 0.2 s beats) among ranks 1 and 3 beating at step 5 and rank 2, whose
    last beat, at step 4, is 10 s old: the store, the beating ranks, the watch, its verdicts and exit codes."""
    store = Recording(dist.HashStore(), 4)
    store.set(beat_key(2), Beat(2, 5, 4, "step 4", "node2", at=time.time() - 10).to_json())  # frozen 10 s ago
    world = Beating(store, [1, 3], interval_s=0.2, position=5)
    named: list[Verdict] = []
    ended: list[int] = []
    dog = Watchdog(store, 0, 4, "node0", 2.0, lambda verdict, reporter: named.append(verdict),
                   end_process=ended.append, interval_s=0.2)
    dog.mark(5, "step 5")
    dog.start()
    return store, world, dog, named, ended


def assert_one_read_of_the_suspects_between_claim_and_post(store: Recording) -> None:
    """After its claim, before it posted, the judge read once, not every beat: the suspects (rank 2, and any rank
    whose beat was late at the early read: this machine is shared)."""
    claim = store.calls.index(("add", "watchdog/round/1/claim"))
    posted = store.calls.index(("post", "watchdog/round/1/verdict"))
    reads = [size for call, size in store.calls[claim:posted] if call == "read"]
    assert len(reads) == 1 and reads[0] < 4, store.calls


def test_a_judge_that_read_every_beat_before_its_deadline_names_the_frozen_rank_after_one_read_of_the_suspects():
    """Rank 0 reads every beat 1.5 to 2.5 beats before its deadline, so the beat and a half it watches before naming
    anyone has passed when the deadline does: after its claim it reads the suspects once and names rank 2; it
    neither reads every beat again nor watches longer (before, it read every beat at its claim, then watched)."""
    store, world, dog, named, ended = rank_2_frozen_among_4()
    try:
        wait_for_the_end(ended)
    finally:
        world.stop()
        dog.stop()
    assert ended == [exitcodes.TIMEOUT] and [verdict.culprits for verdict in named] == [[2]], (ended, named)
    assert ("read", 4) in store.calls[:store.calls.index(("add", "watchdog/round/1/claim"))], store.calls  # early
    assert_one_read_of_the_suspects_between_claim_and_post(store)


def test_a_stall_that_ends_after_the_early_read_names_nobody_and_a_later_hang_is_judged_from_a_read_of_its_own():
    """Rank 0 reads every beat as its deadline nears, then the step completes: no verdict, the run goes on. When
    rank 2 freezes later in the same round, that early read, from before the freeze, is not what rank 2 is judged
    by (in it rank 2 beat a moment before, and counted as alive, nobody would be named)."""
    store = Recording(dist.HashStore(), 3)
    world = Beating(store, [1, 2], interval_s=0.2, position=1)
    stalls: list[Verdict] = []
    named: list[Verdict] = []
    ended: list[int] = []
    dog = Watchdog(store, 0, 3, "node0", 2.0, lambda verdict, reporter: named.append(verdict), on_stall=stalls.append,
                   end_process=ended.append, interval_s=0.2)
    dog.mark(1, "step 1")
    dog.start()
    try:
        end = time.monotonic() + 5.0
        while ("read", 3) not in store.calls and time.monotonic() < end:
            time.sleep(0.005)
        claimed = [call for call in store.calls if str(call[1]).endswith("/claim")]
        assert ("read", 3) in store.calls and not claimed, store.calls  # read before any deadline passed
        for step in range(2, 10):  # the step completes before the deadline, and the run goes on
            world.position = step
            dog.mark(step, f"step {step}")
            time.sleep(0.1)
        assert not stalls and not named and not ended, (stalls, named)
        world.freeze(2)  # rank 2 stops answering; the others wait in step 9
        wait_for_the_end(ended)
    finally:
        world.stop()
        dog.stop()
    assert not stalls and [verdict.culprits for verdict in named] == [[2]], (stalls, named)


def test_the_rank_that_read_early_judges_from_that_read_though_another_rank_claimed_the_round_first():
    """Ranks stalled together claim in an order other than the one in which they asked for the early read (their
    waits for their process's turn differ): the rank that read early judges from its read all the same, after one
    read of the suspects, instead of waiting for the first to claim to watch a beat and a half more."""
    store, world, dog, named, ended = rank_2_frozen_among_4()
    try:
        end = time.monotonic() + 5.0
        while ("read", 4) not in store.calls and time.monotonic() < end:
            time.sleep(0.005)
        store.store.add("watchdog/round/1/claim", 1)  # rank 3, say, claims first (and judges from a read of its own)
        wait_for_the_end(ended)
    finally:
        world.stop()
        dog.stop()
    assert [verdict.culprits for verdict in named] == [[2]], named
    assert_one_read_of_the_suspects_between_claim_and_post(store)


def test_the_first_to_claim_takes_the_verdict_the_early_reader_posted_while_it_watched():
    """The first to claim had not read early: it reads every beat and watches a beat and a half, looking for the
    verdict meanwhile. The rank that read early posts one first: the first to claim takes it and posts none."""
    store = Recording(dist.HashStore(), 3)
    store.set(beat_key(2), Beat(2, 5, 4, "step 4", "node2", at=time.time() - 10).to_json())  # frozen 10 s ago
    world = Beating(store, [1], interval_s=0.2, position=5)
    early = Verdict([2], "rank 2 (node2) stopped answering (no heartbeat; last heard at step 4)", 1)
    threading.Timer(0.1, lambda: store.store.set("watchdog/round/1/verdict", early.to_json())).start()
    dog = Watchdog(store, 0, 3, "node0", 2.0, lambda verdict, reporter: None, end_process=lambda code: None,
                   interval_s=0.2)
    dog.mark(5, "step 5")
    try:
        verdict = dog._verdict()
    finally:
        world.stop()
        dog.stop()
    assert verdict.to_json() == early.to_json()
    assert ("read", 3) in store.calls and not [call for call in store.calls if call[0] == "post"], store.calls
