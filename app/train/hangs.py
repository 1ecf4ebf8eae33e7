"""A rank that stops answering is named, not waited for: heartbeats in the rendezvous store and a deadline.

The loop marks where its rank is (step, phase) in memory: two attribute writes, nothing on the step
path. A thread per rank publishes that mark with a beat counter to the rendezvous store (the store the
process group was made from, so no collective is involved) and watches its own rank's mark. When the
mark has not moved for the deadline, the thread reads every rank's heartbeat twice, a few beats apart:
- ranks whose counter did not move stopped answering (frozen, killed, node gone): they are named;
- otherwise the ranks furthest behind (step, then phase) hold the others up (a stuck data loader, a
  snapshot on a slow filesystem, a deadlock): they are named;
- if every rank is at the same step and phase, the collective itself does not complete (network,
  fabric): nobody is named and the process group's own timeout (`dist.timeout_s`) ends the run.
When the store itself does not answer (it lives in rank 0's process), rank 0 is the one that stopped.
The lowest-numbered rank that still answers writes `summary.json` (status `hung`); every surviving rank
prints one line and exits with `exitcodes.TIMEOUT` from the thread, since the main thread sits in a
collective that nothing interrupts. No snapshot is written: the state may be half a step.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch.distributed as dist

from app.common import exchange, exitcodes

log = logging.getLogger("app.train")

#: Phases of a step, in the order a step passes them (a rank in an earlier phase of the same step is behind).
PHASES = ("start", "data", "forward/backward", "optimizer", "snapshot")
REPORTED = "train/hang-reported"
#: How long ranks that do not write the summary wait for the one that does before exiting.
GRACE_S = 5.0


def heartbeat_key(rank: int) -> str:
    return f"train/heartbeat/{rank}"


@dataclass(frozen=True)
class Beat:
    rank: int
    count: int
    step: int
    phase: str
    host: str

    @property
    def where(self) -> tuple[int, int]:
        return self.step, PHASES.index(self.phase) if self.phase in PHASES else 0

    def describe(self) -> str:
        return f"rank {self.rank} ({self.host}) at step {self.step}, phase {self.phase}"


def name_the_hang(first: list[Beat | None], second: list[Beat | None]) -> tuple[list[int], str]:
    """The ranks holding the job up (none: the collective itself hangs) and one sentence, from two reads of
    every heartbeat a few beats apart."""
    silent = [b for a, b in zip(first, second, strict=True) if a is not None and b is not None and a.count == b.count]
    missing = [rank for rank, b in enumerate(second) if b is None]
    if silent or missing:
        # A silent rank's last beat may be a beat old; where the others wait says where it stopped.
        said = [f"rank {b.rank} ({b.host}) stopped answering (no heartbeat; last heard at step {b.step}, "
                f"phase {b.phase})" for b in silent]
        said += [f"rank {rank} sent no heartbeat" for rank in missing]
        quiet = {b.rank for b in silent} | set(missing)
        answering = [b for b in second if b is not None and b.rank not in quiet]
        if answering:
            ahead = max(answering, key=lambda b: b.where)
            said[-1] += f" while rank {ahead.rank} waits at step {ahead.step}, phase {ahead.phase}"
        return sorted(quiet), "; ".join(said)
    beats = [b for b in second if b is not None]
    lowest = min(b.where for b in beats)
    behind = [b for b in beats if b.where == lowest]
    if len(behind) == len(beats):
        return [], (f"every rank waits at step {lowest[0]}, phase {beats[0].phase}: the collective itself does not "
                    "complete (network or fabric; run python -m app.check across the same nodes)")
    ahead = max(beats, key=lambda b: b.where)
    return [b.rank for b in behind], (f"{', '.join(b.describe() for b in behind)} stopped making progress while "
                                      f"rank {ahead.rank} waits at step {ahead.step}, phase {ahead.phase}")


class HangWatch:
    """Per-rank heartbeat and deadline; `mark(step, phase)` from the loop, `stop()` at the end.

    `on_hang(culprit_ranks, line)` runs on the rank that writes the summary, in the watchdog thread,
    before the process exits with TIMEOUT.
    """

    def __init__(self, store: dist.Store, rank: int, world_size: int, host: str, deadline_s: float,
                 on_hang: Callable[[list[int], str], None]) -> None:
        self.store, self.rank, self.world_size, self.host = store, rank, world_size, host
        self.deadline_s, self.on_hang = deadline_s, on_hang
        self.interval_s = min(5.0, max(0.2, deadline_s / 10))
        self.step, self.phase = 0, "start"
        self._count = 0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="app.train hang watch", daemon=True)

    def start(self) -> HangWatch:
        self._publish()
        self._thread.start()
        return self

    def mark(self, step: int, phase: str) -> None:
        self.step, self.phase = step, phase

    def stop(self) -> None:
        self._stopped.set()

    def _publish(self) -> None:
        self._count += 1
        with contextlib.suppress(RuntimeError, dist.DistError):  # the store's host may be the rank that died
            exchange.put(self.store, heartbeat_key(self.rank),
                         {"count": self._count, "step": self.step, "phase": self.phase, "host": self.host})

    def _read(self) -> list[Beat | None] | None:
        """Every rank's heartbeat (None: never sent); None when the store itself does not answer in time
        (a frozen host does not refuse the connection, it leaves requests unanswered: a helper thread
        reads, and is left behind when it blocks)."""
        result: list[list[Beat | None] | None] = [None]

        def read() -> None:
            result[0] = self._read_now()

        reader = threading.Thread(target=read, name="app.train heartbeat reader", daemon=True)
        reader.start()
        reader.join(timeout=max(2.0, 2 * self.interval_s))
        return None if reader.is_alive() else result[0]

    def _read_now(self) -> list[Beat | None] | None:
        beats: list[Beat | None] = []
        for rank in range(self.world_size):
            key = heartbeat_key(rank)
            found = exchange.probe(self.store, key)
            if found is None:
                return None  # its host, rank 0's process or node, is frozen or gone
            try:
                data = exchange.get(self.store, key) if found else None
            except (RuntimeError, dist.DistError):
                return None
            except ValueError:
                data = None
            beats.append(Beat(rank, data["count"], data["step"], data["phase"], data["host"]) if data else None)
        return beats

    def _run(self) -> None:
        last, since = (self.step, self.phase), time.monotonic()
        while not self._stopped.wait(self.interval_s):
            self._publish()
            now = (self.step, self.phase)
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= self.deadline_s:
                if self._judge():
                    return
                since = time.monotonic()  # every rank waits in one collective: the process group's timeout ends it

    def _judge(self) -> bool:
        """Read the heartbeats; report and end the process if someone holds the job up."""
        first = self._read()
        end = time.monotonic() + (3 * self.interval_s if first is not None else 0)
        while time.monotonic() < end and not self._stopped.is_set():
            time.sleep(self.interval_s)
            self._publish()
        if self._stopped.is_set():
            return True
        second = self._read() if first is not None else None
        if first is None or second is None:
            culprits, sentence = [0], ("rank 0 stopped answering: the rendezvous store it serves does not answer "
                                       "(its process or node is frozen or gone)")
        else:
            culprits, sentence = name_the_hang(first, second)
        if not culprits:
            log.warning("no progress for %.0fs: %s", self.deadline_s, sentence)
            return False
        answering = [r for r in range(self.world_size) if r not in culprits]
        line = f"hang: {sentence}; no progress for {self.deadline_s:.0f}s (dist.hang_timeout_s)"
        log.error("%s", line)
        if answering and self.rank == answering[0]:
            try:
                self.on_hang(culprits, line)
            finally:
                with contextlib.suppress(RuntimeError, dist.DistError):
                    exchange.put(self.store, REPORTED, 1)
        else:
            end = time.monotonic() + GRACE_S
            while time.monotonic() < end and exchange.probe(self.store, REPORTED) is False:
                time.sleep(0.1)
        logging.shutdown()
        os._exit(exitcodes.TIMEOUT)
