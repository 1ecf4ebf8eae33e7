"""Which settings a resumed run may change from those its snapshot was written with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.host.common.errors import UsageError
from app.train.snapshot import format
from app.train.snapshot.layout import Snapshot

#: Keys that may differ between a snapshot and the run that resumes it: where things go, how often they
#: are logged or saved, and how long the run is. Any other difference changes what is trained.
MAY_CHANGE_ON_RESUME = (
    "run.dir", "run.log_every", "run.progress", "run.breakdown", "run.deterministic", "train.max_steps",
    "train.epochs", "train.compile", "train.compile_scope", "snapshot.every", "snapshot.keep", "snapshot.dir",
    "snapshot.resume", "snapshot.background",
    "data.workers", "data.val_tokens", "data.val_tokens_file", "train.eval_every", "train.eval_steps",
    "train.activation_checkpointing", "run.tensorboard", "run.wandb_project",
    "dist.backend", "dist.timeout_s", "dist.hang_timeout_s", "dist.strategy", "dist.reshard_after_forward",
    "dist.gather_once_per_step",
)


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def refuse_changed_settings(snapshot: Snapshot, now: Mapping[str, Any]) -> None:
    """Stop when a key that changes what is trained differs from the snapshot's (e.g. optim.lr): resuming
    would silently keep the snapshot's schedule and state. Keys only one side knows are not compared."""
    old, new = _flatten(format.config_of(snapshot.contents)), _flatten(now)
    changed = [key for key in sorted(old.keys() & new.keys())
               if old[key] != new[key] and key not in MAY_CHANGE_ON_RESUME]
    if changed:
        lines = "\n".join(f"  {key}: {old[key]!r} in the snapshot, {new[key]!r} now" for key in changed)
        raise UsageError(
            f"snapshot {snapshot.path} was written with other settings that change what is trained:\n{lines}\n"
            f"resume with the snapshot's values, or train anew in another run.dir; "
            f"these may change on resume: {', '.join(MAY_CHANGE_ON_RESUME)}"
        )
