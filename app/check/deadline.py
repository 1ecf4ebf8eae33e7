"""Every stage has a deadline; a rank that stops answering is named by stage and rank, and the job
ends with exit code TIMEOUT instead of hanging the allocation.

Each rank publishes its progress (`protocol.progress_key`: step number and label) in the rendezvous
store before every step. A watchdog thread per rank wakes when the current stage (or re-armed step)
passes its deadline. Rank 0 then reads every rank's progress: the ranks furthest behind are the ones
that stopped answering; if all are at the same step, the operation itself does not complete
(network, fabric). Rank 0
prints the report and exits; other ranks wait a grace period (so that under torchrun or
`srun --kill-on-bad-exit` rank 0 gets to print first), then exit with the same code.

The watchdog ends the process with `os._exit`: a thread cannot interrupt a blocked collective, and
`sys.exit` would wait for it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time
from collections.abc import Callable

import torch.distributed as dist

from app.check import protocol
from app.check.protocol import RankProgress
from app.common import exchange, exitcodes

_SOURCE_LOCATION = re.compile(r"^\[[^\]]*\]\s*")
#: Extra time other ranks give rank 0 to print its report before they exit themselves.
GRACE_S = 5.0


def find_stragglers(progress: list[RankProgress | None]) -> tuple[list[int], str]:
    """The ranks furthest behind (or never heard from), and a sentence describing the state.

    Only the furthest behind: ranks that wait for them inside a collective sit one step further,
    and ranks outside a subgroup's collective may have run ahead.
    """
    steps = [p.step if p else -1 for p in progress]
    top, bottom = max(steps), min(steps)
    behind = [rank for rank, step in enumerate(steps) if step == bottom] if bottom < top else []
    if not behind:
        label = progress[0].label if progress[0] else "?"
        return [], f"all ranks reached '{label}' and wait there: the operation itself does not complete"
    ahead = next(p.label for p in progress if p and p.step == top)
    said = [
        f"rank {rank} stopped answering in '{progress[rank].label}'"
        if progress[rank]  # type: ignore[union-attr]
        else f"rank {rank} never reported"
        for rank in behind
    ]
    return behind, "; ".join(said) + f" while the others reached '{ahead}'"


class Watchdog:
    """Per-rank deadline keeper. `stage(name)` starts a deadline, `step(label)` reports progress within
    it, `stop()` disarms it.

    `on_timeout(label, stragglers, sentence)` runs on rank 0 (in the watchdog thread) and must end
    the process; other ranks print one line and exit with TIMEOUT after the grace period.
    """

    def __init__(
        self,
        store: dist.Store,
        rank: int,
        world_size: int,
        deadline_s: float,
        on_timeout: Callable[[str, list[int], str], None],
    ) -> None:
        self.store, self.rank, self.world_size, self.deadline_s = store, rank, world_size, deadline_s
        self.on_timeout = on_timeout
        self._lock = threading.Lock()
        self._step = 0
        self._label = "start"
        self._expires: float | None = None
        self._reason = ""
        self._stage = "start"
        self._thread = threading.Thread(target=self._run, name="app.check watchdog", daemon=True)
        self._thread.start()

    def arm(self, name: str, deadline_s: float | None = None) -> None:
        """Start stage `name`'s deadline without telling the others yet (see `stage`)."""
        with self._lock:
            self._expires = time.monotonic() + (deadline_s or self.deadline_s)
            self._stage = name

    def stage(self, name: str, deadline_s: float | None = None) -> None:
        """Enter a stage: its deadline starts now and the others see this rank in it."""
        self.arm(name, deadline_s)
        self.step(name)

    def step(self, label: str, rearm: bool = False) -> None:
        """Publish progress within the stage; `rearm` gives this step a full deadline of its own (a long
        sweep on a slow fabric is not a hang). Every rank calls `stage`/`step` in the same sequence."""
        with self._lock:
            if rearm and self._expires is not None:
                self._expires = time.monotonic() + self.deadline_s
            self._step += 1
            self._label = label
            step = self._step
        protocol.publish_progress(self.store, self.rank, step, label)

    def stop(self) -> None:
        with self._lock:
            self._expires = None

    def fire(self, reason: str = "") -> None:
        """End now as if the deadline had passed (a collective raised because a peer vanished)."""
        with self._lock:
            self._expires = time.monotonic()
            self._reason = reason

    def _run(self) -> None:
        while True:
            time.sleep(0.1)
            with self._lock:
                expires, label = self._expires, self._stage
            if expires is not None and time.monotonic() >= expires:
                break
        if self.rank != 0:
            # Give rank 0 (which names the culprits) time to print, unless it already has.
            end = time.monotonic() + GRACE_S
            while time.monotonic() < end and exchange.probe(self.store, protocol.VERDICT) is False:
                time.sleep(0.1)
            with contextlib.suppress(RuntimeError, dist.DistError):
                exchange.put(self.store, protocol.ack_key(self.rank), 1)
            print(
                f"app.check rank {self.rank}: stage '{label}' passed its {self.deadline_s:.0f}s deadline; "
                "rank 0's report names the rank that stopped answering",
                file=sys.stderr,
                flush=True,
            )
            os._exit(exitcodes.TIMEOUT)
        stragglers, sentence = find_stragglers(self.read_progress())
        if self._reason:
            # gloo/NCCL errors start with a source location: keep the message only.
            sentence += " (" + _SOURCE_LOCATION.sub("", self._reason) + ")"
        try:
            self.on_timeout(label, stragglers, sentence)
        finally:
            os._exit(exitcodes.TIMEOUT)

    def read_progress(self) -> list[RankProgress | None]:
        return protocol.read_progress(self.store, self.world_size)
