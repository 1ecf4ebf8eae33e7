"""`--dry-run`: what a config will do, before it runs: no process group, no GPU, no files written.

The model is built on the "meta" device (shapes, no memory): a gpt2-medium plan needs no GPU and no
gigabytes, on a login node too (the dataset is built as the run would, for its length). Memory per rank
is an estimate for both strategies:
- state: fp32 parameters and gradients (4 + 4 bytes each) and the optimizer's (AdamW 8, SGD with
  momentum 4); fsdp holds 1/N of each, plus the largest block gathered in the compute dtype (twice:
  FSDP2 prefetches the next one); with train.grad_accum > 1 fsdp also holds the whole unsharded gradient
  between micro-batches (fp32, reduced once a step) and, with dist.gather_once_per_step (the default),
  every block gathered through the step (app/train/sharding.py, Gathering.step);
- activations of one micro-batch (GPT workload): about 34 x n_embd bytes per token per block in 16-bit
  (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", with fused
  attention, which stores no attention matrix: their 5as/h term drops), twice that in fp32, plus the
  logits and their fp32 copy for the loss (3 x 4 bytes x vocab per token); activation checkpointing keeps
  each block's input (2 or 4 x n_embd bytes per token) and one block's activations;
- not counted: the CUDA context and NCCL buffers (~1-2 GiB per GPU), allocator fragmentation.
The step time assumes a model FLOPs utilisation (`ASSUMED_MFU`), the figure well-tuned GPT training
reaches on H100s; measure yours (summary.json "mfu") and scale. From the step time, the last lines plan for
failures (app/train/failure_budget.py): the snapshot interval that loses the least work at a node failure
rate (Daly), and the expected time to train with the configured interval and with that one.
"""

from __future__ import annotations

import math
import sys
from typing import Any, TextIO

import torch
import yaml

from app.common.typedconfig import to_dict
from app.train import failure_budget as budget
from app.train.config import Config
from app.train.plan import Position, RunPlan, unreachable_settings
from app.train.summary import PEAK_BF16_FLOPS, peak_bf16_flops
from app.train.workloads import Workload, build_workload

ASSUMED_MFU = 0.40
GIB = 2**30
#: What a snapshot costs the training loop, bytes a second (assumed; the log's "snapshot written: ... (N s)"
#: has yours). snapshot.background: the loop waits for the copy of the state to host memory, which a GPU's
#: PCIe or C2C link does at tens of GB/s; without it, for rank 0's write to the shared filesystem, which one
#: GPFS or Lustre client does at a few GB/s.
SNAPSHOT_COPY_BYTES_S = 10e9
SNAPSHOT_WRITE_BYTES_S = 2e9
#: A failure's restart besides the hang deadline, in seconds (assumed; a job's history.jsonl has yours): the
#: scheduler starting the requeued job, then image, rendezvous, NCCL init (seconds at thousands of ranks:
#: NVIDIA/nccl PR #1789 finds dozens of seconds only from 32K GPUs on) and the snapshot read.
ASSUMED_REQUEUE_S = 60.0
ASSUMED_START_S = 120.0


def resolved_yaml(config: Config) -> str:
    return yaml.safe_dump(to_dict(config), sort_keys=False)


def print_config(config: Config, out: TextIO = sys.stdout) -> None:
    out.write(resolved_yaml(config))


def dry_run(config: Config, world_size: int, world_source: str, out: TextIO = sys.stdout, *,
            nodes: int | None = None, node_mtbf_h: float | None = None) -> None:
    gpu = torch.cuda.is_available()
    with torch.device("meta"):
        workload = build_workload(config)
    plan = RunPlan.build(config, len(workload.dataset), world_size, torch.device("cuda" if gpu else "cpu"),
                         Position(), workload.tokens_per_sample)
    params = sum(p.numel() for p in workload.model.parameters())
    write = out.write
    write("# dry run: nothing started, no process group joined, no file written\n# resolved config:\n")
    write("".join(f"#   {line}\n" for line in resolved_yaml(config).splitlines()))
    per_step = plan.samples_per_step
    batch = f"{per_step:,} samples"
    if workload.tokens_per_sample:
        batch += f" = {per_step * workload.tokens_per_sample:,} tokens"
    epoch_steps = plan.epoch(0).num_steps
    rows = [
        ("world size", f"{world_size} ({world_source})"),
        ("global batch", f"{batch} per optimizer step ({config.train.batch_size} per rank x "
                         f"{config.train.grad_accum} micro-batch(es) x {world_size} rank(s))"),
        ("data", f"{plan.dataset_size:,} samples: {epoch_steps:,} steps per epoch"),
        ("steps", f"{plan.total_steps:,} in total ({_length(config)})"),
        ("parameters", f"{params:,} ({params / 1e6:.1f}M)"),
        ("precision", f"{plan.precision}{'' if gpu else ' here (CPU); auto means bf16 on GPU'}"),
    ]
    write("".join(f"{name:<14}{value}\n" for name, value in rows))
    write("".join(f"note          {note}\n" for note in unreachable_settings(config, plan)))
    if not gpu and config.train.precision == "auto":
        write("# activations below are fp32 as on this machine (no GPU); bf16 on a GPU about halves them\n")
    estimate = memory_estimate(config, workload, params, world_size,
                               compute_bytes=4 if plan.precision == "fp32" else 2)
    write(f"memory per rank, estimated (+/- 30%; excludes the CUDA context and NCCL buffers):\n"
          f"  {'':<24}{'ddp':>10}{'fsdp':>10}\n")
    for name in ("parameters", "gradients", "optimizer", "gathered blocks", "activations", "total"):
        write(f"  {name:<24}" + "".join(f"{_size(estimate[s][name]):>10}" for s in ("ddp", "fsdp")) + "\n")
    if workload.flops_per_token and workload.tokens_per_sample:
        name, peak, seconds = _step_time(workload, plan, world_size)
        if seconds is None:
            write(f"step time: no peak FLOP/s known for {name}\n")
            return
        tokens_per_rank = plan.samples_per_step * workload.tokens_per_sample / world_size
        write(f"step time on {name} ({peak / 1e12:.0f} TFLOP/s bf16) at {ASSUMED_MFU:.0%} MFU: "
              f"{seconds * 1e3:.3g} ms/step, {tokens_per_rank / seconds:,.0f} tokens/s per GPU\n")
        snapshot_bytes = estimate["ddp"]["parameters"] + estimate["ddp"]["optimizer"]
        for line in _failure_lines(config, plan.total_steps, seconds, snapshot_bytes,
                                   nodes or max(1, world_size // budget.GPUS_PER_NODE), node_mtbf_h):
            write(line + "\n")


def _size(count: float) -> str:
    return f"{count / GIB:.2f}G" if count >= GIB / 10 else f"{count / 2**20:.2f}M"


def _length(config: Config) -> str:
    if config.train.max_steps:
        return f"train.max_steps={config.train.max_steps}"
    return f"train.epochs={config.train.epochs}"


def memory_estimate(config: Config, workload: Workload, params: int, world_size: int, compute_bytes: int
                    ) -> dict[str, dict[str, float]]:
    optimizer_per_param = 8 if config.optim.name == "adamw" else (4 if config.optim.momentum else 0)
    units = workload.shard_units(workload.model) if workload.shard_units else [workload.model]
    largest_unit = max(sum(p.numel() for p in unit.parameters()) for unit in units)
    activations = _activation_bytes(config, workload, compute_bytes)
    estimate = {}
    accumulating = config.train.grad_accum > 1
    gathered = (compute_bytes * params if accumulating and config.dist.gather_once_per_step is not False
                else 2 * compute_bytes * largest_unit)
    for strategy, share in (("ddp", 1.0), ("fsdp", 1.0 / world_size)):
        sharded = strategy == "fsdp"
        parts = {"parameters": 4 * params * share,
                 "gradients": 4 * params * (share + 1.0 if sharded and accumulating else share),
                 "optimizer": optimizer_per_param * params * share,
                 "gathered blocks": gathered if sharded else 0.0,
                 "activations": activations}
        parts["total"] = sum(parts.values())
        estimate[strategy] = parts
    return estimate


def _activation_bytes(config: Config, workload: Workload, compute_bytes: int) -> float:
    shape: Any = getattr(workload.model, "shape", None)
    if shape is None:  # not the GPT workload: no model of its activations
        return 0.0
    tokens = config.train.batch_size * shape.block_size
    per_block = 17 * compute_bytes * shape.n_embd * tokens  # 34 bytes/token/width in 16-bit
    blocks = (shape.n_layer * compute_bytes * shape.n_embd * tokens + per_block
              if config.train.activation_checkpointing else shape.n_layer * per_block)
    logits = 3 * 4 * shape.vocab_size * tokens
    return float(blocks + logits)


def _step_time(workload: Workload, plan: RunPlan, world_size: int) -> tuple[str, float, float | None]:
    """The GPU's name, its peak bf16 FLOP/s and the seconds of one optimizer step at ASSUMED_MFU (None: no
    peak known for that GPU)."""
    tokens_per_rank = plan.samples_per_step * workload.tokens_per_sample / world_size
    flops = workload.flops_per_token * tokens_per_rank
    if torch.cuda.is_available():
        name = torch.cuda.get_device_name()
        peak = peak_bf16_flops(name)
        if peak is None:
            return name, 0.0, None
    else:
        name, peak = "H100 or GH200", PEAK_BF16_FLOPS["H100"]  # the GPUs of MareNostrum 5 and the GH200 systems
    return name, peak, flops / (peak * ASSUMED_MFU)


def _failure_lines(config: Config, steps: int, step_s: float, snapshot_bytes: float, nodes: int,
                   node_mtbf_h: float | None) -> list[str]:
    """The failure plan: the job's MTBF, a snapshot's cost, Daly's interval in steps, the time to train."""
    source = "--node-mtbf-hours" if node_mtbf_h else "Llama 3's rate; --node-mtbf-hours to change"
    node_mtbf_h = node_mtbf_h or budget.NODE_MTBF_H
    mtbf_s = budget.job_mtbf_s(nodes, node_mtbf_h)
    background = config.snapshot.background
    cost = ("the copy to host memory at an assumed 10 GB/s, snapshot.background" if background
            else "the write at an assumed 2 GB/s to the shared filesystem")
    snapshot_s = snapshot_bytes / (SNAPSHOT_COPY_BYTES_S if background else SNAPSHOT_WRITE_BYTES_S)
    restart = budget.Restart(detect_s=config.dist.hang_timeout_s or config.dist.timeout_s / 2,
                             requeue_s=ASSUMED_REQUEUE_S, start_s=ASSUMED_START_S)
    best_s = budget.snapshot_interval_s(snapshot_s, mtbf_s)
    best_every = max(1, round(best_s / step_s))
    longer = " (longer than the run: snapshot.every=0 writes only its end)" if best_every >= steps else ""
    work_s = steps * step_s
    lines = [
        f"failures: {nodes} node(s) (--nodes) at a node MTBF of {node_mtbf_h:,.0f} h ({source}): the job "
        f"fails every {_duration(mtbf_s)} on average",
        f"snapshot: {snapshot_bytes / 1e9:.2f} GB (fp32 parameters and optimizer state), about "
        f"{snapshot_s:.2g} s of training each ({cost})",
        f"suggested interval (Young/Daly): snapshot.every={best_every} (every {_duration(best_every * step_s)} of "
        f"training; now snapshot.every={config.snapshot.every}){longer}",
    ]
    lost = (f"each failure: {restart.detect_s:.0f} s to detect (dist.hang_timeout_s) + {restart.requeue_s:.0f} s "
            f"requeue + {restart.start_s:.0f} s start (both assumed) + half an interval of work")
    for label, every in ((f"snapshot.every={config.snapshot.every}", config.snapshot.every),
                         (f"snapshot.every={best_every}", best_every)):
        interval_s = min(every or steps, steps) * step_s  # 0: only at the end
        wall_s = budget.time_to_train_s(work_s, interval_s, snapshot_s, restart.total_s, mtbf_s)
        failures = budget.expected_failures(wall_s, mtbf_s)
        lines.append(f"time to train at {label}: {_duration(work_s)} of steps -> {_duration(wall_s)} expected, "
                     f"{failures:.2g} failure(s)" if math.isfinite(wall_s) else
                     f"time to train at {label}: never (a failure costs more than the time between failures)")
    return [*lines, lost]


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "forever"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"
