"""Which model runs forward and backward: DDP only where there is a gradient to all-reduce."""

from __future__ import annotations

import torch
from torch.nn.parallel import DistributedDataParallel

from app.common.cluster import detect_environment
from app.common.distributed import DistContext, init_distributed, shutdown
from app.common.typedconfig import load_config
from app.train.assemble import wrap
from app.train.cli import resolve_config_path
from app.train.config import Config


def wrapped_at(world_size: int) -> tuple[torch.nn.Module, torch.nn.Module, bool]:
    config = load_config(Config, resolve_config_path("regression"), ["train.compile=false"])
    ctx = init_distributed(detect_environment({}), "gloo")  # a group of one, as torchrun gives one rank
    try:
        model = torch.nn.Linear(4, 1)
        runs, stats = wrap(config, DistContext(0, 0, world_size, torch.device("cpu"), "gloo", ctx.launcher), model,
                           None, sharded=False)
        return model, runs, stats.attached
    finally:
        shutdown()


def test_one_rank_trains_the_model_itself_and_sums_its_statistics_without_a_hook():
    model, runs, attached = wrapped_at(1)
    assert runs is model and not attached


def test_several_ranks_train_through_ddp_with_the_statistics_riding_on_its_all_reduce():
    model, runs, attached = wrapped_at(2)
    assert isinstance(runs, DistributedDataParallel) and runs.module is model and attached
