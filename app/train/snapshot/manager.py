"""The snapshot manager: the one owner of a run's snapshots. It decides when one is due, writes it (in
the background unless told otherwise), prunes old ones, chooses what a run resumes from and puts it back.

The loop makes one call a step, `save(state, step)` (torchtitan's `CheckpointManager.save` is the model);
the manager reads `state` only when a snapshot is due. Which kind is written follows the model: sharded
(`dist.strategy=fsdp`, every rank writes its shard) or one file (ddp, rank 0 writes it). Either kind
resumes either strategy: a sharded snapshot into a DDP model (DCP gathers the shards into whole tensors),
a single-file one into an FSDP model (each rank keeps its shard). On disk: app/train/snapshot/layout.py;
what a snapshot holds: format.py.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import torch
import torch.distributed as dist

from app.common.distributed import group_device
from app.host.common.errors import UsageError
from app.train.config import Config
from app.train.plan import Position
from app.train.snapshot import format, layout
from app.train.snapshot.broadcast import share
from app.train.snapshot.format import UnfitSnapshot
from app.train.snapshot.layout import Snapshot
from app.train.snapshot.writers import writer_for

if TYPE_CHECKING:
    from app.train.state import TrainingState

log = logging.getLogger(__name__)
_REMEDY = "resume with the config it was written with, or start fresh with another snapshot.dir"


def position_of(snapshot: Snapshot) -> Position:
    """Where a snapshot stands, read before anything is restored (the run length depends on it)."""
    try:
        return Position(**format.position_of(snapshot.contents))
    except (KeyError, TypeError) as err:
        raise UsageError(f"snapshot {snapshot.path} has no valid position ({err}); {_REMEDY}") from None


def _seen_by_every_rank(snapshot: Snapshot, device: torch.device | str) -> None:
    """Stop when a rank cannot see the snapshot rank 0 resumes from: a run directory not shared across nodes
    (a rank would write its next snapshot, or read its shards, where no other rank looks)."""
    if not dist.is_initialized() or dist.get_world_size() == 1:
        return
    blind = torch.tensor([0 if snapshot.path.exists() else 1], device=group_device())
    dist.all_reduce(blind)
    if int(blind):
        raise UsageError(
            f"{int(blind)} rank(s) cannot see {snapshot.path}, which rank 0 resumes from; run.dir and snapshot.dir "
            f"must be on a filesystem every node shares, e.g. run.dir=$SCRATCH/runs/myrun"
        )


class SnapshotManager:
    """Snapshots of one run in one directory shared by every rank."""

    def __init__(self, directory: Path, *, keep: int, every: int = 0, background: bool = True,
                 sharded: bool = False, is_main: bool = True, writer_group: dist.ProcessGroup | None = None) -> None:
        self.directory, self.keep, self.every, self.background = directory, keep, every, background
        self.is_main = is_main
        self.writer = writer_for(directory, self._prune, sharded=sharded, is_main=is_main, writer_group=writer_group)
        self.last_step = -1  # the step of the newest snapshot this run wrote or resumed from

    @classmethod
    def for_run(cls, config: Config, directory: Path, *, sharded: bool, is_main: bool) -> SnapshotManager:
        """Collective when sharded snapshots are written in the background: their writes talk over a gloo
        group of their own (a collective of the writer thread on the training group could interleave with
        the loop's and pair the wrong calls across ranks)."""
        snapshot = config.snapshot
        writer_group = dist.new_group(backend="gloo") if sharded and snapshot.background else None
        return cls(directory, keep=snapshot.keep, every=snapshot.every, background=snapshot.background,
                   sharded=sharded, is_main=is_main, writer_group=writer_group)

    # -- writing ----------------------------------------------------------------------------------

    def due(self, step: int, last: bool = False) -> bool:
        """Every `snapshot.every` steps, and at the end of a run (`last`) unless this step's is written."""
        if step == self.last_step:
            return False
        return last or (self.every > 0 and step % self.every == 0)

    def save(self, state: TrainingState, step: int, last: bool = False) -> bool:
        """Write a snapshot of `state` at `step` if one is due; True when one was started. The run's last one
        is written synchronously (the process ends next). Sharded: collective."""
        if not self.due(step, last):
            return False
        self.last_step = step
        # In the background the loop waits for the copy off the training path only; the writer logs both times.
        self.writer.save(state, step, background=self.background and not last)
        return True

    def wait(self) -> None:
        """Until the snapshot in flight (if any) is on disk; a write that failed stops the run here, with the
        remedy (`StorageError` when the file system refused it). Sharded: collective."""
        self.writer.wait()

    def _prune(self, written: Path) -> None:
        """After `written` is complete: delete snapshots of either kind beyond the newest `keep`."""
        for old in layout.listing(self.directory)[self.keep:]:
            if old != written:
                layout.remove(old)

    # -- resuming ---------------------------------------------------------------------------------

    def to_resume(self, mode: str, device: torch.device | str = "cpu") -> Snapshot | None:
        """The snapshot to resume from under `snapshot.resume` (auto, required, never), or None to start."""
        if mode == "never":
            found = layout.listing(self.directory)
            if found:
                raise UsageError(
                    f"snapshot.resume=never but {self.directory} already holds snapshots (newest {found[0].name}); a "
                    f"new run there would mix with them: give another run.dir (or snapshot.dir), or "
                    f"snapshot.resume=auto to go on"
                )
            return None
        # Rank 0 alone lists, verifies and loads; the others receive what it found (a restart reads the run
        # directory once, not once per rank). Sharded: only the manifest check and extras.json are shared,
        # each rank reads its own shards later.
        snapshot = share(layout.read_newest(self.directory, device) if self.is_main else None, device)
        if snapshot is not None:
            _seen_by_every_rank(snapshot, device)
        if snapshot is None and mode == "required":
            raise UsageError(
                f"snapshot.resume=required but {self.directory} holds no valid snapshot; check run.dir (a requeued "
                f"job must see the first attempt's directory, e.g. run.dir=$SCRATCH/runs/$SLURM_JOB_ID), or "
                f"snapshot.resume=auto to start fresh"
            )
        return snapshot

    def restore(self, state: TrainingState, snapshot: Snapshot) -> None:
        """Put `snapshot` back into `state`, whichever kind it is and whichever strategy `state` trains with
        (collective when either is sharded); one that does not fit the model is a `UsageError`."""
        position = position_of(snapshot)
        try:
            if snapshot.sharded:
                state.load_sharded_state_dict(snapshot.contents,
                                              lambda tensors: layout.read_shards(tensors, snapshot.path))
            else:
                state.load_state_dict(snapshot.contents)
        except UnfitSnapshot as err:
            raise UsageError(f"snapshot {snapshot.path} does not fit this model/optimizer ({err}); {_REMEDY}") \
                from None
        state.position = position
        self.last_step = snapshot.step
        self._log_resume(snapshot, state)

    @staticmethod
    def _log_resume(snapshot: Snapshot, state: TrainingState) -> None:
        (world_size, samples_per_step), position, plan = format.world_of(snapshot.contents), state.position, state.plan
        if world_size != plan.world_size:
            log.warning(
                "resuming %s written with world size %d on world size %d: samples per step change from %d to %d; "
                "the data order continues at sample %d of epoch %d (no sample repeated or skipped), but the run "
                "will not match an uninterrupted one bit for bit",
                snapshot.path, world_size, plan.world_size, samples_per_step,
                plan.samples_per_step, position.offset, position.epoch + 1,
            )
        else:  # epochs counted from 1, as the progress lines count them
            log.info("resuming from %s at step %d (epoch %d, sample %d)",
                     snapshot.path, position.step, position.epoch + 1, position.offset)
