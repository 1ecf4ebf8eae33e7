"""The training state of one rank, and how it goes into a snapshot and comes back.

`TrainingState` owns the stateful parts of a run (model, optimizer, scheduler, scaler, position) and
turns them into a snapshot (`state_dict`, `sharded_state_dict`) and back (`load_state_dict`,
`load_sharded_state_dict`): DCP's `Stateful` shape, as torchtitan's trainer has it. The snapshot manager
(app/train/snapshot/) is handed the state and stores what it gives; the keys of what it gives are the
format's (app/train/snapshot/format.py), named nowhere else.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
    get_optimizer_state_dict,
    set_model_state_dict,
    set_optimizer_state_dict,
)

from app.train.plan import Position, RunPlan
from app.train.snapshot import format
from app.train.snapshot.format import UnfitSnapshot

log = logging.getLogger(__name__)


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
        return format.whole(self.model.state_dict(), self.optimizer.state_dict(), self._parts())

    def sharded_state_dict(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(tensors for DCP: this rank's shards of model and optimizer, extras for JSON); collective."""
        return format.sharded(get_model_state_dict(self.model), get_optimizer_state_dict(self.model, self.optimizer),
                              self._parts())

    def _parts(self) -> format.Parts:
        return format.Parts(scheduler=self.scheduler.state_dict(), scaler=self.scaler.state_dict(),
                            position=vars(self.position).copy(), world_size=self.plan.world_size,
                            samples_per_step=self.plan.samples_per_step, config=self.config)

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Restore a single-file snapshot, into a DDP model or (every rank reading the whole tensors and
        keeping its shard) an FSDP one. `UnfitSnapshot` when it does not fit this model or optimizer. (Its
        settings were compared with this run's before: `refuse_changed_settings`.)"""
        if self.sharded:
            self._restore(state_dict, lambda: self._load_whole_into_shards(state_dict))
        else:
            self._restore(state_dict, lambda: (self.model.load_state_dict(format.model_of(state_dict)),
                                               self.optimizer.load_state_dict(format.optimizer_of(state_dict))))

    def load_sharded_state_dict(self, extras: Mapping[str, Any], read_shards: Callable[[dict[str, Any]], None]) -> None:
        """Restore a sharded snapshot (collective): `read_shards` fills this rank's shards in place; DCP
        reshards when another world size wrote it, and gathers whole tensors for a DDP model."""
        def tensors() -> None:
            state, _ = self.sharded_state_dict()
            read_shards(state)
            set_model_state_dict(self.model, format.model_of(state))
            set_optimizer_state_dict(self.model, self.optimizer, format.optimizer_of(state))

        self._restore(extras, tensors)

    def _load_whole_into_shards(self, snapshot: Mapping[str, Any]) -> None:
        """The optimizer state is keyed by parameter index in the file and by name here."""
        names = {id(p): name for name, p in self.model.named_parameters()}
        saved = format.optimizer_of(snapshot)
        by_index = {index: names[id(live)]
                    for group, live_group in zip(saved["param_groups"], self.optimizer.param_groups, strict=True)
                    for index, live in zip(group["params"], live_group["params"], strict=True)}
        groups = [{**group, "params": [by_index[i] for i in group["params"]]} for group in saved["param_groups"]]
        optimizer = {"state": {by_index[i]: value for i, value in saved["state"].items()}, "param_groups": groups}
        full = StateDictOptions(full_state_dict=True)
        set_model_state_dict(self.model, format.model_of(snapshot), options=full)
        set_optimizer_state_dict(self.model, self.optimizer, optimizer, options=full)

    def _restore(self, snapshot: Mapping[str, Any], tensors: Callable[[], object]) -> None:
        """Model and optimizer through `tensors`, then the schedule and the position."""
        try:
            tensors()
        except (RuntimeError, ValueError, KeyError) as err:
            lines = [line.strip() for line in str(err).splitlines() if line.strip()]
            raise UnfitSnapshot(" ".join(lines[:2])[:200]) from None  # torch's first line only says "Error(s) in"
        self.scaler.load_state_dict(format.scaler_of(snapshot))
        self.scheduler.load_state_dict(format.scheduler_of(snapshot))
        for group, lr in zip(self.optimizer.param_groups, self.scheduler.get_last_lr(), strict=True):
            group["lr"] = lr  # the scheduler's constructor reset it to the step-0 value
        self.position = Position(**format.position_of(snapshot))
