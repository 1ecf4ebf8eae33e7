"""The check's words for the common watchdog (app.common.watchdog): every stage has a deadline, and a
position is the count of steps a rank has taken (every rank takes the same steps in the same order).

A stage that passes its deadline always ends the check with exit code TIMEOUT (the trainer instead
waits for its process group's own timeout when nobody is to blame): the report names the stage and the
rank that stopped answering, or says that the operation itself does not complete.
"""

from __future__ import annotations

from app.common.watchdog import Watchdog


class StageWatchdog(Watchdog):
    """`arm(stage)` starts a stage's deadline, `step(label)` reports progress within it, `stop()` disarms."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, restart_on_progress=False, end_when_nobody_named=True, **kwargs)
        self.stage_name, self._steps = "start", 0
        self.mark(0, "'start'")

    def arm_stage(self, name: str, deadline_s: float | None = None) -> None:
        """Start stage `name`'s deadline without telling the others yet (see `stage`)."""
        self.stage_name = name
        self.arm(deadline_s)

    def stage(self, name: str, deadline_s: float | None = None) -> None:
        """Enter a stage: its deadline starts now and the others see this rank in it."""
        self.arm_stage(name, deadline_s)
        self.step(name)

    def step(self, label: str, rearm: bool = False) -> None:
        """Progress within the stage; `rearm` gives this step a full deadline of its own (a long sweep on
        a slow fabric is not a hang)."""
        if rearm:
            self.arm()
        self._steps += 1
        self.mark(self._steps, f"'{label}'")
