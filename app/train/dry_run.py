"""`--dry-run`: what a config will do, before it runs: no process group, no GPU, no files written.

The model is built on the "meta" device (shapes, no memory): a gpt2-medium plan needs no GPU and no
gigabytes, on a login node too (the dataset is built as the run would, for its length). Memory per rank
is an estimate for both strategies:
- state: fp32 parameters and gradients (4 + 4 bytes each) and the optimizer's (AdamW 8, SGD with
  momentum 4); fsdp holds 1/N of each, plus the largest block gathered in the compute dtype (twice:
  FSDP2 prefetches the next one);
- activations of one micro-batch (GPT workload): about 34 x n_embd bytes per token per block in 16-bit
  (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", with fused
  attention, which stores no attention matrix: their 5as/h term drops), twice that in fp32, plus the
  logits and their fp32 copy for the loss (3 x 4 bytes x vocab per token); activation checkpointing keeps
  each block's input (2 or 4 x n_embd bytes per token) and one block's activations;
- not counted: the CUDA context and NCCL buffers (~1-2 GiB per GPU), allocator fragmentation.
The step time assumes a model FLOPs utilisation (`ASSUMED_MFU`), the figure well-tuned GPT training
reaches on H100s; measure yours (summary.json "mfu") and scale.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import torch
import yaml

from app.common.typedconfig import to_dict
from app.train.config import Config
from app.train.plan import Position, RunPlan
from app.train.summary import PEAK_BF16_FLOPS, peak_bf16_flops
from app.train.workloads import Workload, build_workload

ASSUMED_MFU = 0.40
GIB = 2**30


def resolved_yaml(config: Config) -> str:
    return yaml.safe_dump(to_dict(config), sort_keys=False)


def print_config(config: Config, out: TextIO = sys.stdout) -> None:
    out.write(resolved_yaml(config))


def dry_run(config: Config, world_size: int, world_source: str, out: TextIO = sys.stdout) -> None:
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
    if not gpu and config.train.precision == "auto":
        write("# activations below are fp32 as on this machine (no GPU); bf16 on a GPU about halves them\n")
    estimate = memory_estimate(config, workload, params, world_size,
                               compute_bytes=4 if plan.precision == "fp32" else 2)
    write(f"memory per rank, estimated (+/- 30%; excludes the CUDA context and NCCL buffers):\n"
          f"  {'':<24}{'ddp':>10}{'fsdp':>10}\n")
    for name in ("parameters", "gradients", "optimizer", "gathered blocks", "activations", "total"):
        write(f"  {name:<24}" + "".join(f"{_size(estimate[s][name]):>10}" for s in ("ddp", "fsdp")) + "\n")
    if workload.flops_per_token and workload.tokens_per_sample:
        for line in _step_time_lines(workload, plan, world_size):
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
    for strategy, share in (("ddp", 1.0), ("fsdp", 1.0 / world_size)):
        parts = {"parameters": 4 * params * share, "gradients": 4 * params * share,
                 "optimizer": optimizer_per_param * params * share,
                 "gathered blocks": 2 * compute_bytes * largest_unit if strategy == "fsdp" else 0.0,
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


def _step_time_lines(workload: Workload, plan: RunPlan, world_size: int) -> list[str]:
    tokens_per_rank = plan.samples_per_step * workload.tokens_per_sample / world_size
    flops = workload.flops_per_token * tokens_per_rank
    if torch.cuda.is_available():
        name = torch.cuda.get_device_name()
        peak = peak_bf16_flops(name)
        if peak is None:
            return [f"step time: no peak FLOP/s known for {name}"]
    else:
        name, peak = "H100 or GH200", PEAK_BF16_FLOPS["H100"]  # the GPUs of MareNostrum 5 and the GH200 systems
    seconds = flops / (peak * ASSUMED_MFU)
    return [f"step time on {name} ({peak / 1e12:.0f} TFLOP/s bf16) at {ASSUMED_MFU:.0%} MFU: "
            f"{seconds * 1e3:.3g} ms/step, {tokens_per_rank / seconds:,.0f} tokens/s per GPU"]
