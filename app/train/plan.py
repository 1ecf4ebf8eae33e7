"""The values a run derives from its config, dataset and world, computed once and read everywhere.

Samples per step, the resolved precision, the epoch plans and the run length each have this one
owner: the assembly builds a `RunPlan` after the ranks agree where to start, and the loop, the
training state and the summary read it instead of recomputing from the config.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import torch

from app.train.config import Config
from app.train.data import EpochPlan


@dataclass(frozen=True)
class Position:
    """Where training stands: optimizer steps done, current epoch, samples of the epoch consumed."""

    step: int = 0
    epoch: int = 0
    offset: int = 0

    @property
    def epoch_number(self) -> int:
        """The epoch of the last step, counted from 1 as people count (and as the progress lines do): a
        position at an epoch's start has finished the one before it."""
        return max(1, self.epoch + (self.offset > 0))


def resolve_precision(requested: str, device: torch.device) -> str:
    """'auto' means bf16 autocast on GPU and fp32 on CPU."""
    if requested != "auto":
        return requested
    return "bf16" if device.type == "cuda" else "fp32"


@dataclass(frozen=True)
class RunPlan:
    """What this run does, step by step: the loop's one view of the config, with derived values resolved."""

    dataset_size: int
    world_size: int
    seed: int
    batch_size: int
    grad_accum: int
    epochs: int
    max_steps: int
    precision: str
    """Resolved: fp32, bf16 or fp16 (never 'auto')."""
    total_steps: int
    """Optimizer steps of the whole run, counted from the start position on this world size."""
    tokens_per_sample: int = 0
    grad_clip: float = 0.0
    data_workers: int = 0
    breakdown: bool = False
    """Time each step's phases (run.breakdown)."""

    @classmethod
    def build(cls, config: Config, dataset_size: int, world_size: int, device: torch.device, start: Position,
              tokens_per_sample: int = 0) -> RunPlan:
        train = config.train
        shape = cls(dataset_size, world_size, config.run.seed, train.batch_size, train.grad_accum, train.epochs,
                    train.max_steps, resolve_precision(train.precision, device), 0, tokens_per_sample,
                    config.optim.grad_clip, config.data.workers, config.run.breakdown)
        return dataclasses.replace(shape, total_steps=shape._count_steps(start))

    def epoch(self, epoch: int, offset: int = 0) -> EpochPlan:
        """The optimizer steps of `epoch`, starting `offset` samples into its permutation."""
        return EpochPlan(self.dataset_size, self.seed, epoch, self.world_size, self.batch_size, self.grad_accum,
                         offset)

    # Cached: read every step (the plan is frozen, so they never change).
    @cached_property
    def samples_per_step(self) -> int:
        return self.epoch(0).samples_per_step

    @cached_property
    def autocast_dtype(self) -> torch.dtype | None:
        return {"bf16": torch.bfloat16, "fp16": torch.float16}.get(self.precision)

    def _count_steps(self, start: Position) -> int:
        total = start.step
        if start.epoch < self.epochs:
            total += self.epoch(start.epoch, start.offset).num_steps
            total += (self.epochs - start.epoch - 1) * self.epoch(0).num_steps
        return min(total, self.max_steps) if self.max_steps else total


def unreachable_settings(config: Config, plan: RunPlan) -> list[str]:
    """Settings this run never reaches at its world size, each with the fix: a batch job that asks for 5000
    steps and stops after 95 has nobody watching to notice before the allocation is spent."""
    notes = []
    total = plan.total_steps
    if plan.max_steps > total:
        notes.append(f"train.max_steps={plan.max_steps} is never reached: train.epochs={plan.epochs} is {total} "
                     f"steps at world size {plan.world_size} (raise train.epochs, or give more data)")
    every = config.snapshot.every
    if every > total:
        notes.append(f"snapshot.every={every} never fires in a run of {total} steps: only its end is snapshotted "
                     f"(example: snapshot.every={max(1, total // 2)})")
    warmup = config.optim.warmup_steps
    if warmup > total:
        notes.append(f"optim.warmup_steps={warmup} is longer than the run's {total} steps: the learning rate never "
                     f"reaches optim.lr (example: optim.warmup_steps={max(1, total // 10)})")
    return notes
