"""Assemble one training run, then train and summarise: the path runs one way, top to bottom.

    build the model -> resume or start (snapshot found? ranks agree; RunPlan, TrainingState restored)
    -> wrap it (DDP) -> open rank 0's outputs -> Trainer.train() -> finish (summary)

`app.train.cli.main` validates input and joins the process group; this module builds what the
`Trainer` receives, so the loop itself touches no files and no environment.
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
from torch.nn.parallel import DistributedDataParallel

from app.common import injected_faults
from app.common.distributed import DistContext, all_gather_strings, hostname
from app.common.signals import StopFlag
from app.common.typedconfig import to_dict
from app.common.watchdog import Verdict
from app.host.common.errors import CollectiveTimeout, StorageError, UsageError
from app.train.config import Config
from app.train.evaluation import Evaluator
from app.train.hangs import StepWatchdog
from app.train.loop import Trainer, TrainResult
from app.train.optim import build_optimizer, build_scheduler
from app.train.optimizer_step import OptimizerStep
from app.train.outputs import RunOutputs, run_files_written
from app.train.plan import Position, RunPlan, resolve_precision, unreachable_settings
from app.train.sharding import Gathering, ShardUnits, checkpoint_activations, compile_blocks, shard
from app.train.sinks import open_sinks
from app.train.snapshot import Snapshot, SnapshotManager, position_of, refuse_changed_settings, refuse_foreign_classes
from app.train.state import TrainingState
from app.train.stats_hook import StepStats
from app.train.step_reports import StepReports
from app.train.steps import remaining_steps
from app.train.summary import memory_report, write_hang_summary, write_summary
from app.train.workloads import Workload, build_workload

log = logging.getLogger("app.train")


def run_training(config: Config, ctx: DistContext, run_dir: Path, snapshot_dir: Path,
                 store: dist.Store | None = None) -> TrainResult:
    """Train as `config` says (resuming from `snapshot_dir` where a snapshot is), then write the summary.
    `store`: the rendezvous store, for the hang watchdog's heartbeats (None: unwatched)."""
    refuse_foreign_classes()  # DCP's plans between ranks: no class beyond theirs is unpickled (peer_pickles.py)
    workload, optimizer = build_model(config, ctx)
    sharded = config.dist.strategy == "fsdp"
    snapshots = SnapshotManager.for_run(config, snapshot_dir, sharded=sharded, is_main=ctx.is_main)
    state, snapshot = resume_or_start(config, ctx, workload, optimizer, snapshots)
    if state is None:  # the snapshot is at the run's last step
        return _already_complete(snapshot, run_dir, ctx)
    evaluator = _evaluator(config, workload, ctx, state.plan)  # bad input stops here, before any thread starts
    injected_faults.arm("train", os.environ, ctx.rank)  # test-only faults a test asked for; inert in a real run
    model, step_stats = wrap(config, ctx, state.model, workload.shard_units, sharded)
    hostnames = all_gather_strings(hostname(), ctx.device)
    outputs = open_outputs(config, ctx, run_dir, state, workload, hostnames) if ctx.is_main else None
    reports = StepReports(state.plan, ctx.device, outputs, start_step=state.position.step)
    watchdog = _watch_for_hangs(config, ctx, store, run_dir, state, reports, hostnames)
    stop = StopFlag().install()
    progress = watchdog.mark_step if watchdog is not None else _unwatched
    optimizer_step = OptimizerStep(state, model, workload.loss_fn, ctx, step_stats=step_stats, stop=stop,
                                   progress=progress, gathering=gathering(config))
    trainer = Trainer(state=state, steps=remaining_steps(state, workload.dataset, ctx.rank, ctx.device.type == "cuda"),
                      optimizer_step=optimizer_step, reports=reports, snapshots=snapshots, evaluator=evaluator,
                      stop=stop)
    try:
        result = trainer.train()
        if watchdog is not None:
            watchdog.finish()  # rank 0 may still write the last snapshot: this rank is done, not hung
    except (dist.DistError, RuntimeError) as err:
        gave_up = _COLLECTIVE_FAILURE.search(str(err))  # a hang (or a death) no heartbeat named first
        if gave_up is None:
            raise
        raise CollectiveTimeout(
            f"a collective in step {state.position.step + 1} did not complete on rank {ctx.rank} ({gave_up[0]}); "
            f"if a rank died its own log says why, else check the network with python -m app.check"
        ) from None
    finally:
        if watchdog is not None:
            watchdog.stop()
        if outputs is not None:
            outputs.close()
    finish(run_dir, ctx, state, workload, result)
    leave_together(ctx)
    del trainer, optimizer_step, model  # a live DDP reducer while the process group is destroyed can abort the process
    return result


def build_model(config: Config, ctx: DistContext) -> tuple[Workload, torch.optim.Optimizer]:
    """The workload with its model on this rank's device (sharded under fsdp), and its optimizer."""
    torch.manual_seed(config.run.seed)  # model init: identical on every rank, before DDP's broadcast
    if config.run.deterministic:
        use_deterministic_kernels()
    workload = build_workload(config)
    model = workload.model.to(ctx.device)
    if config.train.activation_checkpointing:
        checkpoint_activations(model, workload.shard_units)
    if config.dist.strategy == "fsdp":  # in place, before the optimizer sees the parameters (they become DTensors)
        shard(model, workload.shard_units, gathering=gathering(config),
              precision=resolve_precision(config.train.precision, ctx.device), device=ctx.device)
    return workload, build_optimizer(model, config.optim, ctx.device)


def gathering(config: Config) -> Gathering:
    """When fsdp gathers each unit (dist.reshard_after_forward, dist.gather_once_per_step)."""
    return Gathering.of(config.dist.reshard_after_forward, config.dist.gather_once_per_step)


def resume_or_start(config: Config, ctx: DistContext, workload: Workload, optimizer: torch.optim.Optimizer,
                    snapshots: SnapshotManager) -> tuple[TrainingState | None, Snapshot | None]:
    """The training state to go on from (the newest usable snapshot's, else a fresh one) and that snapshot;
    no state when the snapshot is already at the run's last step. Every rank starts where rank 0 found (to_resume)."""
    config_dict = to_dict(config)  # what the snapshot and config.yaml record
    reading = time.perf_counter()
    snapshot = snapshots.to_resume(config.snapshot.resume, ctx.device)
    start = Position()
    if snapshot is not None:
        refuse_changed_settings(snapshot, config_dict)
        start = position_of(snapshot)
    plan = RunPlan.build(config, len(workload.dataset), ctx.world_size, ctx.device, start, workload.tokens_per_sample)
    if snapshot is not None and start.step >= plan.total_steps:
        return None, snapshot
    state = TrainingState(
        model=workload.model, optimizer=optimizer, scheduler=build_scheduler(optimizer, plan.total_steps, config.optim),
        scaler=torch.amp.GradScaler(ctx.device.type, enabled=plan.precision == "fp16"), plan=plan,
        config=config_dict, sharded=config.dist.strategy == "fsdp",
    )
    if snapshot is not None:
        snapshots.restore(state, snapshot)
        log.info("snapshot %s read and restored in %.2fs", snapshot.path.name, time.perf_counter() - reading)
    return state, snapshot


def use_deterministic_kernels() -> None:
    """run.deterministic: cuBLAS needs a fixed workspace for reproducible results (CUDA's cuBLAS docs,
    "Results reproducibility"; torch raises at the first matmul without it), set before its first use."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)


def wrap(config: Config, ctx: DistContext, model: torch.nn.Module, units: ShardUnits | None,
         sharded: bool) -> tuple[torch.nn.Module, StepStats]:
    """The model that runs forward/backward: DDP around it where there are ranks to all-reduce with (FSDP
    already is: sharded in place), compiled if asked; and the hook that carries each step's loss and stop flag
    in the gradient all-reduce."""
    step_stats = StepStats(ctx.world_size)
    if config.train.compile and config.train.compile_scope == "blocks":
        compile_blocks(model, units)
    wrapped: torch.nn.Module = model
    # One rank has nothing to all-reduce: DDP's reducer and the statistics hook would only cost host time in the
    # micro-batch that synchronises (a profiled gpt2-medium step on an H200 idled its GPU 58 ms of 446 ms there,
    # the hand loop 13 ms of 392 ms: BENCHMARKS.md). torchtitan likewise applies DDP only when it replicates.
    if not sharded and ctx.world_size > 1:
        wrapped = DistributedDataParallel(
            model,
            device_ids=[ctx.device.index] if ctx.device.type == "cuda" else None,
            gradient_as_bucket_view=True,  # gradients live in the all-reduce buckets: no copy, less memory
        )
        step_stats.attach(wrapped)
    if config.train.compile and config.train.compile_scope == "model":
        wrapped = torch.compile(wrapped)
    return wrapped, step_stats


def open_outputs(config: Config, ctx: DistContext, run_dir: Path, state: TrainingState, workload: Workload,
                 hostnames: list[str]) -> RunOutputs:
    """Rank 0's metrics, progress display and sinks, and the line that says what this run does."""
    start, plan = state.position, state.plan
    outputs = RunOutputs.open(run_dir, state.config, hostnames, ctx, start_step=start.step,
                              total_steps=plan.total_steps, epochs=plan.epochs, log_every=config.run.log_every,
                              progress_mode=config.run.progress, sinks=open_sinks(config, run_dir, start.step))
    log.info(
        "training %s: %d parameters, %d samples, world size %d on %d host(s), steps %d -> %d, device %s, "
        "backend %s, precision %s%s",
        config.workload.name, sum(p.numel() for p in state.model.parameters()), len(workload.dataset),
        ctx.world_size, len(set(hostnames)), start.step, plan.total_steps, ctx.device, ctx.backend,
        plan.precision, f", compiled ({config.train.compile_scope})" if config.train.compile else "",
    )
    for note in unreachable_settings(config, plan):
        log.warning("%s", note)
    return outputs


def finish(run_dir: Path, ctx: DistContext, state: TrainingState, workload: Workload, result: TrainResult) -> None:
    """summary.json (rank 0), with the whole model's checksum: gathered from the shards under fsdp
    (collective), as it is under ddp."""
    memory = memory_report(state.model, state.optimizer, ctx.device)
    full = (get_model_state_dict(state.model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
            if state.sharded else state.model.state_dict())
    if ctx.is_main:
        with run_files_written(run_dir):
            write_summary(run_dir, result, full, ctx, workload.tokens_per_sample, workload.flops_per_token, memory)


def leave_together(ctx: DistContext) -> None:
    """No rank exits before rank 0 has written the last snapshot and the summary: torchrun stops a worker
    group 30 s after its first worker exits non-zero (a preempted run exits 75), whatever the job's grace
    (LocalElasticAgent._stop_workers; app/common/node_wrapper.sh)."""
    if ctx.world_size <= 1:
        return
    try:
        dist.all_reduce(torch.zeros(1, device=ctx.device))  # a barrier that works on every backend
    except (dist.DistError, RuntimeError) as err:  # this rank's part is done and saved: say so, not a traceback
        log.warning("another rank ended before the run's last snapshot was confirmed (%s); its log says why",
                    str(err).splitlines()[0][:200])


def _unwatched(step: int, phase: str) -> None:
    """Progress marks of a run no watchdog watches (one rank): nobody reads them."""


# gloo and NCCL errors that mean a collective gave up (raised through DDP's comm hook as RuntimeError).
_COLLECTIVE_FAILURE = re.compile(r"Timed out waiting \d+ms for \w+ operation to complete|Connection closed by peer"
                                 r"|Connection reset by peer|Watchdog caught collective operation timeout")


def _watch_for_hangs(config: Config, ctx: DistContext, store: dist.Store | None, run_dir: Path,
                     state: TrainingState, reports: StepReports, rank_hosts: list[str]) -> StepWatchdog | None:
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
        hosts = sorted({rank_hosts[rank] for rank in verdict.culprits})
        try:
            with run_files_written(run_dir):
                reports.write_finished()
                reports.flush()  # every step that completed, each line whole
                # The last step whose figures came back: on a GPU the host may have queued one more that never ends
                if not write_hang_summary(run_dir, f"hang: {verdict.sentence}; {line}", verdict.culprits, hosts,
                                          reports.completed_step, ctx.world_size, attempt_started=started):
                    log.warning("not recording this hang: another rank of this attempt already did (summary.json)")
        except StorageError as err:  # the run still ends as hung; the bad-node requeue then has no node to leave out
            log.error("%s", err)

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
    return Evaluator(workload.val_dataset, every=config.train.eval_every, batch_size=config.train.batch_size,
                     steps=config.train.eval_steps, rank=ctx.rank, world_size=ctx.world_size, device=ctx.device,
                     loss_fn=workload.loss_fn, autocast_dtype=plan.autocast_dtype)


def _already_complete(snapshot: Snapshot | None, run_dir: Path, ctx: DistContext) -> TrainResult:
    """A re-run of a finished run: say so and touch no file (its summary and metrics stay as they were)."""
    assert snapshot is not None
    start = position_of(snapshot)
    if ctx.is_main:
        log.info("nothing to do: the run in %s is complete at step %d (%s); to train further raise "
                 "train.max_steps or train.epochs, to start over give a new run.dir", run_dir, start.step,
                 snapshot.path)
    return TrainResult(status="completed", position=start, final_loss=float("nan"), elapsed_s=0.0, samples=0,
                       steps_run=0)
