"""Which samples each rank sees at each step, and the loader that fetches them as whole batches.

`EpochPlan` is a pure function of (dataset size, seed, epoch, world size, batch sizes, start offset):
every epoch is one seeded permutation of all samples, cut into optimizer steps of
`world_size * batch_size * grad_accum` samples; the last step of an epoch also takes the remainder,
so every sample is used exactly once per epoch. The permutation does not depend on the world size,
and a plan can start at any sample offset, which is what exact resume (and resume on a different
world size) needs.

Built-in datasets return a whole batch for a tensor of indices (`get_batch`), so a step costs a few
tensor gathers, not one Python call per sample. Other map-style datasets are collated per sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

import torch
from torch.utils.data import DataLoader, Dataset, Sampler, default_collate


@runtime_checkable
class BatchDataset(Protocol):
    """A dataset that gathers a whole batch at once."""

    def __len__(self) -> int: ...

    def get_batch(self, indices: torch.Tensor) -> tuple[torch.Tensor, ...]: ...


@dataclass(frozen=True)
class EpochPlan:
    num_samples: int
    seed: int
    epoch: int
    world_size: int
    batch_size: int
    grad_accum: int
    start_offset: int = 0

    # Cached: read several times per step, and the plan never changes (frozen).
    @cached_property
    def samples_per_step(self) -> int:
        return self.world_size * self.batch_size * self.grad_accum

    @cached_property
    def num_steps(self) -> int:
        remaining = self.num_samples - self.start_offset
        # Fewer samples than micro-batch slots cannot give every rank a sample: those are left out.
        if remaining < self.world_size * self.grad_accum:
            return 0
        return max(1, remaining // self.samples_per_step)

    def permutation(self) -> torch.Tensor:
        generator = torch.Generator().manual_seed(self.seed * 1_000_003 + self.epoch)
        return torch.randperm(self.num_samples, generator=generator)

    def step_bounds(self, step: int) -> tuple[int, int]:
        """[start, end) sample positions of an optimizer step within the epoch's permutation."""
        start = self.start_offset + step * self.samples_per_step
        end = self.num_samples if step == self.num_steps - 1 else start + self.samples_per_step
        return start, end

    def offset_after(self, step: int) -> int:
        return self.step_bounds(step)[1]

    def global_samples(self, step: int) -> int:
        start, end = self.step_bounds(step)
        return end - start

    def micro_batches(self, rank: int, permutation: torch.Tensor | None = None) -> Iterator[torch.Tensor]:
        """This rank's index tensors, `grad_accum` per step, for every step of the plan in order."""
        perm = self.permutation() if permutation is None else permutation
        for step in range(self.num_steps):
            start, end = self.step_bounds(step)
            for chunk in torch.tensor_split(perm[start:end], self.grad_accum):
                yield torch.tensor_split(chunk, self.world_size)[rank]


class _PlanSampler(Sampler[torch.Tensor]):
    """Yields index tensors (one per micro-batch) from an `EpochPlan`."""

    def __init__(self, plan: EpochPlan, rank: int) -> None:
        self.plan, self.rank = plan, rank

    def __iter__(self) -> Iterator[torch.Tensor]:
        return self.plan.micro_batches(self.rank)

    def __len__(self) -> int:
        return self.plan.num_steps * self.plan.grad_accum


class BatchFetcher(Dataset):
    """Adapts either dataset kind to "indices in, collated batch out" for the DataLoader."""

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset
        self.batched = isinstance(dataset, BatchDataset)

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, indices: torch.Tensor) -> Any:
        if self.batched:
            return self.dataset.get_batch(indices)
        return default_collate([self.dataset[int(i)] for i in indices])


def make_loader(dataset: Any, plan: EpochPlan, rank: int, workers: int, pin_memory: bool) -> Iterable[Any]:
    """This rank's micro-batches of `plan`, whole, in order: from worker processes when `workers` > 0,
    else fetched inline (a DataLoader without workers only adds per-batch overhead)."""
    if workers == 0:
        return _inline_batches(BatchFetcher(dataset), plan, rank, pin_memory)
    return DataLoader(
        BatchFetcher(dataset),
        sampler=_PlanSampler(plan, rank),
        batch_size=None,  # the sampler already yields whole batches of indices
        num_workers=workers,
        pin_memory=pin_memory,
        persistent_workers=False,
        prefetch_factor=4,
    )


def _inline_batches(fetcher: BatchFetcher, plan: EpochPlan, rank: int, pin_memory: bool) -> Iterator[Any]:
    for indices in plan.micro_batches(rank):
        batch = fetcher[indices]
        yield tuple(t.pin_memory() for t in batch) if pin_memory else batch
