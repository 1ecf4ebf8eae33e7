"""What a snapshot holds and how it is restored, written in one place.

`TrainingState` owns the stateful parts of a run (model, optimizer, scheduler, scaler, position) and
turns them into a snapshot (`state_dict`) and back (`load_state_dict`), as torchtitan's trainer does;
the checkpointer is handed the dict and only stores it. Format 1, unchanged since the first snapshot:

    format, model, optimizer, scheduler, scaler, position {step, epoch, offset}, world_size,
    samples_per_step, rng {scheme, torch}, config

The sharded strategy (`dist.strategy=fsdp`) uses `sharded_state`/`load_sharded` instead: model and
optimizer through DCP's state-dict helpers (each rank its shard, app/train/sharded_snapshots.py), the
rest as JSON; nothing outside this module knows the keys.
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
from app.train.sharded_snapshots import load_tensors

log = logging.getLogger(__name__)

FORMAT = 1
#: Keys that may differ between a snapshot and the run that resumes it: where things go, how often they
#: are logged or saved, and how long the run is. Any other difference changes what is trained.
MAY_CHANGE_ON_RESUME = (
    "run.dir", "run.log_every", "run.progress", "run.breakdown", "train.max_steps", "train.epochs",
    "train.compile", "snapshot.every", "snapshot.keep", "snapshot.dir", "snapshot.resume", "snapshot.background",
    "data.workers", "data.val_tokens", "data.val_tokens_file", "train.eval_every", "train.eval_steps",
    "train.activation_checkpointing", "run.tensorboard", "run.wandb_project",
    "dist.backend", "dist.timeout_s", "dist.hang_timeout_s", "dist.strategy", "dist.reshard_after_forward",
)
_REMEDY = ("resume with the config it was written with, or start fresh with "
           "another snapshot.dir")


def position_in(snapshot: Mapping[str, Any], source: Path) -> Position:
    """Where a snapshot stands, read before anything is restored (the run length depends on it)."""
    try:
        return Position(**snapshot["position"])
    except (KeyError, TypeError) as err:
        raise UsageError(f"snapshot {source} has no valid position ({err}); {_REMEDY}") from None


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
    """The training state of one rank: restored from a snapshot, saved into the next one."""

    def __init__(self, *, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                 scheduler: torch.optim.lr_scheduler.LRScheduler, scaler: torch.amp.GradScaler, plan: RunPlan,
                 config: dict[str, Any], position: Position | None = None) -> None:
        self.model, self.optimizer, self.scheduler, self.scaler = model, optimizer, scheduler, scaler
        self.plan, self.config = plan, config
        self.position = position or Position()

    def state_dict(self) -> dict[str, Any]:
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

    def sharded_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
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

    def load_sharded(self, extras: Mapping[str, Any], source: Path) -> None:
        """Restore from a sharded snapshot (collective): DCP reshards when it was written by another world size."""
        def tensors() -> None:
            state, _ = self.sharded_state()
            load_tensors(state, source)
            set_model_state_dict(self.model, state["model"])
            set_optimizer_state_dict(self.model, self.optimizer, state["optimizer"])

        self._restore(extras, source, tensors)

    def load_full(self, snapshot: Mapping[str, Any], source: Path) -> None:
        """Restore a single-file (DDP) snapshot into a sharded model: every rank reads the whole tensors and
        keeps its shard. The optimizer state is keyed by parameter index there and by name here."""
        def tensors() -> None:
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

        self._restore(snapshot, source, tensors)

    def load_state_dict(self, snapshot: Mapping[str, Any], source: Path) -> None:
        """Restore every part; a snapshot that does not fit this model or optimizer is a `UsageError`.
        (Its settings were compared with this run's before: `refuse_changed_settings`.)"""
        def tensors() -> None:
            self.model.load_state_dict(snapshot["model"])
            self.optimizer.load_state_dict(snapshot["optimizer"])

        self._restore(snapshot, source, tensors)

    def _restore(self, snapshot: Mapping[str, Any], source: Path, tensors: Callable[[], None]) -> None:
        """Model and optimizer through `tensors` (a snapshot that does not fit them is a `UsageError`), then
        the schedule and the position."""
        position = position_in(snapshot, source)
        try:
            tensors()
        except (RuntimeError, ValueError, KeyError) as err:
            first = str(err).strip().splitlines()[0][:160]
            raise UsageError(f"snapshot {source} does not fit this model/optimizer ({first}); {_REMEDY}") from None
        self.scaler.load_state_dict(snapshot["scaler"])
        self.scheduler.load_state_dict(snapshot["scheduler"])
        for group, lr in zip(self.optimizer.param_groups, self.scheduler.get_last_lr(), strict=True):
            group["lr"] = lr  # the scheduler's constructor reset it to the step-0 value
        self.position = position
        self._log_resume(snapshot, source)

    def _log_resume(self, snapshot: Mapping[str, Any], source: Path) -> None:
        position, plan = self.position, self.plan
        if snapshot["world_size"] != plan.world_size:
            log.warning(
                "resuming %s written with world size %d on world size %d: samples per step change from %d to %d; "
                "the data order continues at sample %d of epoch %d (no sample repeated or skipped), but the run "
                "will not match an uninterrupted one bit for bit",
                source, snapshot["world_size"], plan.world_size, snapshot["samples_per_step"],
                plan.samples_per_step, position.offset, position.epoch,
            )
        else:
            log.info("resuming from %s at step %d (epoch %d, sample %d)",
                     source, position.step, position.epoch, position.offset)
