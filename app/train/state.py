"""What a snapshot holds and how it is restored, written in one place.

`TrainingState` owns the stateful parts of a run (model, optimizer, scheduler, scaler, position) and
turns them into a snapshot (`state_dict`) and back (`load_state_dict`): DCP's `Stateful` shape, as
torchtitan's trainer has it; the snapshot manager (app/train/snapshots.py) is handed the state and only
stores what it gives. Format 1, unchanged since the first snapshot:

    format, model, optimizer, scheduler, scaler, position {step, epoch, offset}, world_size,
    samples_per_step, rng {scheme, torch}, config

Sharded snapshots (`dist.strategy=fsdp`) use `sharded_state_dict`/`load_sharded_state_dict`: model and
optimizer through DCP's state-dict helpers (each rank its shard), the rest as JSON; nothing outside this
module knows the keys.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import torch
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
    get_optimizer_state_dict,
    set_model_state_dict,
    set_optimizer_state_dict,
)

from app.common.errors import UsageError
from app.train.plan import Position, RunPlan

log = logging.getLogger(__name__)

FORMAT = 1
#: Keys that may differ between a snapshot and the run that resumes it: where things go, how often they
#: are logged or saved, and how long the run is. Any other difference changes what is trained.
MAY_CHANGE_ON_RESUME = (
    "run.dir", "run.log_every", "run.progress", "run.breakdown", "run.deterministic", "train.max_steps",
    "train.epochs", "train.compile", "train.compile_scope", "snapshot.every", "snapshot.keep", "snapshot.dir",
    "snapshot.resume", "snapshot.background",
    "data.workers", "data.val_tokens", "data.val_tokens_file", "train.eval_every", "train.eval_steps",
    "train.activation_checkpointing", "run.tensorboard", "run.wandb_project",
    "dist.backend", "dist.timeout_s", "dist.hang_timeout_s", "dist.strategy", "dist.reshard_after_forward",
)


class UnfitSnapshot(ValueError):
    """A snapshot whose tensors do not fit this model or optimizer (the message says where)."""


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def refuse_changed_settings(written: Mapping[str, Any], now: Mapping[str, Any], source: Path) -> None:
    """Stop when a key that changes what is trained differs from the snapshot's (e.g. optim.lr): resuming
    would silently keep the snapshot's schedule and state. Keys only one side knows are not compared."""
    old, new = _flatten(written), _flatten(now)
    changed = [key for key in sorted(old.keys() & new.keys())
               if old[key] != new[key] and key not in MAY_CHANGE_ON_RESUME]
    if changed:
        lines = "\n".join(f"  {key}: {old[key]!r} in the snapshot, {new[key]!r} now" for key in changed)
        raise UsageError(
            f"snapshot {source} was written with other settings that change what is trained:\n{lines}\n"
            f"resume with the snapshot's values, or train anew in another run.dir; "
            f"these may change on resume: {', '.join(MAY_CHANGE_ON_RESUME)}"
        )


class TrainingState:
    """The training state of one rank: restored from a snapshot, saved into the next one. `sharded`: the
    model is sharded (FSDP2), so its parameters are DTensors and a whole-tensor snapshot is cut on load."""

    def __init__(self, *, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                 scheduler: torch.optim.lr_scheduler.LRScheduler, scaler: torch.amp.GradScaler, plan: RunPlan,
                 config: dict[str, Any], sharded: bool = False, position: Position | None = None) -> None:
        self.model, self.optimizer, self.scheduler, self.scaler = model, optimizer, scheduler, scaler
        self.plan, self.config, self.sharded = plan, config, sharded
        self.position = position or Position()

    def state_dict(self) -> dict[str, Any]:
        """The whole state, for a single-file snapshot (of a DDP model: an FSDP one saves sharded)."""
        return {
            "format": FORMAT,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "scaler": self.scaler.state_dict(),
            "position": vars(self.position).copy(),
            "world_size": self.plan.world_size,
            "samples_per_step": self.plan.samples_per_step,
            "rng": {
                "scheme": "reseeded every step from (run.seed, rank, step); state below is rank 0's",
                "torch": torch.get_rng_state(),
            },
            "config": self.config,
        }

    def sharded_state_dict(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(tensors for DCP: this rank's shards of model and optimizer, extras for JSON); collective."""
        tensors = {"model": get_model_state_dict(self.model),
                   "optimizer": get_optimizer_state_dict(self.model, self.optimizer)}
        extras = {
            "format": FORMAT,
            "strategy": "fsdp",
            "scheduler": self.scheduler.state_dict(),
            "scaler": self.scaler.state_dict(),
            "position": vars(self.position).copy(),
            "world_size": self.plan.world_size,
            "samples_per_step": self.plan.samples_per_step,
            "config": self.config,
        }
        return tensors, extras

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore a single-file snapshot, into a DDP model or (every rank reading the whole tensors and
        keeping its shard) an FSDP one. `UnfitSnapshot` when it does not fit this model or optimizer. (Its
        settings were compared with this run's before: `refuse_changed_settings`.)"""
        if self.sharded:
            self._restore(state_dict, lambda: self._load_whole_into_shards(state_dict))
        else:
            self._restore(state_dict, lambda: (self.model.load_state_dict(state_dict["model"]),
                                               self.optimizer.load_state_dict(state_dict["optimizer"])))

    def load_sharded_state_dict(self, extras: Mapping[str, Any], read_shards: Callable[[dict[str, Any]], None]) -> None:
        """Restore a sharded snapshot (collective): `read_shards` fills this rank's shards in place; DCP
        reshards when another world size wrote it, and gathers whole tensors for a DDP model."""
        def tensors() -> None:
            state, _ = self.sharded_state_dict()
            read_shards(state)
            set_model_state_dict(self.model, state["model"])
            set_optimizer_state_dict(self.model, self.optimizer, state["optimizer"])

        self._restore(extras, tensors)

    def _load_whole_into_shards(self, snapshot: Mapping[str, Any]) -> None:
        """The optimizer state is keyed by parameter index in the file and by name here."""
        names = {id(p): name for name, p in self.model.named_parameters()}
        saved = snapshot["optimizer"]
        by_index = {index: names[id(live)]
                    for group, live_group in zip(saved["param_groups"], self.optimizer.param_groups, strict=True)
                    for index, live in zip(group["params"], live_group["params"], strict=True)}
        groups = [{**group, "params": [by_index[i] for i in group["params"]]} for group in saved["param_groups"]]
        optimizer = {"state": {by_index[i]: value for i, value in saved["state"].items()}, "param_groups": groups}
        full = StateDictOptions(full_state_dict=True)
        set_model_state_dict(self.model, snapshot["model"], options=full)
        set_optimizer_state_dict(self.model, self.optimizer, optimizer, options=full)

    def _restore(self, snapshot: Mapping[str, Any], tensors: Callable[[], object]) -> None:
        """Model and optimizer through `tensors`, then the schedule and the position."""
        try:
            tensors()
        except (RuntimeError, ValueError, KeyError) as err:
            lines = [line.strip() for line in str(err).splitlines() if line.strip()]
            raise UnfitSnapshot(" ".join(lines[:2])[:200]) from None  # torch's first line only says "Error(s) in"
        self.scaler.load_state_dict(snapshot["scaler"])
        self.scheduler.load_state_dict(snapshot["scheduler"])
        for group, lr in zip(self.optimizer.param_groups, self.scheduler.get_last_lr(), strict=True):
            group["lr"] = lr  # the scheduler's constructor reset it to the step-0 value
        self.position = Position(**snapshot["position"])
