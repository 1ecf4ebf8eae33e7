"""TEST-ONLY fault injection for the trainer, so the suite can prove a hang is named and a preemption
notice handled (the syntax is app/common/faults.py's, shared with the check's `APP_CHECK_FAULT`).

`APP_TRAIN_FAULT=kind@TARGET:stepS`, for example `stop@rank1:step8`: when rank N (TARGET `rankN`), or
every rank on host NAME (TARGET `host=NAME`: a bad node, whatever ranks it gets), starts step S (counted
from 1, as in metrics.jsonl),
- `stop`  it stops itself with SIGSTOP: a frozen process (no heartbeat), like a node that went away;
- `hang`  it sleeps forever while its heartbeat goes on: a live process stuck in its data loader;
- `usr1`  it sends itself SIGUSR1 (a preemption notice arriving at a known step) and goes on;
- `slowsnapshot`  not at the step's start but when it writes the snapshot of step S: the write takes
  SLOW_SNAPSHOT_S longer (a slow filesystem) while its heartbeat goes on.

Nothing else reads this variable; users never need it. An injection prints a line to stderr.
`install` reads it once per run and arms the registry's points (app/common/faults.py): `train.step`, passed
when a step starts (app/train/optimizer_step.py), and `train.snapshot`, just before a snapshot is written
while the hang watchdog's mark says so (app/train/loop.py).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass

from app.common.faults import Kind, arm, parse_injections

EXAMPLE = "stop@rank1:step8"
_AT_STEP = Kind(lambda where: re.fullmatch(r"step[1-9]\d*", where) is not None, "the step it starts at, e.g. step8")
KINDS = {"stop": _AT_STEP, "hang": _AT_STEP, "usr1": _AT_STEP, "slowsnapshot": _AT_STEP}
SLOW_SNAPSHOT_S = 12.0
POINTS = ("train.step", "train.snapshot")


@dataclass(frozen=True)
class Fault:
    """What this rank does when it starts `step` (or writes its snapshot, for `slowsnapshot`)."""

    kind: str
    rank: int
    step: int

    @property
    def point(self) -> str:
        return "train.snapshot" if self.kind == "slowsnapshot" else "train.step"

    def act(self, value: None, *, step: int) -> None:
        if step != self.step:
            return value
        print(f"APP_TRAIN_FAULT: {self.kind} on rank {self.rank} at step {step} (test-only)", file=sys.stderr,
              flush=True)
        if self.kind == "slowsnapshot":
            time.sleep(SLOW_SNAPSHOT_S)
            return value
        if self.kind == "usr1":
            os.kill(os.getpid(), signal.SIGUSR1)
            return value
        if self.kind == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)
        while True:
            time.sleep(3600)


def from_environment(env: Mapping[str, str], rank: int, host: str | None = None) -> Fault | None:
    """The fault `APP_TRAIN_FAULT` sets for `rank` on `host` (default: this host), if any."""
    found = parse_injections("APP_TRAIN_FAULT", env.get("APP_TRAIN_FAULT", ""), KINDS, EXAMPLE, rank,
                             host or socket.gethostname())
    return Fault(found[0].kind, rank, int(found[0].where[4:])) if found else None


def install(env: Mapping[str, str], rank: int, host: str | None = None) -> Fault | None:
    """Read `APP_TRAIN_FAULT` once for this run and arm the point of the fault it sets for `rank`, if any
    (every trainer point disarmed otherwise); `UsageError` on a malformed value."""
    fault = from_environment(env, rank, host)
    arm(POINTS, {fault.point: fault.act} if fault is not None else {})
    return fault
