"""Which snapshot a run resumes from, and how it is put back into the model, whatever strategy wrote it.

A snapshot directory may hold single-file snapshots (`step-N.pt`, dist.strategy=ddp) and sharded ones
(`step-N/`, fsdp), e.g. after a run switched strategy to fit a bigger batch: the newest usable one of
either kind is the one to resume from. Either kind loads into either strategy: a sharded snapshot into a
DDP model (DCP gathers the shards into whole tensors), a single-file one into an FSDP model (each rank
keeps its shard of the full tensors).
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

from app.common.errors import UsageError
from app.train.checkpoint import Checkpointer
from app.train.sharded_snapshots import ShardedCheckpointer
from app.train.state import TrainingState

_STEP = re.compile(r"^step-(\d{8,})")


def snapshot_to_resume(directory: Path, keep: int, mode: str,
                       device: torch.device) -> tuple[dict, Path] | None:
    """The snapshot to resume from under `snapshot.resume` (auto, required, never), or None to start."""
    kinds = (Checkpointer(directory, keep), ShardedCheckpointer(directory, keep))
    found = sorted(((int(_STEP.match(p.name)[1]), p, kind) for kind in kinds for p in kind.snapshots()),  # type: ignore[index]
                   key=lambda item: item[0], reverse=True)
    if mode == "never":
        if found:
            raise UsageError(
                f"snapshot.resume=never but {directory} already holds snapshots (newest {found[0][1].name}); a new "
                f"run there would mix with them: give another run.dir (or snapshot.dir), or snapshot.resume=auto "
                f"to go on"
            )
        return None
    loaded = next(filter(None, (kind.load(path, device) for _, path, kind in found)), None)
    if loaded is None and mode == "required":
        raise UsageError(
            f"snapshot.resume=required but {directory} holds no valid snapshot; check run.dir (a requeued job must "
            f"see the first attempt's directory, e.g. run.dir=$SCRATCH/runs/$SLURM_JOB_ID), or snapshot.resume=auto "
            f"to start fresh"
        )
    return loaded


def restore(state: TrainingState, loaded: tuple[dict, Path], sharded_model: bool) -> None:
    snapshot, path = loaded
    if snapshot.get("sharded"):
        state.load_sharded(snapshot, path)
    elif sharded_model:
        state.load_full(snapshot, path)
    else:
        state.load_state_dict(snapshot, path)
