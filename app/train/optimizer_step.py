"""One optimizer step on one rank: data, forward/backward over `grad_accum` micro-batches, update.

Gradients are all-reduced once per step (DDP `no_sync` on the other micro-batches). Each micro-batch
loss is weighted by its share of the step's samples, so the update equals the global mean whatever the
world size (2 ranks x batch b == 1 rank x 2b). The step's loss and the stop flag travel inside the
gradient all-reduce (`app.train.stats_hook`) and are read one step later (`app.train.step_reports`),
so the host never waits for the device; every rank stops after the same step when any rank is signalled.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch

from app.common import injected_faults
from app.common.distributed import DistContext
from app.common.signals import StopFlag
from app.train.metrics import Breakdown, StepClock, Stopwatch
from app.train.sharding import Gathering, gradient_sync, measure_and_clip
from app.train.state import TrainingState
from app.train.stats_hook import StepStats
from app.train.step_reports import StepResult
from app.train.steps import Step

#: Where a rank is, for the hang watchdog: (step, phase); free when unwatched.
Progress = Callable[[int, str], None]


def step_seed(seed: int, rank: int, step: int) -> int:
    """Seed for step `step` on `rank`: dropout and other randomness depend on nothing else, so a resumed
    run draws exactly what the uninterrupted run drew."""
    return (seed * 1_000_003 + rank * 7_919 + step * 104_729) % (2**63)


class OptimizerStep:
    """`model` is the wrapped model that runs forward/backward (DDP, maybe compiled); `state.model` is the
    module underneath, whose parameters the optimizer steps and the snapshot holds."""

    def __init__(self, state: TrainingState, model: torch.nn.Module, loss_fn: Callable[..., torch.Tensor],
                 ctx: DistContext, *, step_stats: StepStats, stop: StopFlag,
                 progress: Progress = lambda step, phase: None, gathering: Gathering | None = None) -> None:
        self.state, self.plan, self.model, self.loss_fn = state, state.plan, model, loss_fn
        self.rank, self.world_size, self.device = ctx.rank, ctx.world_size, ctx.device
        self.step_stats, self.stop, self.progress = step_stats, stop, progress
        self.gathering = gathering or Gathering()  # fsdp's defaults (only fsdp reads it)
        self.breakdown = Breakdown() if self.plan.breakdown else None
        self.watch = Stopwatch(torch.cuda.synchronize if self.breakdown and self.device.type == "cuda" else None)
        # 0.0 and 1.0 made once: a new tensor per step is measurable on latency-bound steps.
        self._flag_values = (torch.zeros((), device=self.device), torch.ones((), device=self.device))

    def __call__(self, step: Step, clock: StepClock) -> StepResult:
        self.progress(step.number, "data")
        injected_faults.point("train.step", step=step.number)  # test-only; inert in a real run
        self.watch.lap()
        self._reseed(step_seed(self.plan.seed, self.rank, step.number - 1))
        micro_batches = [next(step.batches) for _ in range(self.plan.grad_accum)]
        data_s = self.watch.lap()

        self.progress(step.number, "forward/backward")
        stats = self._forward_backward(micro_batches, step.global_samples)
        compute_s = self.watch.lap()

        self.progress(step.number, "optimizer")
        grad_norm, lr = self._update()
        optimizer_s = self.watch.lap()
        if self.breakdown is not None:
            self.breakdown.add(data=data_s, compute=compute_s, optimizer=optimizer_s)

        self.state.position = step.position_after
        return StepResult(stats, grad_norm, clock.mark(), step=step.number, position=step.position_after, lr=lr,
                          global_samples=step.global_samples)

    def _forward_backward(self, micro_batches: list[Any], global_samples: int) -> torch.Tensor:
        loss_sum: torch.Tensor | None = None
        module = getattr(self.model, "_orig_mod", self.model)  # compiled: the module inside
        with self.gathering.step(module, len(micro_batches)):
            for i, (inputs, targets) in enumerate(micro_batches):
                inputs = inputs.to(self.device, non_blocking=True)
                targets = targets.to(self.device, non_blocking=True)
                weight = len(inputs) * self.world_size / global_samples
                last = i == len(micro_batches) - 1
                with gradient_sync(module, last):
                    with self._autocast():
                        loss = self.loss_fn(self.model(inputs), targets)
                    part = loss.detach().float() * len(inputs)
                    loss_sum = part if loss_sum is None else loss_sum + part
                    if last:  # summed across ranks together with this backward's gradients
                        self.step_stats.submit(torch.stack([loss_sum, self._flag_values[self.stop.requested]]))
                    self.state.scaler.scale(loss * weight).backward()
        stats = self.step_stats.take()
        if self.device.type == "cuda":  # copy off the device without waiting; read next step
            stats = stats.to("cpu", non_blocking=True)
        return stats

    def _update(self) -> tuple[torch.Tensor, float]:
        state = self.state
        state.scaler.unscale_(state.optimizer)  # the norm of the true gradients (a no-op without fp16)
        grad_norm = measure_and_clip(state.model, self.plan.grad_clip)
        if self.device.type == "cuda":
            grad_norm = grad_norm.to("cpu", non_blocking=True)
        state.scaler.step(state.optimizer)
        state.scaler.update()
        state.optimizer.zero_grad(set_to_none=True)
        lr = state.optimizer.param_groups[0]["lr"]
        state.scheduler.step()
        return grad_norm, lr

    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        dtype = self.plan.autocast_dtype
        if dtype is None:  # fp32: skip the context manager's per-call cost
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype)

    def _reseed(self, seed: int) -> None:
        # The generators themselves: torch.manual_seed also visits every backend, 100x slower.
        torch.default_generator.manual_seed(seed)
        if self.device.type == "cuda":
            torch.cuda.default_generators[self.device.index].manual_seed(seed)

    def finish_breakdown(self, steps_run: int) -> Breakdown | None:
        """Split DDP's measured non-overlapped all-reduce time out of the forward/backward time."""
        if self.breakdown is None:
            return None
        self.breakdown.steps = steps_run
        logging_data = getattr(self.model, "_get_ddp_logging_data", dict)()
        exposed_ns = logging_data.get("avg_backward_comm_time", 0) - logging_data.get(
            "avg_backward_compute_comm_overlap_time", 0
        )
        exposed_s = max(0.0, exposed_ns / 1e9) * steps_run
        exposed_s = min(exposed_s, self.breakdown.seconds["compute"])
        self.breakdown.seconds["compute"] -= exposed_s
        self.breakdown.seconds["comm_wait"] += exposed_s
        return self.breakdown
