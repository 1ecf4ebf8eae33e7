"""What one line of metrics.jsonl holds: `StepRecord`, its fields in the order of the line's keys, and
`build_step_record`, the one function that makes it from a step's measurements.

Rank 0 writes one line per optimizer step, once that step's figures are back from the device
(app/train/step_reports.py); the TensorBoard and W&B sinks and the progress display get the same keys.
An optional field (None) is left out of the line. Readers: app/host/report, app/host/diagnose, bench/.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Protocol

from app.train.plan import Position


@dataclass(frozen=True)
class Evaluation:
    """A validation pass run after a step: its loss and how long it took."""

    val_loss: float
    seconds: float


@dataclass(frozen=True)
class StepRecord:
    """One optimizer step's figures, as rank 0 writes them to metrics.jsonl."""

    step: int
    """The optimizer step, counted from 1 across the whole run (resumed attempts go on counting)."""
    epoch: int
    """The epoch the run is in after this step, counted from 0 (the next one when the step ended an epoch)."""
    lr: float
    """The learning rate this step's update used (the scheduler steps after it)."""
    samples: int
    """Training samples seen by the run so far, every rank together."""
    tokens: int | None
    """Tokens seen so far (`samples` x tokens per sample); None for a workload without tokens."""
    val_loss: float | None
    """Validation loss after this step's update; None on a step without evaluation (`train.eval_every`)."""
    eval_time_s: float | None
    """Seconds the validation pass took; None with `val_loss`."""
    loss: float
    """Training loss of the step: the mean over its samples on every rank."""
    grad_norm: float
    """Total gradient norm before clipping (`optim.grad_clip`)."""
    step_time_s: float
    """Seconds from the end of the previous step's update to the end of this one's, on the device's timeline."""
    samples_per_s: float
    """Samples of this step, every rank together, per `step_time_s`."""
    tokens_per_s: float | None
    """Tokens of this step per `step_time_s`; None for a workload without tokens."""
    peak_memory_gib: float
    """Rank 0's peak memory so far in GiB: the CUDA allocator's high-water mark, or the peak resident set on CPU."""
    time: float
    """Wall-clock time (Unix seconds, to the millisecond) when rank 0 wrote the line."""

    def as_json(self) -> dict[str, Any]:
        """The metrics line: every field that is not None, in field order."""
        return {field.name: value for field in fields(self) if (value := getattr(self, field.name)) is not None}


class RecordPlan(Protocol):
    """What the builder needs of the run's plan (app.train.plan.RunPlan)."""

    dataset_size: int
    tokens_per_sample: int


def build_step_record(plan: RecordPlan, *, step: int, position: Position, lr: float, global_samples: int,
                      loss_sum: float, grad_norm: float, step_time_s: float, peak_memory_gib: float,
                      wall_time: float, evaluation: Evaluation | None = None) -> StepRecord:
    """The record of `step`: `position` is where it left the run, `global_samples` its samples across ranks,
    `loss_sum` the sum over them of loss x samples, `wall_time` time.time() when it is written."""
    # Every epoch uses each sample once, so the position says how much data the run has seen.
    seen = position.epoch * plan.dataset_size + position.offset
    tokens_per_sample = plan.tokens_per_sample or None
    return StepRecord(
        step=step,
        epoch=position.epoch,
        lr=lr,
        samples=seen,
        tokens=seen * tokens_per_sample if tokens_per_sample else None,
        val_loss=evaluation.val_loss if evaluation else None,
        eval_time_s=evaluation.seconds if evaluation else None,
        loss=loss_sum / global_samples,
        grad_norm=grad_norm,
        step_time_s=step_time_s,
        samples_per_s=global_samples / step_time_s,
        tokens_per_s=global_samples * tokens_per_sample / step_time_s if tokens_per_sample else None,
        peak_memory_gib=peak_memory_gib,
        time=round(wall_time, 3),
    )
