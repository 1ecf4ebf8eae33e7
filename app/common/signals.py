"""Preemption: SIGTERM/SIGUSR1 set a flag; the trainer acts on it between steps.

The handler only records the signal (doing I/O inside a signal handler is unsafe). The trainer
all-reduces the flag with its per-step statistics so every rank stops after the same step, writes a
snapshot and exits with `exitcodes.PREEMPTED`. Slurm's `--signal=B:USR1@90` and torchrun's SIGTERM
forwarding both end up here.
"""

from __future__ import annotations

import signal
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1)


class StopFlag:
    """Records the first stop signal received."""

    def __init__(self) -> None:
        self.signal_name: str | None = None

    @property
    def requested(self) -> bool:
        return self.signal_name is not None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signal_name is None:
            self.signal_name = signal.Signals(signum).name

    def install(self) -> StopFlag:
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._handle)
        return self
