"""Optimizer and learning-rate schedule from the `optim` config section."""

from __future__ import annotations

import math

import torch

from app.train.config import OptimConfig


def build_optimizer(model: torch.nn.Module, config: OptimConfig, device: torch.device) -> torch.optim.Optimizer:
    """AdamW or SGD; weight decay on matrices and embeddings only (not on biases and norms)."""
    parameters = [p for p in model.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in parameters if p.dim() >= 2], "weight_decay": config.weight_decay},
        {"params": [p for p in parameters if p.dim() < 2], "weight_decay": 0.0},
    ]
    groups = [g for g in groups if g["params"]]
    if config.name == "sgd":
        return torch.optim.SGD(groups, lr=config.lr, momentum=config.momentum)
    # The fused kernel is one launch for all parameters on GPU; on CPU the foreach path is the fast one.
    return torch.optim.AdamW(
        groups, lr=config.lr, betas=(config.beta1, config.beta2), fused=device.type == "cuda" or None
    )


def lr_factor(step: int, total_steps: int, config: OptimConfig) -> float:
    """Multiplier of the peak lr at `step`: linear warmup, then cosine decay (or flat)."""
    if step < config.warmup_steps:
        return (step + 1) / config.warmup_steps
    if config.schedule == "constant" or total_steps <= config.warmup_steps:
        return 1.0
    progress = min(1.0, (step - config.warmup_steps) / max(1, total_steps - config.warmup_steps))
    return config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def build_scheduler(
    optimizer: torch.optim.Optimizer, total_steps: int, config: OptimConfig
) -> torch.optim.lr_scheduler.LambdaLR:
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: lr_factor(step, total_steps, config))
