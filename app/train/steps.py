"""The optimizer steps a run has left, in order, with the data of each: the loop's one `for`.

Epochs roll over here and nowhere else. The iterator reads the position from the training state (a
resumed run starts mid-epoch, at the sample its snapshot stopped at) and the loop moves it forward after
each step; an epoch whose samples are used up, or whose remainder is too small for one step (the last
partial step is dropped), gives way to the next. A loop that stops early leaves the position where its
last step put it, so the snapshot records the exact sample to go on from.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app.train.data import EpochPlan, make_loader
from app.train.plan import Position
from app.train.state import TrainingState


@dataclass(frozen=True)
class Step:
    """One optimizer step to run: its number (1-based), where it lies in its epoch, and the epoch's batches."""

    number: int
    epoch: EpochPlan
    index: int
    batches: Iterator[Any]

    @property
    def global_samples(self) -> int:
        """Samples of this step across every rank (the epoch's last step may be short)."""
        return self.epoch.global_samples(self.index)

    @property
    def position_after(self) -> Position:
        return Position(self.number, self.epoch.epoch, self.epoch.offset_after(self.index))


def remaining_steps(state: TrainingState, dataset: Any, rank: int, pin_memory: bool) -> Iterator[Step]:
    """Each step from `state.position` to the plan's last, each epoch's data loaded once (`data.workers`)."""
    plan = state.plan
    while state.position.step < plan.total_steps:
        position = state.position
        epoch = plan.epoch(position.epoch, position.offset)
        if epoch.num_steps:
            batches = iter(make_loader(dataset, epoch, rank, plan.data_workers, pin_memory))
            for index in range(epoch.num_steps):
                if state.position.step >= plan.total_steps:
                    return
                yield Step(state.position.step + 1, epoch, index, batches)
            if state.position.offset < epoch.num_samples:
                continue  # a remainder too small for one step: the next pass finds no step and rolls over
        state.position = Position(state.position.step, position.epoch + 1, 0)
