"""Workloads: a model, a dataset and a loss. Built-in: `gpt`, `regression`; or a user's `pkg.module:build`.

A user's `build(config)` receives the resolved `app.train.config.Config` and returns a `Workload` (or a
`(model, dataset, loss_fn)` tuple). The dataset yields `(inputs, targets)`: either per sample
(map-style, collated for you) or, faster, a whole batch from `get_batch(indices)`. The trainer calls
`loss_fn(model(inputs), targets)`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from app.host.common.errors import UsageError
from app.train.config import Config

#: Held-out (validation) data is drawn with run.seed + this: other samples of the same distribution.
VALIDATION_SEED_OFFSET = 7_777_777


@dataclass
class Workload:
    model: torch.nn.Module
    dataset: Any
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
    #: Tokens per sample, for tokens/s (0 when samples are not token sequences).
    tokens_per_sample: int = 0
    #: Training FLOPs per token (forward + backward), for model FLOPs utilisation; 0 when unknown.
    flops_per_token: float = 0.0
    #: dist.strategy=fsdp: the submodules to shard one by one (transformer blocks), given the model; None:
    #: the whole model is one unit (all of it gathered at once: fine for small models).
    shard_units: Callable[[torch.nn.Module], list[torch.nn.Module]] | None = None
    #: Held-out samples of the same kind as `dataset`, for the validation loss (train.eval_every); None: none.
    val_dataset: Any = None


def build_workload(config: Config) -> Workload:
    name = config.workload.name
    if name == "gpt":
        from app.train.workloads.gpt import build_gpt

        return build_gpt(config)
    if name == "regression":
        from app.train.workloads.regression import build_regression

        return build_regression(config)
    return _build_plugin(name, config)


def _build_plugin(spec: str, config: Config) -> Workload:
    module_name, _, function_name = spec.partition(":")
    example = "workload.name=mypkg.task:build"
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise UsageError(
            f"workload.name={spec!r}: cannot import {module_name!r} ({err}); put it on PYTHONPATH; example: {example}"
        ) from None
    build = getattr(module, function_name, None)
    if not callable(build):
        raise UsageError(f"workload.name={spec!r}: {module_name} has no function {function_name!r}; example: {example}")
    result = build(config)
    if isinstance(result, tuple) and len(result) == 3:
        result = Workload(*result)
    if not isinstance(result, Workload) or not isinstance(result.model, torch.nn.Module):
        raise UsageError(
            f"workload.name={spec!r}: {function_name}() returned {type(result).__name__}; it must return "
            "app.train.workloads.Workload(model, dataset, loss_fn) or a (model, dataset, loss_fn) tuple"
        )
    if len(result.dataset) == 0:
        raise UsageError(f"workload.name={spec!r}: the dataset is empty")
    return result
