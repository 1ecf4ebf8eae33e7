"""The trainer's settings: one dataclass per section, a docstring under every field.

`python -m app.train --help` prints them all. Precedence: `key=value` on the command line >
`--config FILE.yaml` > the defaults below. The resolved config is written to the run directory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from app.host.common.errors import UsageError


def _require(ok: bool, key: str, value: object, rule: str, example: str) -> None:
    if not ok:
        raise UsageError(f"{key}={value!r} {rule}; example: {key}={example}")


@dataclass
class RunConfig:
    dir: str = "runs/latest"
    """Run directory: manifest.json, config.yaml, metrics.jsonl, snapshots/. Shared by all ranks."""
    seed: int = 1234
    """Seeds data order, model init and dropout; the same seed gives the same run (bit-identical on CPU)."""
    log_every: int = 10
    """Rank 0 prints a plain progress line every N optimizer steps (a progress bar instead on a terminal)."""
    progress: Literal["auto", "bar", "lines"] = "auto"
    """'bar' on a terminal, 'lines' in batch logs; 'auto' picks by whether stderr is a terminal."""
    deterministic: bool = False
    """GPU: deterministic kernels only (torch.use_deterministic_algorithms, CUBLAS_WORKSPACE_CONFIG=:4096:8),
    so a resumed run ends bit-identical to an uninterrupted one there too; slower. CPU runs already are."""
    breakdown: bool = False
    """Time data loading, forward/backward, exposed communication and optimizer per step (syncs the GPU)."""
    tensorboard: bool = False
    """Also write the metrics as TensorBoard events to <run.dir>/tensorboard (needs: pip install tensorboard;
    checked before the run starts; the images do not ship it)."""
    wandb_project: str = ""
    """Also log the metrics to this Weights & Biases project, offline (compute nodes rarely reach the
    internet): <run.dir>/wandb, uploaded later with `wandb sync`. Needs: pip install wandb (checked before the run
    starts; the images do not ship it)."""

    def validate(self) -> None:
        _require(bool(self.dir.strip()), "run.dir", self.dir, "is empty", "runs/demo")
        _require(self.log_every >= 1, "run.log_every", self.log_every, "must be at least 1", "10")


@dataclass
class WorkloadConfig:
    name: str = "gpt"
    """'gpt' (causal language model), 'regression' (the DDP tutorial's Linear(20,1)), or 'pkg.module:build'."""

    def validate(self) -> None:
        ok = self.name in ("gpt", "regression") or (":" in self.name and all(self.name.split(":", 1)))
        _require(ok, "workload.name", self.name, "is not gpt, regression or module:function", "gpt")


@dataclass
class ModelConfig:
    size: Literal["tiny", "small", "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"] = "tiny"
    """GPT preset: tiny (~0.1M, CPU demo), small (~14M), gpt2 (124M), gpt2-medium (350M), gpt2-large
    (774M), gpt2-xl (1.5B)."""
    n_layer: int = 0
    """Transformer blocks; 0 takes the preset's value."""
    n_head: int = 0
    """Attention heads; 0 takes the preset's value."""
    n_embd: int = 0
    """Embedding width; 0 takes the preset's value."""
    block_size: int = 0
    """Context length in tokens; 0 takes the preset's value."""
    vocab_size: int = 0
    """Vocabulary size; 0 takes the preset's value."""
    dropout: float = 0.0
    """Dropout probability (reseeded per step and rank, so resume stays exact)."""

    def validate(self) -> None:
        for key in ("n_layer", "n_head", "n_embd", "block_size", "vocab_size"):
            value = getattr(self, key)
            _require(value >= 0, f"model.{key}", value, "must be 0 (preset) or positive", "0")
        _require(0.0 <= self.dropout < 1.0, "model.dropout", self.dropout, "must be in [0, 1)", "0.1")


@dataclass
class DataConfig:
    tokens: int = 1_000_000
    """Length of the generated token stream (gpt), made from run.seed on every rank: no download."""
    tokens_file: str = ""
    """A nanoGPT-style train.bin (uint16 tokens) to train on instead of the generated stream."""
    val_tokens: int = 100_000
    """Length of the held-out validation stream (gpt, generated): the same synthetic language, other text."""
    val_tokens_file: str = ""
    """Validation tokens for data.tokens_file; empty means val.bin beside it, as nanoGPT's prepare scripts
    write it."""
    samples: int = 2048
    """Number of random samples (regression), as in the DDP tutorial."""
    workers: int = 0
    """DataLoader worker processes per rank; 0 loads in the training process (fine for in-memory data)."""

    def validate(self) -> None:
        _require(self.tokens >= 2, "data.tokens", self.tokens, "must be at least 2", "1000000")
        _require(self.val_tokens >= 2, "data.val_tokens", self.val_tokens, "must be at least 2", "100000")
        _require(self.samples >= 1, "data.samples", self.samples, "must be positive", "2048")
        _require(self.workers >= 0, "data.workers", self.workers, "must be 0 or more", "4")


@dataclass
class OptimConfig:
    name: Literal["adamw", "sgd"] = "adamw"
    """Optimizer."""
    lr: float = 1e-3
    """Peak learning rate."""
    schedule: Literal["cosine", "constant"] = "cosine"
    """'cosine': linear warmup, then cosine decay to lr * min_lr_ratio. 'constant': warmup, then flat."""
    warmup_steps: int = 10
    """Linear warmup length in optimizer steps."""
    min_lr_ratio: float = 0.1
    """Final learning rate of the cosine schedule, as a fraction of lr."""
    weight_decay: float = 0.1
    """Decoupled weight decay (AdamW) or L2 (SGD), applied to matrices only."""
    beta1: float = 0.9
    """AdamW beta1."""
    beta2: float = 0.95
    """AdamW beta2."""
    momentum: float = 0.0
    """SGD momentum."""
    grad_clip: float = 1.0
    """Clip the global gradient norm to this value; 0 disables clipping."""

    def validate(self) -> None:
        _require(math.isfinite(self.lr) and self.lr > 0, "optim.lr", self.lr, "must be positive", "0.001")
        _require(self.warmup_steps >= 0, "optim.warmup_steps", self.warmup_steps, "must be 0 or more", "10")
        _require(0 <= self.min_lr_ratio <= 1, "optim.min_lr_ratio", self.min_lr_ratio, "must be in [0, 1]", "0.1")
        _require(self.weight_decay >= 0, "optim.weight_decay", self.weight_decay, "must be 0 or more", "0.1")
        _require(0 <= self.beta1 < 1, "optim.beta1", self.beta1, "must be in [0, 1)", "0.9")
        _require(0 <= self.beta2 < 1, "optim.beta2", self.beta2, "must be in [0, 1)", "0.95")
        _require(self.momentum >= 0, "optim.momentum", self.momentum, "must be 0 or more", "0.9")
        _require(self.grad_clip >= 0, "optim.grad_clip", self.grad_clip, "must be 0 (off) or positive", "1.0")


@dataclass
class TrainConfig:
    batch_size: int = 16
    """Samples per rank per micro-batch. Global batch = batch_size * grad_accum * world size."""
    grad_accum: int = 1
    """Micro-batches per optimizer step; gradients are all-reduced once per step (DDP no_sync)."""
    epochs: int = 1
    """Passes over the data."""
    max_steps: int = 0
    """Stop after this many optimizer steps in total; 0 means run all epochs."""
    precision: Literal["auto", "fp32", "bf16", "fp16"] = "auto"
    """'auto': bf16 autocast on GPU, fp32 on CPU. 'fp16' adds a GradScaler."""
    compile: bool = False
    """Compile the model with torch.compile (see train.compile_scope)."""
    compile_scope: Literal["model", "blocks"] = "model"
    """With train.compile: 'model' compiles the whole wrapped model (DDP: one graph per gradient bucket);
    'blocks' compiles each transformer block in place (the workload's shard units), as torchtitan does:
    DDP/FSDP hooks run between the compiled blocks, identical blocks compile once (on one H100: 0.79-0.86x
    the speed of 'model' for gpt2, equal for gpt2-medium; BENCHMARKS.md)."""
    activation_checkpointing: bool = False
    """Keep only each transformer block's input and recompute its activations in backward: less memory for
    about a third more compute (the workload's shard units; gpt: its blocks)."""
    eval_every: int = 0
    """Measure the validation loss every N optimizer steps and at the end, averaged over all ranks; 0 disables
    validation."""
    eval_steps: int = 20
    """Batches of train.batch_size per rank in one validation (the same batches every time)."""

    def validate(self) -> None:
        _require(self.batch_size >= 1, "train.batch_size", self.batch_size, "must be at least 1", "32")
        _require(self.grad_accum >= 1, "train.grad_accum", self.grad_accum, "must be at least 1", "4")
        _require(self.epochs >= 1, "train.epochs", self.epochs, "must be at least 1", "10")
        _require(self.max_steps >= 0, "train.max_steps", self.max_steps, "must be 0 (all epochs) or more", "1000")
        _require(self.eval_every >= 0, "train.eval_every", self.eval_every, "must be 0 (off) or more", "100")
        _require(self.eval_steps >= 1, "train.eval_steps", self.eval_steps, "must be at least 1", "20")


@dataclass
class SnapshotConfig:
    every: int = 100
    """Write a snapshot every N optimizer steps (and always at the end); 0 writes only at the end."""
    keep: int = 3
    """Keep the newest K snapshots; older ones are deleted after a new one is safely on disk."""
    dir: str = ""
    """Snapshot directory; empty means <run.dir>/snapshots."""
    background: bool = True
    """Copy the state off the training path and write it from a thread (the loop waits for the copy, not the
    disk: GPT-2 124M on 2 CPUs waits 0.05 s of a 2.5 s write, BENCHMARKS.md; one more copy of the state in
    memory; fsdp: each rank its shard, with dcp.async_save); the run's last snapshot is written before it ends."""
    resume: Literal["auto", "never", "required"] = "auto"
    """auto: resume from the newest valid snapshot if there is one, else start; required: stop (exit 2) when
    there is none (a requeued job that would otherwise start over); never: start fresh, and stop (exit 2)
    if the directory already holds snapshots rather than mix two runs in it."""

    def validate(self) -> None:
        _require(self.every >= 0, "snapshot.every", self.every, "must be 0 (end only) or more", "100")
        _require(self.keep >= 1, "snapshot.keep", self.keep, "must be at least 1", "3")


@dataclass
class DistConfig:
    backend: Literal["auto", "nccl", "gloo"] = "auto"
    """'auto': nccl when CUDA is available, gloo otherwise."""
    timeout_s: float = 180.0
    """Seconds before rendezvous or a collective is declared hung (PyTorch's default is 600 for NCCL)."""
    hang_timeout_s: float = 0.0
    """Seconds a rank may make no progress before the ranks that still answer name the one holding them up
    and exit 4; 0 means half of dist.timeout_s (so it fires before the collective's own timeout)."""
    strategy: Literal["ddp", "fsdp"] = "ddp"
    """ddp: a full copy of the model, gradients and optimizer state per rank; fsdp: FSDP2, each rank holds
    1/N of them (models too big for one GPU), sharded snapshots (app/train/sharding.py)."""
    reshard_after_forward: bool | None = None
    """fsdp only: true (the default) frees gathered parameters after each block's forward (ZeRO-3, least
    memory); false keeps them for backward (ZeRO-2-like: less communication, more memory). With ddp: exit 2.
    With train.grad_accum > 1 and dist.gather_once_per_step it applies to steps of one micro-batch and to
    evaluation only."""
    gather_once_per_step: bool | None = None
    """fsdp only, with train.grad_accum > 1: true (the default) gathers each block's parameters in a step's
    first micro-batch and keeps them to its last backward (one gather a step instead of one or two per
    micro-batch; memory: every block gathered at once through the step, 2 bytes a parameter in bf16, e.g.
    +0.25 GB for gpt2, +3.1 GB for gpt2-xl, against reshard_after_forward=true); false gathers them in each
    micro-batch (least memory). With ddp: exit 2."""

    def validate(self) -> None:
        _require(self.timeout_s > 0, "dist.timeout_s", self.timeout_s, "must be positive", "180")
        _require(0 <= self.hang_timeout_s < self.timeout_s, "dist.hang_timeout_s", self.hang_timeout_s,
                 f"must be 0 (half of dist.timeout_s) or below dist.timeout_s={self.timeout_s:g}", "60")
        _require(self.reshard_after_forward is None or self.strategy == "fsdp", "dist.reshard_after_forward",
                 self.reshard_after_forward, "applies to dist.strategy=fsdp only (DDP does not shard)",
                 "false with dist.strategy=fsdp")
        _require(self.gather_once_per_step is None or self.strategy == "fsdp", "dist.gather_once_per_step",
                 self.gather_once_per_step, "applies to dist.strategy=fsdp only (DDP does not shard)",
                 "false with dist.strategy=fsdp")


@dataclass
class Config:
    run: RunConfig = field(default_factory=RunConfig)
    workload: WorkloadConfig = field(default_factory=WorkloadConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    snapshot: SnapshotConfig = field(default_factory=SnapshotConfig)
    dist: DistConfig = field(default_factory=DistConfig)
