"""What a snapshot holds: every key of the format, written and read in this one module.

Format 1, unchanged since the first snapshot. A single-file snapshot (`dist.strategy=ddp`) is one `torch.save`d
mapping:

    format, model, optimizer, scheduler, scaler, position {step, epoch, offset}, world_size,
    samples_per_step, rng {scheme, torch}, config

A sharded one (`dist.strategy=fsdp`) gives `model` and `optimizer` to DCP (each rank its shard) and the rest,
without `rng`, with `strategy: fsdp`, to `extras.json` (app/train/snapshot/layout.py says where each lies).
The training state (app/train/state.py) hands its parts to `whole`/`sharded` and takes them back through the
readers below; nothing else names a key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

FORMAT = 1
_RNG_SCHEME = "reseeded every step from (run.seed, rank, step); state below is rank 0's"


class UnfitSnapshot(ValueError):
    """A snapshot whose tensors do not fit this model or optimizer (the message says where)."""


@dataclass(frozen=True)
class Parts:
    """What the training state gives a snapshot besides the model and optimizer (and takes back on resume)."""

    scheduler: dict[str, Any]
    scaler: dict[str, Any]
    position: dict[str, int]
    world_size: int
    samples_per_step: int
    config: dict[str, Any]


def whole(model: dict[str, Any], optimizer: dict[str, Any], parts: Parts) -> dict[str, Any]:
    """A single-file snapshot: everything in one mapping."""
    common = _common(parts)
    config = common.pop("config")
    return {"format": FORMAT, "model": model, "optimizer": optimizer, **common,
            "rng": {"scheme": _RNG_SCHEME, "torch": torch.get_rng_state()}, "config": config}


def sharded(model: dict[str, Any], optimizer: dict[str, Any], parts: Parts) -> tuple[dict[str, Any], dict[str, Any]]:
    """A sharded snapshot: (the tensors, for DCP; the rest, for JSON)."""
    return {"model": model, "optimizer": optimizer}, {"format": FORMAT, "strategy": "fsdp", **_common(parts)}


def _common(parts: Parts) -> dict[str, Any]:
    return {"scheduler": parts.scheduler, "scaler": parts.scaler, "position": parts.position,
            "world_size": parts.world_size, "samples_per_step": parts.samples_per_step, "config": parts.config}


def model_of(contents: Mapping[str, Any]) -> Any:
    """The model's state dict of a single-file snapshot, or of the tensors DCP filled (`sharded`'s first)."""
    return contents["model"]


def optimizer_of(contents: Mapping[str, Any]) -> Any:
    return contents["optimizer"]


def scheduler_of(contents: Mapping[str, Any]) -> Any:
    return contents["scheduler"]


def scaler_of(contents: Mapping[str, Any]) -> Any:
    return contents["scaler"]


def position_of(contents: Mapping[str, Any]) -> dict[str, int]:
    """The training position's fields (`KeyError` or `TypeError` when the snapshot has none that is valid)."""
    position = contents["position"]
    if not isinstance(position, Mapping):
        raise TypeError(f"position is a {type(position).__name__}, not a mapping")
    return dict(position)


def config_of(contents: Mapping[str, Any]) -> Mapping[str, Any]:
    """The settings the snapshot was written with (empty when it records none)."""
    config = contents.get("config", {})
    return config if isinstance(config, Mapping) else {}


def world_of(contents: Mapping[str, Any]) -> tuple[int, int]:
    """(world size, samples per step) of the run that wrote it."""
    return contents["world_size"], contents["samples_per_step"]
