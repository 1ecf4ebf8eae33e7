"""A rank that stops answering is named, not waited for: heartbeats in the rendezvous store and a deadline.
The trainer and the check share it.

The caller marks where its rank is (`mark(position, where)`: two attribute writes, nothing on the step
path). A thread per rank publishes that mark with a beat counter to the store (the rendezvous store, so
no collective is involved) and keeps a deadline: restarted by every move of the mark (the trainer:
"no progress for N seconds") or by `arm` (the check: "this stage may take N seconds").

When a rank's deadline passes, the verdict costs O(N) store requests, not O(N^2):
- every such rank claims the round with one atomic `add`; the first to claim judges;
- the judge reads every heartbeat in one batched request (`multi_get`) and posts one verdict; the others
  keep beating and `check` for it once a second, then read it with one `get`;
- a read comes early: a rank whose deadline is 2.5 beats off or less asks for the coming round's early read
  with one `add`, and the first to ask reads every beat then. When its deadline passes, 2 beats or more
  later, it judges from that read, whatever its place in the claim: the watch (below) has passed, one read
  of the suspects after its claim and it posts. The first to claim judges as well, from a read at its claim
  unless it is the one that read early; each looks for the other's verdict while it watches, and the first
  posted stands: two reads of every beat at most;
- a rank whose last beat is younger than a beat and a half is alive (each beat carries its writer's wall
  clock). The others are suspects: the judge reads them alone (one `multi_get`) each beat until their
  counter moves (a slow node: late beats, not a hang) or the longest silent has been silent for a deadline
  (`deadline_s`), by the judge's watch or the age of its last beat, whichever is longer. It stopped
  answering (frozen, killed, node gone) and is named, with the suspects that stopped within 1.5 beats of it
  (a node's ranks); a suspect that beat later than that was alive after the job stopped and is not named.
  A frozen rank's last beat is already a deadline old when the others' deadline passes, so its verdict
  needs no second read of every beat, only one of the suspects a beat and a half after the first (below). A clock
  that runs ahead makes a rank a suspect until it beats again; one that runs behind by more than the
  deadline makes a late rank look silent;
  otherwise the ranks furthest behind hold the others up (a stuck data loader, a slow snapshot, a
  deadlock): they are named; if every rank is at the same place, the collective itself does not complete
  (network, fabric) and nobody is named.
Another client of the store cannot forge a beat (every value is sealed), but it can delete one or write back
an older one. A rank writes its beat with `compare_set` over the one it wrote last, so it finds either at its
next beat and ends for the tampering (exit code STORE), leaving a last beat that says so; the judge watches a
beat and a half from its first read, and reads the suspects again after its claim, before naming anyone (long
enough for that; an early read's watch has passed by the claim, the read after it sees what the rank said), and
takes a beat that vanished after it read it, a counter that went back, or a beat that says so, for tampering:
nobody is named, no node left out.
When the store itself does not answer (it lives in rank 0's process or its node's agent), rank 0's
side is the one that stopped. The lowest rank whose heartbeat still moves reports (`on_hang` with
`reporter=True`: the summary, the check's report); the others give it a grace period, then every rank
exits with `exitcodes.TIMEOUT` from the thread, since the main thread sits in a collective that nothing
interrupts (`sys.exit` would wait for it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import os
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch.distributed as dist

from app.common import exchange
from app.common.exchange import bounded_int, require, text
from app.common.signed_store import (
    StoreTampered,
    end_for_tampering,
    mark_tampered,
    marked_tampered,
    tampered,
    tampering_seen,
)
from app.host.common import exitcodes

log = logging.getLogger(__name__)

#: How long ranks that do not report wait for the one that does before exiting.
GRACE_S = 5.0
#: How often a rank that waits for the judge's verdict asks for it (at most; once a beat if beats are faster).
AWAIT_POLL_S = 1.0
#: A wait for the store that returns this much later than asked was not running: its process was stopped.
OVERSLEPT_S = 1.0
#: The last beat of a rank whose work is done (`finish`): it stops beating and is never named for it.
FINISHED = "finished"
#: The last beat of a rank that found its own heartbeat deleted or replaced by an older one (`_write_beat`): the
#: judge takes it for tampering, never for a hang.
TAMPERED_BEAT = "store tampered"
#: How many of its own beat writes a rank remembers as perhaps stored (the call raised: it may have reached the store)
UNSURE_WRITES = 8
#: How many beats before its deadline a rank may read every beat ahead of judging (`_read_early`). It wakes once a
#: beat, so it reads 1.5 to 2.5 beats before the deadline and claims at its first wake after it, 2 beats or more
#: after the read: the beat and a half the judge watches before naming anyone has passed by then. At 1.5 beats the
#: read came a beat before the claim whenever the deadline is a whole number of beats (the default: a tenth).
EARLY_READ_BEATS = 2.5
_SOURCE_LOCATION = re.compile(r"^\[[^\]]*\]\s*")
_STORE_ERRORS = (RuntimeError, dist.DistError, ValueError, KeyError)
#: Bounds on what a beat or a verdict read back may hold (a position's words, a verdict's sentence).
MAX_TEXT = 4096
MAX_SENTENCE = 64 * 1024


def _text(raw: bytes | str) -> str:
    return raw.decode(errors="replace") if isinstance(raw, bytes) else raw


def beat_key(rank: int) -> str:
    return f"watchdog/beat/{rank}"


@dataclass(frozen=True)
class Beat:
    """One rank's heartbeat: `count` moves while its thread lives, `position` while its work does."""

    rank: int
    count: int
    position: int
    where: str  # the caller's words for the position: "step 8, phase data", "'collectives'"
    host: str
    reason: str = ""  # why this rank gave up early (`fire`): a collective's error
    at: float = 0.0  # its writer's wall clock (time.time()) when it beat; 0: unknown (long ago)

    def to_json(self) -> str:
        return json.dumps({"count": self.count, "position": self.position, "where": self.where, "host": self.host,
                           "reason": self.reason, "at": round(self.at, 3)})

    @classmethod
    def from_json(cls, rank: int, raw: bytes) -> Beat | None:
        """The beat, or None: the judge's placeholder for a rank that never beat ("never"), and what a malformed
        one reads as (logged once by `exchange`)."""
        if raw == b"never":
            return None
        try:
            data = exchange.parse(raw)
            require(isinstance(data, dict) and math.isfinite(float(data.get("at", 0.0))), "not a beat")
            return cls(rank, bounded_int(data["count"], 0, 2**62), bounded_int(data["position"], -(2**62), 2**62),
                       text(data["where"], MAX_TEXT), text(data["host"], MAX_TEXT),
                       text(data.get("reason", ""), MAX_TEXT), float(data.get("at", 0.0)))
        except (ValueError, KeyError, TypeError) as err:
            exchange.report_malformed(beat_key(rank), str(err))
            return None


def _counted_as_moved(beat: Beat) -> Beat:
    """`beat` as a second read would find it from a rank that is alive: its counter one further."""
    return dataclasses.replace(beat, count=beat.count + 1)


def name_the_hang(first: list[Beat | None], second: list[Beat | None]) -> tuple[list[int], str]:
    """The ranks holding the job up (none: the collective itself hangs) and one sentence, from two reads of
    every heartbeat a few beats apart."""
    # A rank that finished stops beating and waits for no one: not silent, not behind (rank 0 may still be
    # writing the run's last snapshot when the others' train() has returned)
    done = {b.rank for b in second if b is not None and b.where == FINISHED}
    first = [None if rank in done else a for rank, a in enumerate(first)]
    second = [None if rank in done else b for rank, b in enumerate(second)]
    silent = [b for a, b in zip(first, second, strict=True) if a is not None and b is not None and a.count == b.count]
    missing = [rank for rank, b in enumerate(second) if b is None and rank not in done]
    if silent or missing:
        # A silent rank's last beat may be a beat old; where the others wait says where it stopped.
        said = [f"rank {b.rank} ({b.host}) stopped answering (no heartbeat; last heard at {b.where})" for b in silent]
        said += [f"rank {rank} sent no heartbeat" for rank in missing]
        quiet = {b.rank for b in silent} | set(missing)
        answering = [b for b in second if b is not None and b.rank not in quiet]
        if answering:
            ahead = max(answering, key=lambda b: b.position)
            said[-1] += f" while rank {ahead.rank} waits at {ahead.where}"
        return sorted(quiet), "; ".join(said)
    beats = [b for b in second if b is not None]
    if not beats:
        return [], "every rank has finished"
    lowest = min(b.position for b in beats)
    behind = [b for b in beats if b.position == lowest]
    if len(behind) == len(beats):
        return [], f"every rank waits at {beats[0].where}: the collective itself does not complete"
    ahead = max(beats, key=lambda b: b.position)
    named = ", ".join(f"rank {b.rank} ({b.host}) at {b.where}" for b in behind)
    return [b.rank for b in behind], f"{named} stopped making progress while rank {ahead.rank} waits at {ahead.where}"


@dataclass(frozen=True)
class Verdict:
    culprits: list[int]
    sentence: str
    reporter: int  # the rank that reports: the lowest whose heartbeat still moves

    def to_json(self) -> str:
        return json.dumps({"culprits": self.culprits, "sentence": self.sentence, "reporter": self.reporter})

    @classmethod
    def from_json(cls, raw: bytes | str, world_size: int) -> Verdict | None:
        """The posted verdict, or None (logged once) unless it names distinct ranks of the world and a reporter
        among them or -1: a forged rank -1 named `rank_hosts[-1]`, a healthy host, for exclusion."""
        try:
            data = exchange.parse(raw)
            require(isinstance(data, dict) and isinstance(data.get("culprits"), list), "no list of culprits")
            culprits = [bounded_int(rank, 0, world_size - 1) for rank in data["culprits"]]
            require(len(set(culprits)) == len(culprits), "a culprit named twice")
            return cls(culprits, text(data["sentence"], MAX_SENTENCE),
                       bounded_int(data["reporter"], -1, world_size - 1))
        except (ValueError, KeyError, TypeError) as err:
            exchange.report_malformed("watchdog verdict", str(err))
            return None


STORE_GONE = Verdict([0], "rank 0 stopped answering: the rendezvous store it serves does not answer "
                          "(its process or node is frozen or gone)", -1)
#: What a judge returns, never posts, when the round's other judge posted first (`Watchdog._judge`)
OUTJUDGED = Verdict([], "another rank posted the verdict first", -1)


@dataclass(frozen=True)
class EarlyRead:
    """Every beat as one rank read them shortly before its deadline (`Watchdog._read_early`), for the round it may
    judge: valid while that deadline and this rank's mark stand."""

    round: int
    expires: float  # the deadline it was read before; an `arm` since replaced it (the stall ended)
    marked: tuple[int, str]  # this rank's mark then
    beats: list[Beat | None]
    watched: float  # time.monotonic() when read
    now: float  # time.time() when read


def judge(first: list[Beat | None], second: list[Beat | None]) -> Verdict:
    culprits, sentence = name_the_hang(first, second)
    moving = [b.rank for a, b in zip(first, second, strict=True) if a and b and b.count != a.count]
    reasons = [b.reason for b in second if b is not None and b.reason]
    if reasons:
        sentence += f" ({reasons[0]})"
    return Verdict(culprits, sentence, moving[0] if moving else -1)


class BoundedCalls:
    """Store calls made by one helper thread, each waited for at most `within_s`; None when a call raised or
    did not answer in time. A frozen host (SIGSTOP, a hung node) does not refuse the connection, it leaves
    requests unanswered, and TCPStore's own timeout does not end such a call (measured with torch 2.13:
    an `add` to a stopped server blocked past 100 s with a 1 s timeout). One thread, not one per call: at
    a thousand ranks in one process, a thread per call spent more time in the kernel than in the calls."""

    def __init__(self, within_s: float, end_process: Callable[[int], None] = os._exit) -> None:
        self.within_s, self.end_process = within_s, end_process
        self._calls: queue.SimpleQueue[tuple[Callable[[], Any], list[Any], threading.Event]] = queue.SimpleQueue()
        self._busy = threading.Lock()  # held while a call has not answered: later calls give up at once
        threading.Thread(target=self._serve, name="app watchdog store calls", daemon=True).start()

    def _serve(self) -> None:
        while True:
            call, answer, done = self._calls.get()
            try:
                answer.append(call())
            except StoreTampered as err:  # a value the job did not write: nothing to judge a hang by
                end_for_tampering(err, self.end_process)
            except _STORE_ERRORS:
                pass
            finally:
                done.set()

    def __call__(self, call: Callable[[], Any]) -> Any:
        if not self._busy.acquire(blocking=False):
            return None  # an earlier call is still blocked: the store does not answer
        answer: list[Any] = []
        done = threading.Event()
        self._calls.put((call, answer, done))
        asked = time.monotonic()
        answered = done.wait(self.within_s)
        if not answered and time.monotonic() - asked > self.within_s + OVERSLEPT_S:
            # The wait itself ran that late: this process was stopped or starved (a slow node), not the store;
            # the call gets its time again (measured: a slow node's rank otherwise named rank 0's store gone).
            answered = done.wait(self.within_s)
        if not answered:
            threading.Thread(target=lambda: (done.wait(), self._busy.release()), daemon=True).start()
            return None
        self._busy.release()
        return answer[0] if answer else None

    def again(self, call: Callable[[], Any]) -> Any:
        """`call` once more after a call that got no answer: first wait up to `within_s` for the call still
        pending to answer (while one is, any call gives up at once). A store that is gone fails both; a
        starved process or a store slow for a moment (measured at 4096 simulated ranks on 2 CPUs: ranks named
        rank 0's store gone while it served thousands of others) answers the second."""
        if self._busy.acquire(timeout=self.within_s):
            self._busy.release()
        return self(call)


class Watchdog:
    """Per-rank heartbeat and deadline. `start()`, then `mark` (and `arm` when the deadline is per stage),
    `fire` to give up at once, `stop()` at the end.

    `on_hang(verdict, reporter)` runs on every rank, in the watchdog thread, before the process exits with
    TIMEOUT; `reporter` is true on the one rank that writes the record. With `end_when_nobody_named` false
    (the trainer) a verdict naming nobody is logged through `on_stall` and the wait goes on: the process
    group's own timeout ends the run.
    """

    def __init__(self, store: Any, rank: int, world_size: int, host: str, deadline_s: float,
                 on_hang: Callable[[Verdict, bool], None], *, restart_on_progress: bool = True,
                 end_when_nobody_named: bool = False, on_stall: Callable[[Verdict], None] | None = None,
                 end_process: Callable[[int], None] = os._exit, interval_s: float | None = None) -> None:
        self.rank, self.world_size, self.host = rank, world_size, host
        self.deadline_s, self.on_hang, self.on_stall = deadline_s, on_hang, on_stall
        self.restart_on_progress, self.end_when_nobody_named = restart_on_progress, end_when_nobody_named
        self.end_process = end_process
        self.interval_s = interval_s or min(5.0, max(0.2, deadline_s / 10))
        self.store = store
        self._ask = BoundedCalls(within_s=max(2.0, 2 * self.interval_s), end_process=end_process)
        # What the caller's thread sets and the watchdog's thread reads, always together under `_state`: a beat
        # never pairs one step's position with another's phase, and progress never restarts a fired deadline
        self._state = threading.Lock()
        self.position, self.where = 0, "start"
        self._count, self._round, self._reason = 0, 0, ""
        self._fired = False
        self._beaten = 0.0  # time.monotonic() of the last beat sent
        self._written: str | None = None  # the beat this rank last wrote (the store holds it, unless tampered with)
        self._unsure: list[str] = []  # beats whose write raised: each may be what the store holds
        self._expires: float | None = None
        self._asked_early = 0  # the last round whose early read this rank asked for (`_read_early`)
        self._early: EarlyRead | None = None
        self._stopped, self._wake = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, name="app watchdog", daemon=True)

    # -- the caller's side ---------------------------------------------------------------------
    def start(self) -> Watchdog:
        self._publish()
        self._thread.start()
        return self

    def mark(self, position: int, where: str) -> None:
        with self._state:
            self.position, self.where = position, where

    def arm(self, deadline_s: float | None = None) -> None:
        """Restart the deadline now (`deadline_s`, default the watchdog's own); nothing restarts it once fired."""
        with self._state:
            if not self._fired:
                self._expires = time.monotonic() + (deadline_s or self.deadline_s)

    def fire(self, reason: str = "") -> None:
        """Give up now as if the deadline had passed (a collective raised because a peer vanished)."""
        with self._state:
            self._reason = _SOURCE_LOCATION.sub("", reason)  # gloo/NCCL errors start with one: keep the message
            self._expires, self._fired = time.monotonic(), True
        self._wake.set()

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()

    def finish(self) -> None:
        """This rank's work is done (train() returned): a last beat says so, then `stop`."""
        with self._state:
            self.where = FINISHED
        self._publish()
        self.stop()

    # -- the thread ----------------------------------------------------------------------------
    def _run(self) -> None:
        last = self._marked()
        if self.restart_on_progress:
            self.arm()
        while True:
            self._wake.wait(self.interval_s)
            self._wake.clear()
            if self._stopped.is_set():
                return
            self._publish()
            now = self._marked()
            if now != last and self.restart_on_progress:
                self.arm()
            last = now
            with self._state:
                expires = self._expires
            if expires is None:
                continue
            if time.monotonic() < expires:
                if time.monotonic() >= expires - EARLY_READ_BEATS * self.interval_s:
                    self._read_early(expires, now)
                continue
            verdict = self._verdict()
            if self._stopped.is_set():
                return
            if not verdict.culprits and not self.end_when_nobody_named:
                if self.on_stall is not None:
                    self.on_stall(verdict)
                self.arm()  # every rank waits in one collective: the process group's timeout ends it
                continue
            self._end(verdict)
            return

    def _marked(self) -> tuple[int, str]:
        with self._state:
            return self.position, self.where

    def _read_early(self, expires: float, marked: tuple[int, str]) -> None:
        """Read every beat now, shortly before this rank's deadline, if this rank is the first to ask in the coming
        round: the judge's beat-and-a-half watch then runs before the deadline instead of after it. One `add` a rank
        whose deadline nears, one read in all. When its deadline passes with neither it nor this rank's mark moved
        since, this rank judges from that read (`_verdict`).
        A stall that ends after the read leaves the round's counter above 1: a later stall in the same round gets no
        early read and is judged as without one, a beat and a half later. So does a counter another client changed
        (counters cannot be sealed): it can slow a verdict, or add a read of every beat, not change the verdict."""
        upcoming = self._round + 1
        if self._asked_early == upcoming:
            return
        self._asked_early = upcoming
        if self._ask(lambda: self.store.add(f"watchdog/round/{upcoming}/watch", 1)) != 1:
            return
        beats = self._read()
        if beats is not None:
            self._early = EarlyRead(upcoming, expires, marked, beats, time.monotonic(), time.time())

    def _publish(self) -> None:
        self._count += 1
        self._beaten = time.monotonic()
        with self._state:
            beat = Beat(self.rank, self._count, self.position, self.where, self.host, self._reason, time.time())
        self._ask(lambda: self._write_beat(beat.to_json()))  # its host may be the rank that died

    def _write_beat(self, beat: str) -> None:
        """Write this rank's beat over the one it wrote last, atomically on the store's server (`compare_set`):
        a reply other than the new beat means another client deleted the key (the server then answers with the
        expected value, or the judge's "never") or wrote back an older sealed beat (it answers with that). A
        healthy rank would then look silent and be named as hung: it ends for the tampering instead, within a beat,
        and leaves a last beat that says so. Runs on the store-call thread, one call at a time, in order."""
        key = beat_key(self.rank)
        if self._written is None:  # the first: whatever an earlier use of the key left there is overwritten
            self.store.set(key, beat)
            self._written = beat
            return
        try:
            now = _text(self.store.compare_set(key, self._written, beat))
            if now != beat and now in self._unsure:  # a write that raised had reached the store after all
                now = _text(self.store.compare_set(key, now, beat))
        except _STORE_ERRORS:
            self._unsure = [*self._unsure[-UNSURE_WRITES + 1:], beat]  # it may have been applied
            raise
        self._unsure = []
        if now == beat:
            self._written = beat
            return
        # A sealed store lets through nothing the job did not write: any other value is an older beat of its own
        how = "deleted" if now in (self._written, "never") else "replaced by an older one"
        with contextlib.suppress(*_STORE_ERRORS):  # said where the judge reads beats; the key may be deleted again
            self.store.set(key, Beat(self.rank, self._count, self.position, TAMPERED_BEAT, self.host,
                                     f"rank {self.rank}'s heartbeat was {how}", time.time()).to_json())
            mark_tampered(self.store)
        raise tampered(f"rank {self.rank}'s heartbeat {key!r} was {how} by another client")

    def _verdict(self) -> Verdict:
        """This round's verdict: judged here if this rank claims the round first or read every beat early for it,
        else read from the judge."""
        self._round += 1
        prefix = f"watchdog/round/{self._round}"
        claim = self._ask(lambda: self.store.add(f"{prefix}/claim", 1))
        if claim is None:
            claim = self._ask.again(lambda: self.store.add(f"{prefix}/claim", 1))
        if claim is None:
            return STORE_GONE
        early, self._early = self._early, None
        with self._state:
            expires = self._expires
        if early is not None and (early.round, early.expires, early.marked) != (self._round, expires, self._marked()):
            early = None  # the stall it was read in ended before the deadline: this is another
        # The judge reads every beat, then waits out late beats for up to a deadline: give it that, a few beats
        # and two slow answers (a shorter wait had every rank judge for itself: N reads of N beats).
        judging_s = 3 * self.interval_s + self.deadline_s + 2 * self._ask.within_s
        key = f"{prefix}/verdict"
        # The rank that read early judges whatever its claim: ranks stalled together claim in an order that differs
        # from the one in which they asked by their waits for their process's turn (at 256 simulated ranks the first
        # to claim had not read early in any phase). The first to claim judges too, as without it; each looks for
        # the other's verdict while it waits, and the first posted stands (below).
        # A starved process can miss the verdict in its own wait: one more look before judging ranks that have
        # heard it and stopped beating (a rank of 4096 simulated otherwise judged alone, for a deadline more)
        if claim != 1 and early is None and (self._await(key, judging_s)
                                             or self._ask.again(lambda: self.store.check([key]))):
            posted_verdict = self._posted_verdict(key)
            if posted_verdict is not None:
                return posted_verdict
        verdict = self._judge(early, posted_at=key)  # first to claim, read early, or the judge went quiet
        if verdict is OUTJUDGED:
            posted_verdict = self._posted_verdict(key)
            if posted_verdict is not None:
                return posted_verdict
            verdict = self._judge()  # one that cannot be read is no verdict: this rank's own, judged to the end
        if self._stopped.is_set():  # it found tampering (a test's end_process returned): nothing to post
            return verdict
        # Posted only where none is yet: a rank that judged for itself because it heard the verdict late (its
        # process starved) judged ranks that had already heard it and stopped beating; it takes the posted one.
        mine = verdict.to_json()
        posted = self._ask(lambda: self.store.compare_set(key, "", mine))
        if posted is None:  # its own read of every beat may still be pending: that is not a store gone
            posted = self._ask.again(lambda: self.store.compare_set(key, "", mine))
        if posted is not None and _text(posted) != mine:
            # A malformed one there (damaged, or another client's) is no verdict: this rank's own stands
            return Verdict.from_json(posted, self.world_size) or verdict
        return verdict

    def _posted_verdict(self, key: str) -> Verdict | None:
        raw = self._read_posted(key)
        return None if raw is None else Verdict.from_json(raw, self.world_size)

    def _read_posted(self, key: str) -> bytes | None:
        """The posted verdict, asked for again while its `get` goes unanswered, for up to a deadline. Judging
        instead was worse: at 4096 simulated ranks a starved process's `get` went unanswered for 6 s, its rank
        judged alone (every beat read and parsed), which starved the other ranks of its process, whose `get`s
        went unanswered in turn: hundreds judged alone, and waited a deadline for ranks that had heard the
        verdict and stopped beating (the last heard it 81 s after the stall, the deadline being 30 s)."""
        end = time.monotonic() + self.deadline_s
        raw = self._ask(lambda: self.store.get(key))
        while raw is None and time.monotonic() < end and not self._stopped.is_set():
            raw = self._ask.again(lambda: self.store.get(key))
        return raw

    def _await(self, key: str, seconds: float, beating: bool = True) -> bool:
        """Whether `key` appears within `seconds`: one `check` a second (or a beat, if shorter), beating
        meanwhile where a judge may still read the beats (a rank that waits silently would look frozen to it).
        A check a beat made the last of 4096 simulated ranks hear the verdict a whole beat (4 s) after the
        first. Not the store's blocking `wait`: under load its timeout can return 5 s late (measured, torch
        2.13), and the beats would stop."""
        end = time.monotonic() + seconds
        while not self._stopped.is_set():
            # A beat a beat after the last: a rank that has just beaten (before its claim) does not beat again
            if beating and time.monotonic() >= self._beaten + self.interval_s:
                self._publish()
            if self._ask(lambda: self.store.check([key])):
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(left, self.interval_s, AWAIT_POLL_S))  # not past `seconds`: a judge's watch waits here
        return False

    def _judge(self, early: EarlyRead | None = None, posted_at: str = "") -> Verdict:
        """The verdict from one read of every beat: this rank's `early` read (the watch began then), else one now.
        OUTJUDGED if another judge posts one at `posted_at` while this one watches (a round has two judges at most:
        the first to claim and the first to read early)."""
        if early is None:
            first = self._read()
            if first is None:
                return STORE_GONE
            watched, now = time.monotonic(), time.time()
        else:
            first, watched, now = early.beats, early.watched, early.now
        told = next((b for b in first if b is not None and b.where == TAMPERED_BEAT), None)
        if told is not None:  # a rank found its own beat deleted or replayed, and stopped: it is not hung
            return self._stop_for_tampering(told.reason)
        # As if read again: a rank that beat in the 1.5 beats before the read has moved; the others stay suspects
        fresh = 1.5 * self.interval_s
        second = [_counted_as_moved(b)
                  if b is not None and b.where != FINISHED and 0.0 <= now - b.at < fresh else b for b in first]
        tampering = self._wait_out_late_beats(first, second, watched, read_again=early is not None,
                                              posted_at=posted_at)
        if tampering is None:
            return OUTJUDGED
        if tampering:
            return self._stop_for_tampering(tampering)
        return judge(first, second)

    def _wait_out_late_beats(self, first: list[Beat | None], second: list[Beat | None], watched: float,
                             read_again: bool = False, posted_at: str = "") -> str | None:
        """Re-read the ranks whose counter did not move and those that never beat (in `second`, in place) until
        each has moved or the longest silent has been silent for `deadline_s`: a rank that beats late is slow, not
        gone (see the module's docstring). '' or what shows that another client tampered with the beats; None when
        a verdict appears at `posted_at` meanwhile (looked for once a second while this judge waits).

        Nobody is named before this judge has watched for a beat and a half since the first read (`watched`), and
        read the suspects again after it (`read_again`: the first read came before the claim, and the watch may have
        passed meanwhile): another client can delete a healthy rank's beat or write back an older one just before
        the judge reads (it sees the round's claim key, or the early read's counter, appear), and the rank finds out
        only at its next beat (`_write_beat`), then says so in its key. A beat that vanished after the first read
        (only a deletion removes one: the first read left "never" where there was none) or whose counter went
        back (an older beat written back) is tampering too; a frozen rank leaves its last beat in place."""
        suspects = [b.rank for a, b in zip(first, second, strict=True)
                    if a and b and a.count == b.count and b.where != FINISHED]  # a finished rank waits for no one
        missing = [rank for rank, b in enumerate(second) if b is None]
        confirm_s = 1.5 * self.interval_s
        while (suspects or missing) and not self._stopped.is_set():
            silent_for = time.monotonic() - watched
            ages = {rank: max(silent_for, time.time() - (second[rank].at or 0.0)) for rank in suspects}  # type: ignore[union-attr]
            longest = max(ages.values(), default=self.deadline_s)
            if longest >= self.deadline_s and silent_for >= confirm_s and not read_again:
                # The job stopped when the longest silent rank did. A rank whose last beat came more than 1.5 beats
                # after that one's was alive after the job stopped: not why it stopped, so not named, and its next
                # beat is not waited for (a slow node's, at 4096 simulated ranks, cost the verdict up to 9 s).
                # Ranks gone together (a node's) stopped within a beat of each other and are named together.
                for rank in suspects:
                    if ages[rank] < longest - 1.5 * self.interval_s:
                        second[rank] = _counted_as_moved(second[rank])  # type: ignore[arg-type]
                return ""
            # Silent long enough already: only the rest of the beat and a half to watch
            wait_s = self.interval_s if longest < self.deadline_s else max(0.0, confirm_s - silent_for)
            if not posted_at:
                time.sleep(wait_s)
            elif self._await(posted_at, wait_s, beating=False):  # the other judge's verdict: this one's is moot
                return None
            self._publish()
            ranks = suspects + missing
            fresh = self._read(ranks, seen=True)
            read_again = False
            if fresh is None:  # the store does not answer, or a key vanished (the call ended the process)
                return tampering_seen()
            for rank, beat in zip(ranks, fresh, strict=True):
                before = second[rank]
                if beat is None:
                    if before is not None:
                        return f"rank {rank}'s heartbeat vanished after the hang watch had read it"
                    continue
                if beat.where == TAMPERED_BEAT:
                    return beat.reason
                if before is not None and beat.count < before.count:
                    return (f"rank {rank}'s heartbeat went back from beat {before.count} to beat {beat.count}: an "
                            "older one was written back")
                if before is None or beat.count != before.count:
                    second[rank] = beat
            suspects = [rank for rank in suspects if first[rank].count == second[rank].count]  # type: ignore[union-attr]
            missing = [rank for rank in missing if second[rank] is None]
        return ""

    def _stop_for_tampering(self, what: str) -> Verdict:
        """End this process for tampering with the beats (exit code STORE, its line), after leaving the sealed mark
        for the other ranks' `_end`; nobody is named."""
        self._ask(lambda: mark_tampered(self.store))
        end_for_tampering(StoreTampered(what) if what == tampering_seen() else tampered(what), self.end_process)
        self.stop()  # where end_process returns (a test's), this watch ends here
        return Verdict([], f"the store was tampered with: {what}", -1)

    def _read(self, ranks: list[int] | None = None, seen: bool = False) -> list[Beat | None] | None:
        """Every rank's heartbeat (or `ranks`') in one request (None: never sent); None when the store does
        not answer. `seen`: every key was there at an earlier read (a beat or "never"), so a missing one was
        deleted: the store call ends the process for tampering."""
        ranks = list(range(self.world_size)) if ranks is None else ranks
        keys = [beat_key(rank) for rank in ranks]

        def read() -> list[bytes]:
            if not self.store.check(keys):
                if seen:
                    gone = next((key for key in keys if not self.store.check([key])), "")
                    mark_tampered(self.store)
                    raise tampered(f"{gone or 'a heartbeat'} vanished after the hang watch had read it")
                # multi_get waits for missing keys: mark a rank that never beat (rare, so one request each).
                for key in keys:
                    self.store.compare_set(key, "", "never")
            return self.store.multi_get(keys)

        raws = self._ask(read)
        if raws is None:
            return None
        return [Beat.from_json(rank, raw) for rank, raw in zip(ranks, raws, strict=True)]

    def _end(self, verdict: Verdict) -> None:
        if self._ask(lambda: marked_tampered(self.store)) or tampering_seen():
            # A rank stopped on a tampered store value: it is silent for that, not for its node; blame no one
            end_for_tampering(StoreTampered(tampering_seen() or tampered("another rank stopped on a value the job "
                                                                          "did not write").args[0]), self.end_process)
            return
        reporter = verdict.reporter == self.rank or (verdict.reporter < 0 and self.rank == self._first_answering())
        done_key = f"watchdog/round/{self._round}/reported"
        try:
            self.on_hang(verdict, reporter)
        except Exception:  # the process ends below (os._exit): said here, or it would go unseen
            log.exception("the hang's report failed; the run still ends as hung")
        finally:
            if reporter:
                self._ask(lambda: self.store.set(done_key, "1"))
            elif verdict is not STORE_GONE:
                # Nobody reads beats once the verdict is out; a beat every 3 s beside a check a second was a
                # quarter of the store's requests while other ranks had yet to hear the verdict
                self._await(done_key, GRACE_S, beating=False)
            self.end_process(exitcodes.TIMEOUT)

    def _first_answering(self) -> int:
        """Without a judge's verdict (the store is gone) rank 0's side is what stopped: rank 1 reports."""
        return 1 if self.world_size > 1 else 0
