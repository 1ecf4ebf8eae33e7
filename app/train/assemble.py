"""Assemble one training run, then train and summarise: the path runs one way, top to bottom.

    snapshot found? -> ranks agree on the start -> RunPlan (derived values, once) -> TrainingState
    (restored) -> DDP -> rank 0's outputs opened -> Trainer.train() -> outputs closed -> summary

`app.train.cli.main` validates input and joins the process group; this module builds what the
`Trainer` receives, so the loop itself touches no files and no environment.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.nn.parallel import DistributedDataParallel

from app.common.distributed import DistContext, all_gather_strings, hostname
from app.common.errors import CollectiveTimeout, UsageError
from app.common.signals import StopFlag
from app.common.typedconfig import to_dict
from app.common.watchdog import Verdict
from app.train import faults
from app.train.checkpoint import Checkpointer
from app.train.config import Config
from app.train.evaluation import Evaluator
from app.train.hangs import StepWatchdog
from app.train.loop import LoopSettings, Trainer, TrainResult
from app.train.optim import build_optimizer, build_scheduler
from app.train.outputs import RunOutputs
from app.train.plan import Position, RunPlan, resolve_precision
from app.train.resume import restore, snapshot_to_resume
from app.train.sharded_snapshots import ShardedCheckpointer
from app.train.sharding import checkpoint_activations, shard
from app.train.sinks import open_sinks
from app.train.state import TrainingState, position_in, refuse_changed_settings
from app.train.stats_hook import StepStats
from app.train.summary import memory_report, write_hang_summary, write_summary
from app.train.workloads import Workload, build_workload

log = logging.getLogger("app.train")


def run_training(config: Config, ctx: DistContext, run_dir: Path, snapshot_dir: Path,
                 store: dist.Store | None = None) -> TrainResult:
    torch.manual_seed(config.run.seed)  # model init: identical on every rank, before DDP's broadcast
    workload = build_workload(config)
    raw_model = workload.model.to(ctx.device)
    if config.train.activation_checkpointing:
        checkpoint_activations(raw_model, workload.shard_units)
    sharded = config.dist.strategy == "fsdp"
    if sharded:  # in place, before the optimizer sees the parameters (FSDP2 turns them into DTensors)
        shard(raw_model, workload.shard_units, reshard_after_forward=config.dist.reshard_after_forward is not False,
              precision=resolve_precision(config.train.precision, ctx.device), device=ctx.device)
    optimizer = build_optimizer(raw_model, config.optim, ctx.device)
    checkpointer: Checkpointer | ShardedCheckpointer = Checkpointer(snapshot_dir, config.snapshot.keep)
    if sharded:
        # Background writes talk over a gloo group of their own: a collective of the writer thread on the
        # training group could interleave with the loop's and pair the wrong calls across ranks.
        writer_group = dist.new_group(backend="gloo") if config.snapshot.background else None
        checkpointer = ShardedCheckpointer(snapshot_dir, config.snapshot.keep, writer_group)

    config_dict = to_dict(config)  # what the snapshot and config.yaml record
    reading = time.perf_counter()
    loaded = snapshot_to_resume(snapshot_dir, config.snapshot.keep, config.snapshot.resume, ctx.device)
    if loaded is not None:
        refuse_changed_settings(loaded[0].get("config", {}), config_dict, loaded[1])
    start = position_in(*loaded) if loaded is not None else Position()
    _agree_on_start(start, ctx)
    plan = RunPlan.build(config, len(workload.dataset), ctx.world_size, ctx.device, start,
                         workload.tokens_per_sample)
    if loaded is not None and start.step >= plan.total_steps:
        return _already_complete(loaded[1], start, run_dir, ctx)
    state = TrainingState(
        model=raw_model, optimizer=optimizer, scheduler=build_scheduler(optimizer, plan.total_steps, config.optim),
        scaler=torch.amp.GradScaler(ctx.device.type, enabled=plan.precision == "fp16"), plan=plan,
        config=config_dict,
    )
    if loaded is not None:
        restore(state, loaded, sharded)
        log.info("snapshot %s read and restored in %.2fs", loaded[1].name, time.perf_counter() - reading)

    step_stats = StepStats(ctx.world_size)
    ddp: torch.nn.Module = raw_model  # fsdp: the sharded model is the one to run
    if not sharded:
        ddp = DistributedDataParallel(
            raw_model,
            device_ids=[ctx.device.index] if ctx.device.type == "cuda" else None,
            gradient_as_bucket_view=True,  # gradients live in the all-reduce buckets: no copy, less memory
        )
        step_stats.attach(ddp)
    model = torch.compile(ddp) if config.train.compile else ddp

    hostnames = all_gather_strings(hostname(), ctx.device)
    outputs = None
    if ctx.is_main:
        outputs = RunOutputs.open(run_dir, state.config, hostnames, ctx, start_step=start.step,
                                  total_steps=plan.total_steps, log_every=config.run.log_every,
                                  progress_mode=config.run.progress, sinks=open_sinks(config, run_dir, start.step))
        log.info(
            "training %s: %d parameters, %d samples, world size %d on %d host(s), steps %d -> %d, device %s, "
            "backend %s, precision %s%s",
            config.workload.name, sum(p.numel() for p in raw_model.parameters()), len(workload.dataset),
            ctx.world_size, len(set(hostnames)), start.step, plan.total_steps, ctx.device, ctx.backend,
            plan.precision, ", compiled" if config.train.compile else "",
        )

    trainer = Trainer(
        state=state, ctx=ctx, model=model, dataset=workload.dataset, loss_fn=workload.loss_fn,
        checkpointer=checkpointer, stop=StopFlag().install(), step_stats=step_stats,
        settings=LoopSettings.from_config(config), outputs=outputs, fault=faults.from_environment(os.environ),
        evaluator=_evaluator(config, workload, ctx, plan),
    )
    watch = _watch_for_hangs(config, ctx, store, run_dir, state, outputs, trainer.write_finished_step, hostnames)
    if watch is not None:
        trainer.mark = watch.mark_step  # the loop marks its progress (step, phase) where the watchdog reads it
    try:
        result = trainer.train()
    except (dist.DistError, RuntimeError) as err:
        gave_up = _COLLECTIVE_FAILURE.search(str(err))  # a hang (or a death) no heartbeat named first
        if gave_up is None:
            raise
        raise CollectiveTimeout(
            f"a collective in step {state.position.step + 1} did not complete on rank {ctx.rank} ({gave_up[0]}); "
            f"if a rank died its own log says why, else check the network with python -m app.check"
        ) from None
    finally:
        if watch is not None:
            watch.stop()
        if outputs is not None:
            outputs.close()
    memory = memory_report(raw_model, optimizer, ctx.device)
    # The whole model, once: gathered from the shards (collective) under fsdp, as it is under ddp
    full = get_model_state_dict(raw_model, options=StateDictOptions(full_state_dict=True, cpu_offload=True)) \
        if sharded else raw_model.state_dict()
    if ctx.is_main:
        write_summary(run_dir, result, full, ctx, workload.tokens_per_sample, workload.flops_per_token, memory)
    del trainer, model, ddp  # a live DDP reducer while the process group is destroyed can abort the process
    return result


# gloo and NCCL errors that mean a collective gave up (raised through DDP's comm hook as RuntimeError).
_COLLECTIVE_FAILURE = re.compile(r"Timed out waiting \d+ms for \w+ operation to complete|Connection closed by peer"
                                 r"|Connection reset by peer|Watchdog caught collective operation timeout")


def _watch_for_hangs(config: Config, ctx: DistContext, store: dist.Store | None, run_dir: Path,
                     state: TrainingState, outputs: RunOutputs | None,
                     write_finished_step: Callable[[], None], rank_hosts: list[str]) -> StepWatchdog | None:
    """Heartbeats and a deadline on every rank of a multi-rank run (see app.common.watchdog); `rank_hosts`
    (each rank's host, gathered at start) names the nodes even when a rank's heartbeat never came."""
    if store is None or ctx.world_size == 1:
        return None
    deadline = config.dist.hang_timeout_s or config.dist.timeout_s / 2
    line = f"no progress for {deadline:.0f}s (dist.hang_timeout_s)"

    def on_hang(verdict: Verdict, reporter: bool) -> None:
        log.error("hang: %s; %s", verdict.sentence, line)
        if not reporter:
            return
        if outputs is not None:
            write_finished_step()
            outputs.flush()  # every step that completed, each line whole
        hosts = sorted({rank_hosts[rank] for rank in verdict.culprits})
        if not write_hang_summary(run_dir, f"hang: {verdict.sentence}; {line}", verdict.culprits, hosts,
                                  state.position.step, ctx.world_size, attempt_started=started):
            log.warning("not recording this hang: another rank of this attempt already did (summary.json)")

    def on_stall(verdict: Verdict) -> None:
        log.warning("%s: %s (network or fabric; run python -m app.check across the same nodes)", line,
                    verdict.sentence)

    started = time.time()
    return StepWatchdog(store, ctx.rank, ctx.world_size, hostname(), deadline, on_hang, on_stall=on_stall).start()


def _evaluator(config: Config, workload: Workload, ctx: DistContext, plan: RunPlan) -> Evaluator | None:
    if not config.train.eval_every:
        return None
    if workload.val_dataset is None or len(workload.val_dataset) == 0:
        raise UsageError(f"train.eval_every={config.train.eval_every}: workload {config.workload.name!r} has no "
                         "validation data (Workload.val_dataset); give it some, or set train.eval_every=0")
    return Evaluator(workload.val_dataset, batch_size=config.train.batch_size, steps=config.train.eval_steps,
                     rank=ctx.rank, world_size=ctx.world_size, device=ctx.device, loss_fn=workload.loss_fn,
                     autocast_dtype=plan.autocast_dtype)


def _already_complete(snapshot: Path, start: Position, run_dir: Path, ctx: DistContext) -> TrainResult:
    """A re-run of a finished run: say so and touch no file (its summary and metrics stay as they were)."""
    if ctx.is_main:
        log.info("nothing to do: the run in %s is complete at step %d (%s); to train further raise "
                 "train.max_steps or train.epochs, to start over give a new run.dir", run_dir, start.step, snapshot)
    return TrainResult(status="completed", position=start, final_loss=float("nan"), elapsed_s=0.0, samples=0,
                       steps_run=0)


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
