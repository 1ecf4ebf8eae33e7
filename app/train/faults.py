"""TEST-ONLY fault injection for the trainer, so the suite can prove a hang is named (like the check's
`APP_CHECK_FAULT`).

`APP_TRAIN_FAULT=kind@TARGET:stepS`, for example `stop@rank1:step8`: when rank N (TARGET `rankN`), or
every rank on host NAME (TARGET `host=NAME`: a bad node, whatever ranks it gets), starts step S (counted
from 1, as in metrics.jsonl),
- `stop`  it stops itself with SIGSTOP: a frozen process (no heartbeat), like a node that went away;
- `hang`  it sleeps forever while its heartbeat goes on: a live process stuck in its data loader;
- `usr1`  it sends itself SIGUSR1 (a preemption notice arriving at a known step) and goes on.

Nothing else reads this variable; users never need it. An injection prints a line to stderr.
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

from app.common.errors import UsageError

_FORMAT = re.compile(r"^(stop|hang|usr1)@(?:rank(\d+)|host=([^:]+)):step(\d+)$")
EXAMPLE = "APP_TRAIN_FAULT=stop@rank1:step8"


@dataclass(frozen=True)
class Fault:
    kind: str
    rank: int | None
    step: int
    host: str | None = None

    def applies(self, rank: int, host: str) -> bool:
        return rank == self.rank if self.host is None else host.split(".")[0] == self.host

    def at_step(self, rank: int, step: int) -> None:
        """Called when `rank` starts `step`."""
        if step != self.step or not self.applies(rank, socket.gethostname()):
            return
        print(f"APP_TRAIN_FAULT: {self.kind} on rank {rank} at step {step} (test-only)", file=sys.stderr, flush=True)
        if self.kind == "usr1":
            os.kill(os.getpid(), signal.SIGUSR1)
            return
        if self.kind == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)
        while True:
            time.sleep(3600)


def from_environment(env: Mapping[str, str]) -> Fault | None:
    text = env.get("APP_TRAIN_FAULT", "")
    if not text:
        return None
    match = _FORMAT.match(text)
    if not match:
        raise UsageError(f"APP_TRAIN_FAULT={text!r} is not kind@rankN:stepS or kind@host=NAME:stepS with kind stop, "
                         f"hang or usr1; example: {EXAMPLE}")
    kind, rank, host, step = match.groups()
    return Fault(kind, None if rank is None else int(rank), int(step), host)
