"""The trainer's words for the common watchdog (app.common.watchdog): a position is a step and a phase."""

from __future__ import annotations

from app.common.watchdog import Watchdog

#: Phases of a step, in the order a step passes them (a rank in an earlier phase of the same step is behind).
PHASES = ("start", "data", "forward/backward", "optimizer", "evaluation", "snapshot")
_ORDER = {phase: index for index, phase in enumerate(PHASES)}


class StepWatchdog(Watchdog):
    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.mark_step(0, "start")

    def mark_step(self, step: int, phase: str) -> None:
        self.mark(step * len(PHASES) + _ORDER[phase], f"step {step}, phase {phase}")
