"""The training loop. It receives everything it uses (model, optimizer, data, snapshots, sinks)
and reads no environment variables and no files of its own.

One optimizer step = `grad_accum` micro-batches per rank; gradients are all-reduced once per step
(DDP `no_sync` on the others). Each micro-batch loss is weighted by its share of the step's samples,
so the update equals the global mean whatever the world size (2 ranks x batch b == 1 rank x 2b).
Per-step statistics (the loss) and the stop flag travel inside the gradient all-reduce
(`app.train.stats_hook`) and are read one step later, so the host never waits for the device to report
them; every rank stops after the same step when any rank is signalled.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from app.common.distributed import DistContext
from app.common.signals import StopFlag
from app.train.checkpoint import Checkpointer
from app.train.config import Config
from app.train.data import EpochPlan, make_loader
from app.train.evaluation import Evaluator
from app.train.faults import Fault
from app.train.metrics import Breakdown, StepClock, Stopwatch, peak_memory_gib
from app.train.outputs import RunOutputs
from app.train.plan import Position
from app.train.sharded_snapshots import ShardedCheckpointer
from app.train.sharding import gradient_sync, measure_and_clip
from app.train.state import TrainingState
from app.train.stats_hook import StepStats

log = logging.getLogger(__name__)


@dataclass
class TrainResult:
    status: str  # "completed" or "preempted"
    position: Position
    final_loss: float
    elapsed_s: float
    samples: int
    steps_run: int
    signal_name: str | None = None
    breakdown: Breakdown | None = None
    val_loss: float | None = None


@dataclass(frozen=True)
class LoopSettings:
    """The knobs the loop reads, taken from the config once."""

    snapshot_every: int
    grad_clip: float
    data_workers: int
    breakdown: bool
    background_snapshots: bool = True
    eval_every: int = 0

    @classmethod
    def from_config(cls, config: Config) -> LoopSettings:
        return cls(config.snapshot.every, config.optim.grad_clip, config.data.workers, config.run.breakdown,
                   config.snapshot.background, config.train.eval_every)


@dataclass
class _Pending:
    """One step's summed [loss * samples, stop flag] and gradient norm (possibly still on their way from the
    device)."""

    stats: torch.Tensor
    grad_norm: torch.Tensor
    end: Any  # StepClock.mark() after the step's update
    record: dict[str, Any] = field(default_factory=dict)
    reported: bool = False


def step_seed(seed: int, rank: int, step: int) -> int:
    """Seed for step `step` on `rank`: dropout and other randomness depend on nothing else, so a resumed
    run draws exactly what the uninterrupted run drew."""
    return (seed * 1_000_003 + rank * 7_919 + step * 104_729) % (2**63)


class Trainer:
    """Runs optimizer steps on `state` until the plan's last step or a stop signal.

    `model` is the wrapped model that runs forward/backward (DDP, maybe compiled); `state.model` is the
    module underneath, whose parameters the optimizer steps and the snapshot holds.
    """

    def __init__(
        self,
        *,
        state: TrainingState,
        ctx: DistContext,
        model: torch.nn.Module,
        dataset: Any,
        loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
        checkpointer: Checkpointer | ShardedCheckpointer,
        stop: StopFlag,
        step_stats: StepStats,
        settings: LoopSettings,
        outputs: RunOutputs | None = None,
        fault: Fault | None = None,
        evaluator: Evaluator | None = None,
    ) -> None:
        self.state, self.plan, self.ctx, self.settings = state, state.plan, ctx, settings
        self.model, self.dataset, self.loss_fn = model, dataset, loss_fn
        self.checkpointer, self.stop, self.step_stats, self.outputs = checkpointer, stop, step_stats, outputs
        self.device = ctx.device
        # Where this rank is (step being run, phase): the assembly points it at the hang watch of a multi-rank
        # run; free when unwatched.
        self.mark: Callable[[int, str], None] = lambda step, phase: None
        self.fault, self.evaluator = fault, evaluator
        self.last_val_loss: float | None = None
        self._pending: _Pending | None = None
        self.breakdown = Breakdown() if settings.breakdown else None
        sync = torch.cuda.synchronize if self.breakdown and self.device.type == "cuda" else None
        self.watch = Stopwatch(sync)
        self.last_loss = float("nan")
        self.clock = StepClock(self.device)
        # 0.0 and 1.0 made once: a new tensor per step is measurable on latency-bound steps.
        self._flag_values = (torch.zeros((), device=self.device), torch.ones((), device=self.device))
        self.last_snapshot_step = state.position.step if checkpointer.snapshots() else -1

    @property
    def position(self) -> Position:
        return self.state.position

    @position.setter
    def position(self, value: Position) -> None:
        self.state.position = value

    # -- the loop ---------------------------------------------------------------------------------

    def train(self) -> TrainResult:
        started, steps_run, samples = time.perf_counter(), 0, 0
        self.clock.restart()
        # The step whose results are read one step later; `write_finished_step` may report it too.
        self._pending = None
        stopping = False
        total_steps = self.plan.total_steps
        while self.position.step < total_steps and not stopping:
            plan = self._plan()
            if plan.num_steps == 0:  # epoch exhausted (or a remainder too small for one step)
                self.position = Position(self.position.step, self.position.epoch + 1, 0)
                continue
            batches = iter(make_loader(self.dataset, plan, self.ctx.rank, self.settings.data_workers, self._pin()))
            for index in range(plan.num_steps):
                if self.position.step >= total_steps:
                    break
                current = self._step(batches, plan, index)
                steps_run += 1
                samples += plan.global_samples(index)
                if self._pending is not None and self._finish(self._pending):
                    stopping = True
                self._pending = current
                if stopping:
                    break
                if self._evaluation_due(total_steps):
                    evaluating = time.perf_counter()
                    current.record["val_loss"] = self.evaluate()
                    current.record["eval_time_s"] = time.perf_counter() - evaluating
                every = self.settings.snapshot_every
                snapshot_due = bool(every) and self.position.step % every == 0
                if "val_loss" in current.record or snapshot_due:
                    # This step's line first: a snapshot published before its steps' metrics would leave
                    # a hole after a kill (the resumed run starts after the snapshot).
                    stopping = self._finish(current)
                    self._pending = None
                    if snapshot_due:
                        self.snapshot()
                    self.clock.restart()  # the next step's time is the step's, not the evaluation's or snapshot's
                    if stopping:
                        break
            if not stopping and self.position.offset >= plan.num_samples:
                self.position = Position(self.position.step, self.position.epoch + 1, 0)
        if self._pending is not None and self._finish(self._pending):
            stopping = stopping or self.position.step < total_steps
        if self.last_snapshot_step != self.position.step:
            self.snapshot(last=True)
        self.checkpointer.wait()  # the run ends with its snapshots on disk
        self._finish_breakdown(steps_run)
        return TrainResult(
            status="preempted" if stopping else "completed",
            position=self.position,
            final_loss=self.last_loss,
            elapsed_s=time.perf_counter() - started,
            samples=samples,
            steps_run=steps_run,
            signal_name=self.stop.signal_name or ("a signal to another rank" if stopping else None),
            breakdown=self.breakdown,
            val_loss=self.last_val_loss,
        )

    def _plan(self) -> EpochPlan:
        return self.plan.epoch(self.position.epoch, self.position.offset)

    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        dtype = self.plan.autocast_dtype
        if dtype is None:  # fp32: skip the context manager's per-call cost
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype)

    @property
    def _stop_flag(self) -> torch.Tensor:
        return self._flag_values[self.stop.requested]

    def _reseed(self, seed: int) -> None:
        # The generators themselves: torch.manual_seed also visits every backend, 100x slower.
        torch.default_generator.manual_seed(seed)
        if self.device.type == "cuda":
            torch.cuda.default_generators[self.device.index].manual_seed(seed)

    def _pin(self) -> bool:
        return self.device.type == "cuda"

    def _step(self, batches: Any, plan: EpochPlan, index: int) -> _Pending:
        step = self.position.step + 1
        self.mark(step, "data")
        if self.fault is not None:
            self.fault.at_step(self.ctx.rank, step)
        self.watch.lap()
        self._reseed(step_seed(self.plan.seed, self.ctx.rank, self.position.step))
        micro_batches = [next(batches) for _ in range(plan.grad_accum)]
        data_s = self.watch.lap()
        self.mark(step, "forward/backward")

        global_samples = plan.global_samples(index)
        loss_sum: torch.Tensor | None = None
        for i, (inputs, targets) in enumerate(micro_batches):
            inputs = inputs.to(self.device, non_blocking=True)
            targets = targets.to(self.device, non_blocking=True)
            weight = len(inputs) * self.ctx.world_size / global_samples
            last = i == len(micro_batches) - 1
            with gradient_sync(getattr(self.model, "_orig_mod", self.model), last):  # compiled: the module inside
                with self._autocast():
                    loss = self.loss_fn(self.model(inputs), targets)
                part = loss.detach().float() * len(inputs)
                loss_sum = part if loss_sum is None else loss_sum + part
                if last:  # summed across ranks together with this backward's gradients
                    self.step_stats.submit(torch.stack([loss_sum, self._stop_flag]))
                self.state.scaler.scale(loss * weight).backward()
        stats = self.step_stats.take()
        if self.device.type == "cuda":  # copy off the device without waiting; read next step
            stats = stats.to("cpu", non_blocking=True)
        compute_s = self.watch.lap()
        self.mark(step, "optimizer")

        state = self.state
        state.scaler.unscale_(state.optimizer)  # the norm of the true gradients (a no-op without fp16)
        grad_norm = measure_and_clip(state.model, self.settings.grad_clip)
        if self.device.type == "cuda":
            grad_norm = grad_norm.to("cpu", non_blocking=True)
        state.scaler.step(state.optimizer)
        state.scaler.update()
        state.optimizer.zero_grad(set_to_none=True)
        lr = state.optimizer.param_groups[0]["lr"]
        state.scheduler.step()
        optimizer_s = self.watch.lap()
        if self.breakdown is not None:
            self.breakdown.add(data=data_s, compute=compute_s, optimizer=optimizer_s)

        self.position = Position(self.position.step + 1, self.position.epoch, plan.offset_after(index))
        # Every epoch uses each sample once, so the position says how much data the run has seen.
        seen = self.position.epoch * self.plan.dataset_size + self.position.offset
        record = {"step": self.position.step, "epoch": self.position.epoch, "lr": lr, "samples": seen,
                  "global_samples": global_samples}
        if self.plan.tokens_per_sample:
            record["tokens"] = seen * self.plan.tokens_per_sample
        return _Pending(stats, grad_norm, self.clock.mark(), record)

    def _finish(self, pending: _Pending) -> bool:
        """Wait for a step's statistics, report them; True when some rank asked to stop."""
        pending.reported = True
        step_time = self.clock.seconds_to(pending.end)  # also waits for the step's statistics
        loss_sum, stop = pending.stats.tolist()
        record = pending.record
        global_samples = record.pop("global_samples")
        record["loss"] = self.last_loss = loss_sum / global_samples
        record["grad_norm"] = float(pending.grad_norm)
        record["step_time_s"] = step_time
        record["samples_per_s"] = global_samples / step_time
        if self.plan.tokens_per_sample:
            record["tokens_per_s"] = global_samples * self.plan.tokens_per_sample / step_time
        record["peak_memory_gib"] = peak_memory_gib(self.device)
        record["time"] = round(time.time(), 3)
        if self.outputs is not None:
            self.outputs.step(record)
        return stop > 0

    def write_finished_step(self) -> None:
        """Report the last step whose results are in but not yet written (from the hang watch's thread,
        while this rank waits in the next step's collective): every completed step is in metrics.jsonl."""
        pending = self._pending
        if pending is not None and not pending.reported and self.clock.reached(pending.end):
            self._finish(pending)

    def _finish_breakdown(self, steps_run: int) -> None:
        """Split DDP's measured non-overlapped all-reduce time out of the forward/backward time."""
        if self.breakdown is None:
            return
        self.breakdown.steps = steps_run
        logging_data = getattr(self.model, "_get_ddp_logging_data", dict)()
        exposed_ns = logging_data.get("avg_backward_comm_time", 0) - logging_data.get(
            "avg_backward_compute_comm_overlap_time", 0
        )
        exposed_s = max(0.0, exposed_ns / 1e9) * steps_run
        exposed_s = min(exposed_s, self.breakdown.seconds["compute"])
        self.breakdown.seconds["compute"] -= exposed_s
        self.breakdown.seconds["comm_wait"] += exposed_s

    # -- evaluation -------------------------------------------------------------------------------

    def _evaluation_due(self, total_steps: int) -> bool:
        every = self.settings.eval_every
        step = self.position.step
        return self.evaluator is not None and every > 0 and (step % every == 0 or step == total_steps)

    def evaluate(self) -> float:
        """Validation loss of the model as it stands (every rank, at the same step)."""
        self.mark(self.position.step, "evaluation")
        self.last_val_loss = self.evaluator.loss(self.state.model)  # type: ignore[union-attr]
        return self.last_val_loss

    # -- snapshots --------------------------------------------------------------------------------

    def snapshot(self, last: bool = False) -> None:
        """Rank 0 writes the training state, from a thread unless asked otherwise or this is the run's last
        snapshot; the other ranks go on to the next collective. Sharded (fsdp): every rank writes its shard,
        from a thread as well."""
        self.last_snapshot_step = step = self.position.step
        sharded = isinstance(self.checkpointer, ShardedCheckpointer)
        if not (sharded or self.ctx.is_main):
            return
        self.mark(step, "snapshot")
        if self.outputs is not None:
            self.outputs.flush()  # every step up to the snapshot is on disk before the snapshot is
        if self.settings.background_snapshots and not last:
            # The loop waits for the copy off the training path only; the writer logs both times.
            if sharded:
                self.checkpointer.save_in_background(*self.state.sharded_state(), step)  # type: ignore[call-arg]
            else:
                self.checkpointer.save_in_background(self.state.state_dict(), step)  # type: ignore[call-arg]
        else:
            self.checkpointer.wait()
            started = time.perf_counter()
            path = (self.checkpointer.save(*self.state.sharded_state(), step) if sharded  # type: ignore[call-arg]
                    else self.checkpointer.save(self.state.state_dict(), step))  # type: ignore[call-arg]
            if self.ctx.is_main:
                log.info("snapshot written: %s (step %d, %.1fs%s)", path, step, time.perf_counter() - started,
                         ", sharded" if sharded else "")
        self.clock.restart()  # the next step's time is the step's, not the snapshot's
