"""Per-step statistics ride along with DDP's gradient all-reduce: no extra collective per step.

Every rank needs the global loss (for metrics) and must agree on whether to stop (a signal may
reach one rank only). A separate all-reduce per step doubles the number of collectives, which on a
latency-bound step (small model, gloo) costs more than the step itself. Instead this DDP comm hook
appends the few statistic values to the last gradient bucket, all-reduces the two together, and
hands the summed statistics back. Gradients are averaged exactly as DDP's default hook does.
"""

# No `from __future__ import annotations` here: DDP checks the hook's annotations as real objects.
import torch
import torch.distributed as dist


class StepStats:
    """Statistics to sum across ranks with the next synchronising backward pass."""

    def __init__(self, world_size: int) -> None:
        self.world_size = world_size
        self.attached = False  # without a DDP model to ride along with, take() reduces them itself (fsdp)
        self.pending: torch.Tensor | None = None  # set before the backward that all-reduces
        self.reduced: torch.Tensor | None = None  # the sums, once that backward has finished

    def attach(self, ddp_model: "torch.nn.parallel.DistributedDataParallel") -> None:
        ddp_model.register_comm_hook(self, _allreduce_gradients_and_stats)
        self.attached = True

    def submit(self, values: torch.Tensor) -> None:
        self.pending, self.reduced = values, None

    def take(self) -> torch.Tensor:
        """The summed statistics of the last synchronising backward pass (unattached: of the last submit,
        summed here with one small all-reduce)."""
        if not self.attached and self.pending is not None:
            self.reduced, self.pending = self.pending.clone(), None
            if dist.is_initialized() and self.world_size > 1:
                dist.all_reduce(self.reduced)
        if self.reduced is None:
            raise RuntimeError("no statistics were reduced: submit() them before the synchronising backward")
        reduced, self.reduced = self.reduced, None
        return reduced


def _allreduce_gradients_and_stats(state: StepStats, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    buffer = bucket.buffer()
    if not bucket.is_last() or state.pending is None:
        return dist.all_reduce(buffer, async_op=True).get_future().then(
            lambda fut: fut.value()[0].div_(state.world_size)
        )
    size = buffer.numel()
    combined = torch.cat([buffer, state.pending.to(buffer.dtype)])
    state.pending = None

    def split(fut: torch.futures.Future[list[torch.Tensor]]) -> torch.Tensor:
        total = fut.value()[0]
        state.reduced = total[size:].clone()
        return buffer.copy_(total[:size]).div_(state.world_size)

    return dist.all_reduce(combined, async_op=True).get_future().then(split)
