"""Preemption and Ctrl-C: SIGTERM/SIGUSR1/SIGINT set a flag; the trainer acts on it between steps.

The handler only records the signal (doing I/O inside a signal handler is unsafe). The trainer
all-reduces the flag with its per-step statistics so every rank stops after the same step, writes a
snapshot and exits with `exitcodes.PREEMPTED`. Slurm's `--signal=B:USR1@90` and torchrun's SIGTERM
forwarding both end up here, and so does Ctrl-C (SIGINT): the step finishes and a snapshot is written
instead of losing the steps since the last one. A second Ctrl-C interrupts at once.
"""

from __future__ import annotations

import signal
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT)


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
        if signum == signal.SIGINT:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # the next Ctrl-C interrupts

    def install(self) -> StopFlag:
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._handle)
        return self
