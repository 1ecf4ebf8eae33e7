"""Validation loss on held-out data, averaged over every rank.

The same batches every time (the first `eval_steps * batch_size * world_size` samples of the validation
set, wrapping around a small one), so points of the curve compare with each other. Evaluation reads
the model and touches no training state: no data position, no random generator (dropout is off in
eval mode), so a resumed run evaluates and trains exactly as the uninterrupted one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

from app.train.data import BatchFetcher


class Evaluator:
    """Every `every` steps and at the run's last step (train.eval_every), `steps` batches per rank."""

    def __init__(self, dataset: Any, *, every: int, batch_size: int, steps: int, rank: int, world_size: int,
                 device: torch.device, loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
                 autocast_dtype: torch.dtype | None) -> None:
        self.every = every
        self.fetch = BatchFetcher(dataset)
        self.device, self.loss_fn, self.autocast_dtype = device, loss_fn, autocast_dtype
        self.world_size = world_size
        indices = torch.arange(steps * batch_size * world_size) % len(dataset)
        self.batches = [chunk for chunk in torch.tensor_split(indices, steps * world_size)[rank::world_size]
                        if len(chunk)]

    def due(self, step: int, last_step: int) -> bool:
        return step % self.every == 0 or step == last_step

    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        if self.autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, self.autocast_dtype)

    @torch.no_grad()
    def loss(self, model: torch.nn.Module) -> float:
        """Mean loss per sample over every rank's validation batches (a collective: every rank calls it)."""
        was_training = model.training
        model.eval()
        totals = torch.zeros(2, dtype=torch.float64, device=self.device)  # [loss * samples, samples]
        try:
            for indices in self.batches:
                inputs, targets = (t.to(self.device, non_blocking=True) for t in self.fetch[indices])
                with self._autocast():
                    loss = self.loss_fn(model(inputs), targets)
                totals[0] += loss.double() * len(inputs)
                totals[1] += len(inputs)
        finally:
            model.train(was_training)
        if self.world_size > 1:
            dist.all_reduce(totals)
        loss_sum, count = totals.tolist()
        return loss_sum / count
