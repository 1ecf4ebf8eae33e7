"""Sharded snapshots (`dist.strategy=fsdp`): every rank writes its own shard with torch.distributed.checkpoint.

Layout: `<dir>/step-00000100/` holds DCP's files (`__<rank>_0.distcp` per rank, `.metadata`), the
trainer's other state as JSON (`extras.json`: position, scheduler, scaler, config; nothing to unpickle),
and `manifest.json`, the sha256 of every other file, written last. A snapshot is written into
`.step-00000100.partial/` and renamed when complete, so a directory named `step-*` with a manifest that
verifies is whole; one that does not is skipped with a warning, as single-file snapshots are. DCP reshards
on load: a snapshot written by N ranks loads on M. Loading reads non-tensor items with
`torch.load(weights_only=True)` (DCP's own planner unpickles them freely); DCP's `.metadata` is a pickle
DCP reads itself, checked against the manifest first.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint._traverse import set_element
from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner

from app.train.atomic import sha256_of, write_text_atomic

log = logging.getLogger(__name__)
_NAME = re.compile(r"^step-(\d{8,})$")
MANIFEST, EXTRAS = "manifest.json", "extras.json"


class _WeightsOnlyLoadPlanner(DefaultLoadPlanner):
    """DCP's default planner, but non-tensor items are read with `weights_only=True`."""

    def load_bytes(self, read_item, value) -> None:  # type: ignore[no-untyped-def]
        loaded = torch.load(value, weights_only=True)
        if self.flatten_state_dict:
            set_element(self.original_state_dict, self.mappings[read_item.dest_index.fqn], loaded)
        else:
            self.state_dict[read_item.dest_index.fqn] = loaded


def _barrier() -> None:
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.barrier()


def _rank() -> int:
    return dist.get_rank() if dist.is_initialized() else 0


class ShardedCheckpointer:
    """Save and find sharded snapshots; `save` and `load` are collective (every rank calls them)."""

    collective = True

    def __init__(self, directory: Path, keep: int) -> None:
        self.directory, self.keep = directory, keep

    def snapshots(self) -> list[Path]:
        """Snapshot directories, newest first."""
        if not self.directory.is_dir():
            return []
        found = [p for p in self.directory.iterdir() if p.is_dir() and _NAME.match(p.name)]
        return sorted(found, key=lambda p: int(_NAME.match(p.name).group(1)), reverse=True)  # type: ignore[union-attr]

    def save(self, tensors: dict[str, Any], extras: dict[str, Any], step: int) -> Path:
        final = self.directory / f"step-{step:08d}"
        partial = self.directory / f".{final.name}.partial"
        if _rank() == 0:
            shutil.rmtree(partial, ignore_errors=True)  # a write that died half-way
            partial.mkdir(parents=True)
        _barrier()
        dcp.save(tensors, checkpoint_id=partial)
        _barrier()  # every shard is on disk
        if _rank() == 0:
            write_text_atomic(partial / EXTRAS, json.dumps(extras) + "\n")
            sums = {p.name: sha256_of(p) for p in sorted(partial.iterdir()) if p.is_file()}
            write_text_atomic(partial / MANIFEST, json.dumps(sums, indent=1) + "\n")
            shutil.rmtree(final, ignore_errors=True)
            partial.rename(final)
            self._prune()
        _barrier()  # nobody reads or prunes while it is being published
        return final

    def wait(self) -> None:
        """Sharded snapshots are written synchronously: nothing in flight."""

    def _prune(self) -> None:
        for old in self.snapshots()[self.keep :]:
            shutil.rmtree(old, ignore_errors=True)

    def load(self, path: Path, map_location: torch.device | str = "cpu") -> tuple[dict[str, Any], Path] | None:
        """The extras of the snapshot at `path` if its manifest verifies, else None with a warning (the tensors
        load later, into the model, with `load_tensors`; `map_location` is for the single-file kind's sake)."""
        problem = verify(path)
        if problem is None:
            return {**json.loads((path / EXTRAS).read_text()), "sharded": True}, path
        log.warning("snapshot %s is unusable: %s; falling back to the previous snapshot", path, problem)
        return None


def load_tensors(tensors: dict[str, Any], path: Path) -> None:
    """Fill `tensors` (this rank's sharded state dicts) in place from the snapshot at `path`."""
    dcp.load(tensors, checkpoint_id=path, planner=_WeightsOnlyLoadPlanner())


def verify(path: Path) -> str | None:
    """None when every file matches the manifest, else what is wrong."""
    try:
        recorded = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return f"its {MANIFEST} is missing or unreadable (the write did not finish)"
    for name, digest in recorded.items():
        try:
            actual = sha256_of(path / name)
        except OSError:
            return f"{name} is missing"
        if actual != digest:
            return f"{name}: sha256 {actual[:12]}… does not match the recorded {digest[:12]}… (truncated or corrupted)"
    return None
