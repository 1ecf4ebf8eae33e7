"""Sharded snapshots (`dist.strategy=fsdp`): every rank writes its own shard with torch.distributed.checkpoint.

Layout: `<dir>/step-00000100/` holds DCP's files (`__<rank>_0.distcp` per rank, `.metadata`), the
trainer's other state as JSON (`extras.json`: position, scheduler, scaler, config; nothing to unpickle),
and `manifest.json`, the sha256 of every other file, written last. A snapshot is written into
`.step-00000100.partial/`, and rank 0 renames it when complete, so a directory named `step-*` with a
manifest that verifies is whole; one that does not is skipped with a warning, as single-file snapshots
are. DCP reshards on load: a snapshot written by N ranks loads on M. Loading reads non-tensor items with
`torch.load(weights_only=True)` (DCP's own planner unpickles them freely); DCP's `.metadata` is a pickle
DCP reads itself, checked against the manifest first.

In the background (`snapshot.background`, the default): `dcp.async_save` copies each rank's shard to host
memory (the loop waits for that copy only) and writes it from a thread; its collectives run on a gloo
process group of their own (`writer_group`), so they never interleave with training's. Rank 0's future
completes only once every rank's shard and DCP's metadata are on disk (DCP gathers every rank's write
results first); rank 0 then publishes the snapshot from a thread of its own.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint._traverse import set_element
from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner

from app.common.errors import UsageError
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

    def __init__(self, directory: Path, keep: int, writer_group: dist.ProcessGroup | None = None) -> None:
        self.directory, self.keep, self.writer_group = directory, keep, writer_group
        self._writing: Future | None = None
        self._publishing: threading.Thread | None = None
        self._failure: str | None = None

    def snapshots(self) -> list[Path]:
        """Snapshot directories, newest first."""
        if not self.directory.is_dir():
            return []
        found = [p for p in self.directory.iterdir() if p.is_dir() and _NAME.match(p.name)]
        return sorted(found, key=lambda p: int(_NAME.match(p.name).group(1)), reverse=True)  # type: ignore[union-attr]

    def save(self, tensors: dict[str, Any], extras: dict[str, Any], step: int) -> Path:
        self.wait()
        final, partial = self._prepare(step)
        dcp.save(tensors, checkpoint_id=partial)
        _barrier()  # every shard is on disk
        if _rank() == 0:
            self._publish(partial, final, json.dumps(extras))
        _barrier()  # nobody reads or prunes while it is being published
        return final

    def save_in_background(self, tensors: dict[str, Any], extras: dict[str, Any], step: int) -> float:
        """Copy this rank's shard to host memory and write it from a thread; return the seconds the copy took.
        Collective: every rank calls it, at the same step."""
        self.wait()
        started = time.perf_counter()
        final, partial = self._prepare(step)
        writing = dcp.async_save(tensors, checkpoint_id=partial, process_group=self.writer_group)
        assert isinstance(writing, Future)
        self._writing = writing
        staged_s = time.perf_counter() - started
        if _rank() == 0:
            self._publishing = threading.Thread(target=self._publish_when_written,
                                                args=(writing, partial, final, json.dumps(extras), step, started,
                                                      staged_s),
                                                name="app.train sharded snapshot publisher")
            self._publishing.start()
        return staged_s

    def wait(self) -> None:
        """Until the snapshot in flight (if any) is written and published; a write that failed stops the run
        here. Collective when a snapshot is in flight (the loop calls it on every rank at the same step)."""
        if self._writing is None:
            return
        writing, self._writing = self._writing, None
        try:
            writing.result()
        except Exception as err:  # DCP wraps the writer's OSError in its own exception types
            self._failure = self._failure or f"a sharded snapshot could not be written ({err})"
        if self._publishing is not None:
            self._publishing.join()
            self._publishing = None
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise UsageError(f"{failure}; free space in {self.directory} or give another snapshot.dir, then run "
                             "again to resume")
        _barrier()  # published before anyone goes on (and reads, prunes or writes the next one)

    def _prepare(self, step: int) -> tuple[Path, Path]:
        final = self.directory / f"step-{step:08d}"
        partial = self.directory / f".{final.name}.partial"
        if _rank() == 0:
            shutil.rmtree(partial, ignore_errors=True)  # a write that died half-way
            partial.mkdir(parents=True)
        _barrier()
        return final, partial

    def _publish_when_written(self, writing: Future, partial: Path, final: Path, extras: str, step: int,
                              started: float, staged_s: float) -> None:
        try:
            writing.result()  # rank 0's completes once every rank's shard and the metadata are on disk
            self._publish(partial, final, extras)
        except Exception as err:  # reported by wait(), on the training thread
            self._failure = f"sharded snapshot {final} could not be written ({err})"
            return
        log.info("snapshot written: %s (step %d, %.1fs in the background, sharded; the loop waited %.2fs)", final,
                 step, time.perf_counter() - started, staged_s)

    def _publish(self, partial: Path, final: Path, extras: str) -> None:
        """Rank 0: extras and manifest into the complete directory, then rename it into place."""
        write_text_atomic(partial / EXTRAS, extras + "\n")
        sums = {p.name: sha256_of(p) for p in sorted(partial.iterdir()) if p.is_file()}
        write_text_atomic(partial / MANIFEST, json.dumps(sums, indent=1) + "\n")
        shutil.rmtree(final, ignore_errors=True)
        partial.rename(final)
        self._prune()

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
