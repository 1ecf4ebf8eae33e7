"""Settings a run can never reach at its world size are said before it starts, and no shipped config has any."""

from __future__ import annotations

import pytest
import torch

from app.common.typedconfig import load_config
from app.train.cli import CONFIG_DIR
from app.train.config import Config
from app.train.plan import Position, RunPlan, unreachable_settings

#: The world size each shipped config is written for (its header says so).
SHIPPED = {"demo": 2, "regression": 2, "gpt2-h100": 8}


def plan_of(config: Config, dataset_size: int, world_size: int) -> RunPlan:
    return RunPlan.build(config, dataset_size, world_size, torch.device("cpu"), Position())


def test_every_shipped_config_is_listed():
    assert {p.stem for p in CONFIG_DIR.glob("*.yaml")} == set(SHIPPED)


def same_length_stream(length: int, *_, **__) -> torch.Tensor:
    """A generated token stream's stand-in: as long as the one asked for (synthetic_token_stream returns exactly
    that many, tests/train/test_gpt.py), with no content: the windows' count depends on the length alone, and
    gpt2-h100's 50 million generated tokens took 6 of this module's 7 CPU seconds."""
    return torch.empty(length, dtype=torch.int32, device="meta")


@pytest.mark.parametrize(("name", "world_size"), sorted(SHIPPED.items()))
def test_no_shipped_config_asks_for_steps_or_snapshots_it_never_reaches(name, world_size, monkeypatch):
    from app.train.workloads import build_workload, gpt

    monkeypatch.setattr(gpt, "synthetic_token_stream", same_length_stream)
    config = load_config(Config, str(CONFIG_DIR / f"{name}.yaml"), [])
    with torch.device("meta"):
        dataset_size = len(build_workload(config).dataset)
    assert unreachable_settings(config, plan_of(config, dataset_size, world_size)) == []


def test_max_steps_beyond_the_epochs_and_a_snapshot_interval_beyond_the_run_are_named_with_the_fix():
    config = load_config(Config, None, ["train.max_steps=5000", "train.batch_size=16", "snapshot.every=500",
                                        "optim.warmup_steps=200"])
    notes = unreachable_settings(config, plan_of(config, 48_828, 32))  # 95 steps an epoch
    assert notes == [
        "train.max_steps=5000 is never reached: train.epochs=1 is 95 steps at world size 32 (raise train.epochs, "
        "or give more data)",
        "snapshot.every=500 never fires in a run of 95 steps: only its end is snapshotted (example: "
        "snapshot.every=47)",
        "optim.warmup_steps=200 is longer than the run's 95 steps: the learning rate never reaches optim.lr "
        "(example: optim.warmup_steps=9)",
    ]
