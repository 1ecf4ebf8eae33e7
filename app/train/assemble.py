"""Assemble one training run: workload, optimizer, snapshot resume, DDP, sinks; then train and summarise.

`app.train.main` validates input and joins the process group; this module builds the pieces that
the `Trainer` receives, so the trainer itself touches no files and no environment.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import yaml
from torch.nn.parallel import DistributedDataParallel

from app.common.distributed import DistContext, all_gather_strings, hostname
from app.common.errors import UsageError
from app.common.signals import StopFlag
from app.common.typedconfig import to_dict
from app.train.atomic import write_text_atomic
from app.train.checkpoint import Checkpointer
from app.train.config import Config
from app.train.loop import Position, Trainer, TrainResult, total_steps_for
from app.train.manifest import build_manifest
from app.train.metrics import JsonLines, Progress, format_rate
from app.train.optim import build_optimizer, build_scheduler
from app.train.stats_hook import StepStats
from app.train.workloads import build_workload

log = logging.getLogger("app.train")

#: Dense bf16 peak FLOP/s per GPU (datasheets), for model FLOPs utilisation.
PEAK_BF16_FLOPS = {"H100": 989e12, "H200": 989e12, "GH200": 989e12, "A100": 312e12}


def run_training(config: Config, ctx: DistContext, run_dir: Path, snapshot_dir: Path) -> TrainResult:
    torch.manual_seed(config.run.seed)  # model init: identical on every rank, before DDP's broadcast
    workload = build_workload(config)
    raw_model = workload.model.to(ctx.device)
    optimizer = build_optimizer(raw_model, config.optim, ctx.device)
    scaler = torch.amp.GradScaler(ctx.device.type, enabled=_precision(config, ctx) == "fp16")
    checkpointer = Checkpointer(snapshot_dir, config.snapshot.keep)

    start, snapshot = Position(), None
    loaded = checkpointer.load_latest(ctx.device) if config.snapshot.resume else None
    if loaded is not None:
        snapshot, path = loaded
        start = _restore(snapshot, path, raw_model, optimizer, scaler, ctx, config)
    _agree_on_start(start, ctx)

    total_steps = total_steps_for(config, len(workload.dataset), ctx.world_size, start)
    scheduler = build_scheduler(optimizer, total_steps, config.optim)
    if snapshot is not None:
        scheduler.load_state_dict(snapshot["scheduler"])
        for group, lr in zip(optimizer.param_groups, scheduler.get_last_lr(), strict=True):
            group["lr"] = lr  # the scheduler's constructor reset it to the step-0 value

    ddp = DistributedDataParallel(
        raw_model,
        device_ids=[ctx.device.index] if ctx.device.type == "cuda" else None,
        gradient_as_bucket_view=True,  # gradients live in the all-reduce buckets: no copy, less memory
    )
    step_stats = StepStats(ctx.world_size)
    step_stats.attach(ddp)
    model = torch.compile(ddp) if config.train.compile else ddp

    hostnames = all_gather_strings(hostname(), ctx.device)
    metrics = progress = None
    if ctx.is_main:
        _write_run_files(run_dir, config, hostnames, ctx)
        metrics = JsonLines(_metrics_truncated_to(run_dir / "metrics.jsonl", start.step))
        progress = Progress(total_steps, config.run.log_every, config.run.progress)
        log.info(
            "training %s: %d parameters, %d samples, world size %d on %d host(s), steps %d -> %d, device %s",
            config.workload.name, sum(p.numel() for p in raw_model.parameters()), len(workload.dataset),
            ctx.world_size, len(set(hostnames)), start.step, total_steps, ctx.device,
        )

    trainer = Trainer(
        config=config, ctx=ctx, model=model, raw_model=raw_model, optimizer=optimizer, scheduler=scheduler,
        scaler=scaler, dataset=workload.dataset, loss_fn=workload.loss_fn, checkpointer=checkpointer,
        stop=StopFlag().install(), step_stats=step_stats, total_steps=total_steps, start=start,
        tokens_per_sample=workload.tokens_per_sample, metrics=metrics, progress=progress,
    )
    try:
        result = trainer.train()
    finally:
        if metrics is not None:
            metrics.close()
    if ctx.is_main:
        summary = _summary(result, raw_model, ctx, workload.tokens_per_sample, workload.flops_per_token)
        write_text_atomic(run_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
        _print_summary(summary, result)
    del trainer, model, ddp  # a live DDP reducer while the process group is destroyed can abort the process
    return result


def _precision(config: Config, ctx: DistContext) -> str:
    if config.train.precision != "auto":
        return config.train.precision
    return "bf16" if ctx.device.type == "cuda" else "fp32"


def _restore(snapshot: dict[str, Any], path: Path, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
             scaler: torch.amp.GradScaler, ctx: DistContext, config: Config) -> Position:
    try:
        model.load_state_dict(snapshot["model"])
        optimizer.load_state_dict(snapshot["optimizer"])
    except (RuntimeError, ValueError, KeyError) as err:
        first = str(err).strip().splitlines()[0][:160]
        raise UsageError(
            f"snapshot {path} does not fit this model/optimizer ({first}); resume with the config it was written "
            f"with, or start fresh with snapshot.resume=false or another snapshot.dir"
        ) from None
    scaler.load_state_dict(snapshot["scaler"])
    position = Position(**snapshot["position"])
    if snapshot["world_size"] != ctx.world_size:
        new_step = ctx.world_size * config.train.batch_size * config.train.grad_accum
        log.warning(
            "resuming %s written with world size %d on world size %d: samples per step change from %d to %d; "
            "the data order continues at sample %d of epoch %d (no sample repeated or skipped), but the run "
            "will not match an uninterrupted one bit for bit",
            path, snapshot["world_size"], ctx.world_size, snapshot["samples_per_step"], new_step,
            position.offset, position.epoch,
        )
    else:
        log.info("resuming from %s at step %d (epoch %d, sample %d)",
                 path, position.step, position.epoch, position.offset)
    return position


def _agree_on_start(start: Position, ctx: DistContext) -> None:
    """Every rank must resume from the same step: a run directory that is not shared across nodes
    would otherwise let rank 0 resume while others start over, and training would silently diverge."""
    steps = torch.tensor([start.step, -start.step], device=ctx.device)
    dist.all_reduce(steps, op=dist.ReduceOp.MAX)
    highest, lowest = int(steps[0]), -int(steps[1])
    if highest != lowest:
        raise UsageError(
            f"ranks found different snapshots (steps {lowest} and {highest}); run.dir and snapshot.dir must be "
            f"on a filesystem every node shares, e.g. run.dir=$SCRATCH/runs/myrun"
        )


def _write_run_files(run_dir: Path, config: Config, hostnames: list[str], ctx: DistContext) -> None:
    manifest = build_manifest(to_dict(config), hostnames, ctx.launcher, ctx.backend)
    write_text_atomic(run_dir / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    write_text_atomic(run_dir / "config.yaml", yaml.safe_dump(to_dict(config), sort_keys=False))


def _metrics_truncated_to(path: Path, step: int) -> Path:
    """Drop records of steps after the snapshot we resume from: they are about to be run again."""
    if path.exists():
        kept = [line for line in path.read_text().splitlines() if line and json.loads(line)["step"] <= step]
        write_text_atomic(path, "".join(line + "\n" for line in kept))
    return path


def params_sha256(model: torch.nn.Module) -> str:
    """One digest of every parameter and buffer, bit for bit: equal digests mean identical models."""
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def _summary(result: TrainResult, model: torch.nn.Module, ctx: DistContext, tokens_per_sample: int,
             flops_per_token: float) -> dict[str, Any]:
    elapsed = max(result.elapsed_s, 1e-9)
    summary: dict[str, Any] = {
        "status": result.status,
        "signal": result.signal_name,
        "step": result.position.step,
        "epoch": result.position.epoch,
        "final_loss": result.final_loss,
        "params_sha256": params_sha256(model),
        "world_size": ctx.world_size,
        "steps_run": result.steps_run,
        "elapsed_s": round(elapsed, 3),
        "samples_per_s": result.samples / elapsed,
    }
    if tokens_per_sample:
        summary["tokens_per_s"] = result.samples * tokens_per_sample / elapsed
        peak = _peak_flops(ctx)
        if peak and flops_per_token:
            summary["mfu"] = summary["tokens_per_s"] / ctx.world_size * flops_per_token / peak
    if result.breakdown is not None:
        summary["breakdown_ms_per_step"] = result.breakdown.per_step_ms()
    return summary


def _peak_flops(ctx: DistContext) -> float | None:
    if ctx.device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(ctx.device)
    longest_first = sorted(PEAK_BF16_FLOPS.items(), key=lambda kv: -len(kv[0]))  # "GH200" before "H200"
    return next((peak for key, peak in longest_first if key in name), None)


def _print_summary(summary: dict[str, Any], result: TrainResult) -> None:
    line = (
        f"{summary['status']} at step {summary['step']} (epoch {summary['epoch']}): loss {summary['final_loss']:.4f}, "
        f"{format_rate(summary['samples_per_s'])} samples/s"
    )
    if "tokens_per_s" in summary:
        line += f", {format_rate(summary['tokens_per_s'])} tokens/s"
    if "mfu" in summary:
        line += f", MFU {100 * summary['mfu']:.1f}%"
    log.info("%s, %d steps in %.1fs on %d rank(s)",
             line, summary["steps_run"], summary["elapsed_s"], summary["world_size"])
    if result.breakdown is not None:
        log.info("%s", result.breakdown.summary_line())
    if result.status == "preempted":
        log.warning("stopped by %s after a snapshot at step %d; run the same command again to resume",
                    result.signal_name, summary["step"])
