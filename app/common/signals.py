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

    def agreed(self) -> None:
        """The ranks agreed to stop: from here SIGTERM and SIGUSR1 are ignored. The stop reaches the nodes up to a
        second apart (each node's wrapper looks for the stop file once a second), so a node's SIGTERM can arrive
        after its ranks, stopping on another node's request, are already leaving; and while Python shuts down it
        restores the default action of every signal it handles (CPython's _PySignal_Fini), so that SIGTERM
        killed the process: its exit 0 or 75 became 143 (seen on the test cluster: a script that exits 0 after a
        stop was requeued). An ignored signal stays ignored through the shutdown; the job's escalation after the
        grace still ends the process (torchrun's SIGKILL)."""
        for signum in (signal.SIGTERM, signal.SIGUSR1):
            signal.signal(signum, signal.SIG_IGN)
