"""The two ways a snapshot is written (app/train/snapshot/layout.py says what they leave on disk), each
synchronously (`write`) or in the background (`start`, then `wait`). `writer_for` picks the one a rank uses,
once; the manager then calls `save` and `wait` and never asks which it holds.

In the background the loop waits only while the state is taken off the training path: the single-file
writer copies every tensor to CPU memory of its own (the next optimizer step cannot change what is
written) and writes from a thread; the sharded writer hands each rank's shard to `dcp.async_save`, which
stages it in host memory and writes from a thread, its collectives on a gloo group of their own
(`writer_group`) so they never interleave with training's. At most one write is in flight; the next
snapshot, and the end of the run, wait for it. A write that failed stops the run at that wait; one the file
system refused (full, over quota, failing) as a `StorageError` with the remedy (write_failures.py).
"""

from __future__ import annotations

import copy
import json
import logging
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.default_planner import DefaultSavePlanner
from torch.distributed.checkpoint.filesystem import FileSystemWriter
from torch.distributed.checkpoint.metadata import Metadata
from torch.distributed.checkpoint.planner import SavePlan, SavePlanner
from torch.distributed.checkpoint.storage import WriteResult

from app.common.atomic import fsync_dir, sha256_of, write_atomic, write_text_atomic
from app.host.common.private_dir import make_private_dir, make_private_files
from app.train.snapshot import layout
from app.train.snapshot.write_failures import WRITE_ERRORS, as_write_failure, os_error_in, raise_on_every_rank

if TYPE_CHECKING:
    from app.train.state import TrainingState

log = logging.getLogger(__name__)


class Writer(Protocol):
    """What the manager asks of a writer."""

    def save(self, state: TrainingState, step: int, *, background: bool) -> None:
        """Write `state` as the snapshot of `step`, from a thread when `background` (collective if sharded)."""

    def wait(self) -> None:
        """Until the write in flight (if any) is on disk; raise what it failed with."""


def writer_for(directory: Path, published: Callable[[Path], None], *, sharded: bool, is_main: bool,
               writer_group: dist.ProcessGroup | None = None) -> Writer:
    """The writer of this rank: sharded (every rank writes its shard), or one file that rank 0 writes."""
    if sharded:
        return ShardedWriter(directory, published, writer_group)
    return SingleFileWriter(directory, published) if is_main else NonWritingRank()


class SingleFileWriter:
    """Rank 0 writes the whole state into one file and its checksum."""

    def __init__(self, directory: Path, published: Callable[[Path], None]) -> None:
        self.directory, self.published = directory, published
        self._writing: threading.Thread | None = None
        self._failure: BaseException | None = None  # of the background write, raised by `wait`
        self._copy: Any = None  # the state last copied for a background write: its memory is reused

    def save(self, state: TrainingState, step: int, *, background: bool) -> None:
        if background:
            self.start(state.state_dict(), step)
            return
        self.wait()
        started = time.perf_counter()
        failure = None
        try:
            path = self.write(state.state_dict(), step)
        except WRITE_ERRORS as err:
            failure = err
        raise_on_every_rank(failure, f"snapshot of step {step}")  # as NonWritingRank.save does
        log.info("snapshot written: %s (step %d, %.1fs)", path, step, time.perf_counter() - started)

    def write(self, state: dict[str, Any], step: int) -> Path:
        path = layout.single_file_path(self.directory, step)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            digest = write_atomic(path, lambda file: torch.save(state, file))
            write_text_atomic(layout.checksum_path(path), f"{digest}  {path.name}\n")
        except Exception as err:  # torch.save raises a write cut short as a RuntimeError, the OSError its context
            failure = as_write_failure(err, f"snapshot {path}", self.directory)
            if failure is err:
                raise
            raise failure from None
        self.published(path)
        return path

    def start(self, state: dict[str, Any], step: int) -> float:
        """Copy `state` off the training path and write it from a thread; return the seconds the copy took."""
        self.wait()
        started = time.perf_counter()
        copied = self._copy = copy_off_device(state, self._copy)
        copy_s = time.perf_counter() - started
        self._writing = threading.Thread(target=self._write_in_background, args=(copied, step, copy_s),
                                         name="app.train snapshot writer")
        self._writing.start()
        return copy_s

    def wait(self) -> None:
        """Collective, with NonWritingRank.wait: the other ranks hear of a failed write here, not from the next
        collective, which rank 0 has left (they would end as hung, naming rank 0's node to leave out)."""
        if self._writing is not None:
            self._writing.join()
            self._writing = None
        failure, self._failure = self._failure, None
        raise_on_every_rank(failure, "snapshot")

    def _write_in_background(self, state: dict[str, Any], step: int, copy_s: float) -> None:
        started = time.perf_counter()
        try:
            path = self.write(state, step)
        except WRITE_ERRORS as err:  # raised by wait(), on the training thread
            self._failure = err
            return
        log.info("snapshot written: %s (step %d, %.1fs in the background; the loop waited %.2fs)", path, step,
                 time.perf_counter() - started, copy_s)


class ErrnoKeepingWriter(FileSystemWriter):
    """DCP's own file writer, as `checkpoint_id=path` picks it, that fails with the file system's error itself.
    A write cut short inside torch.save (DCP writes each rank's file with it) raises a RuntimeError ("unexpected
    pos") whose context is the OSError; DCP hands every rank's failure to the others pickled, and a pickled
    exception loses its context, so the cause (a full disk, a quota) would reach no rank."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.reset(path)  # as DCP's own setup does (torch/distributed/checkpoint/_storage_utils.py)

    def write_data(self, plan: SavePlan, planner: SavePlanner) -> Future[list[WriteResult]]:
        with the_file_systems_error():
            return super().write_data(plan, planner)

    def finish(self, metadata: Metadata, results: list[list[WriteResult]]) -> None:
        with the_file_systems_error():
            super().finish(metadata, results)


@contextmanager
def the_file_systems_error() -> Iterator[None]:
    """Raise the OSError behind what the block raised, as a new one that pickles whole (errno, message, file name);
    anything else unchanged, with its context (a bug shows its whole traceback)."""
    try:
        yield
    except Exception as err:
        cause = os_error_in(err)
        if cause is None:
            raise
        raise OSError(cause.errno, cause.strerror, cause.filename) from None


def _barrier() -> None:
    if dist.is_initialized() and dist.get_world_size() > 1:
        dist.barrier()


def _save_planner() -> DefaultSavePlanner:
    """DCP's planner, with the items every rank holds alike (the optimizer's step counters) saved by rank 0:
    by default DCP spreads them over every rank's file, and a restart then opens every file on every rank
    (N^2 opens at N ranks, a parallel filesystem's metadata server's load); now each rank opens its own
    and rank 0's (tests/train/test_snapshot_reads.py)."""
    return DefaultSavePlanner(dedup_save_to_lowest_rank=True)


def _rank() -> int:
    return dist.get_rank() if dist.is_initialized() else 0


class ShardedWriter:
    """Every rank writes its shard with DCP; rank 0 adds the extras and the manifest and renames the directory
    into place. Every method is collective: every rank calls it, at the same step."""

    def __init__(self, directory: Path, published: Callable[[Path], None],
                 writer_group: dist.ProcessGroup | None = None) -> None:
        self.directory, self.published, self.writer_group = directory, published, writer_group
        self._writing: Future | None = None
        self._publishing: threading.Thread | None = None
        self._in_flight: Path | None = None  # the snapshot being written in the background
        self._failure: BaseException | None = None  # of the background write, raised by `wait`

    def save(self, state: TrainingState, step: int, *, background: bool) -> None:
        if background:
            self.start(*state.sharded_state_dict(), step)
            return
        started = time.perf_counter()
        path = self.write(*state.sharded_state_dict(), step)
        if _rank() == 0:
            log.info("snapshot written: %s (step %d, %.1fs, sharded)", path, step, time.perf_counter() - started)

    def write(self, tensors: dict[str, Any], extras: dict[str, Any], step: int) -> Path:
        self.wait()
        final = layout.sharded_path(self.directory, step)
        try:
            partial = self._prepare(final)
            dcp.save(tensors, storage_writer=ErrnoKeepingWriter(partial),
                     planner=_save_planner())  # raises on every rank alike
        except WRITE_ERRORS as err:
            failure = as_write_failure(err, f"sharded snapshot {final}", self.directory)
            if failure is err:
                raise
            raise failure from None
        _barrier()  # every shard is on disk
        published: BaseException | None = None
        if _rank() == 0:
            try:
                self._publish(partial, final, json.dumps(extras))
            except WRITE_ERRORS as err:
                published = as_write_failure(err, f"sharded snapshot {final}", self.directory)
        raise_on_every_rank(published, f"sharded snapshot {final}")  # and nobody reads or prunes before it is
        return final

    def start(self, tensors: dict[str, Any], extras: dict[str, Any], step: int) -> float:
        """Stage this rank's shard in host memory and write it from a thread; return the seconds staging took.
        Rank 0's future completes only once every rank's shard and DCP's metadata are on disk (DCP gathers
        every rank's write results first); rank 0 then publishes the snapshot from a thread of its own."""
        self.wait()
        started = time.perf_counter()
        final = self._in_flight = layout.sharded_path(self.directory, step)
        partial = self._prepare(final)
        writing = dcp.async_save(tensors, storage_writer=ErrnoKeepingWriter(partial),
                                 process_group=self.writer_group, planner=_save_planner())
        assert isinstance(writing, Future)
        self._writing = writing
        staged_s = time.perf_counter() - started
        if _rank() == 0:
            self._publishing = threading.Thread(
                target=self._publish_when_written,
                args=(writing, partial, final, json.dumps(extras), step, started, staged_s),
                name="app.train sharded snapshot publisher")
            self._publishing.start()
        return staged_s

    def wait(self) -> None:
        if self._writing is None:
            return
        writing, self._writing = self._writing, None
        try:
            writing.result()
        except WRITE_ERRORS as err:  # DCP wraps the writer's OSError in its CheckpointException
            self._failure = self._failure or as_write_failure(err, f"sharded snapshot {self._in_flight}",
                                                              self.directory)
        if self._publishing is not None:
            self._publishing.join()
            self._publishing = None
        failure, self._failure = self._failure, None
        # Published before anyone goes on (and reads, prunes or writes the next one), or failed on every rank.
        raise_on_every_rank(failure, f"sharded snapshot {self._in_flight}")

    def _prepare(self, final: Path) -> Path:
        """The directory the snapshot `final` is written into until it is complete."""
        partial = layout.partial_path(final)
        if _rank() == 0:
            shutil.rmtree(partial, ignore_errors=True)  # a write that died half-way
            self.directory.mkdir(parents=True, exist_ok=True)
            make_private_dir(partial)
        _barrier()
        return partial

    def _publish_when_written(self, writing: Future, partial: Path, final: Path, extras: str, step: int,
                              started: float, staged_s: float) -> None:
        try:
            writing.result()
            self._publish(partial, final, extras)
        except WRITE_ERRORS as err:  # raised by wait(), on the training thread
            self._failure = as_write_failure(err, f"sharded snapshot {final}", self.directory)
            return
        log.info("snapshot written: %s (step %d, %.1fs in the background, sharded; the loop waited %.2fs)", final,
                 step, time.perf_counter() - started, staged_s)

    def _publish(self, partial: Path, final: Path, extras: str) -> None:
        """Rank 0: extras and manifest into the complete directory (each write fsyncs it, so DCP's file names in
        it are durable too), then rename it into place and fsync the directory that holds it."""
        write_text_atomic(partial / layout.EXTRAS, extras + "\n")
        make_private_files(partial)  # DCP wrote the shards with the umask's mode
        sums = {p.name: sha256_of(p) for p in sorted(partial.iterdir()) if p.is_file()}
        write_text_atomic(partial / layout.MANIFEST, json.dumps(sums, indent=1) + "\n")
        shutil.rmtree(final, ignore_errors=True)
        partial.rename(final)
        fsync_dir(final.parent)  # the rename itself is durable only once its directory is (rename(2), fsync(2))
        self.published(final)


class NonWritingRank:
    """A rank that writes no single-file snapshot (rank 0 writes it), but hears whether rank 0's write failed:
    in the same collectives as SingleFileWriter's save and wait."""

    def save(self, state: TrainingState, step: int, *, background: bool) -> None:
        self.wait()
        if not background:
            raise_on_every_rank(None, f"snapshot of step {step}")

    def wait(self) -> None:
        raise_on_every_rank(None, "snapshot")


def copy_off_device(value: Any, reuse: Any = None) -> Any:
    """The same structure with every tensor copied to CPU memory of its own (a state_dict's tensors share
    storage with the live parameters and optimizer state). `reuse`: the previous snapshot's copy, already
    written; tensors of the same shape are copied into it, which spares allocating and faulting in the
    memory each time (measured: 0.4-0.6 s of a 1.65 GB GPT-2 state on 2 CPUs, against 0.1 s to copy)."""
    if isinstance(value, torch.Tensor):
        if (isinstance(reuse, torch.Tensor) and reuse.shape == value.shape and reuse.dtype == value.dtype
                and reuse.device.type == "cpu"):
            return reuse.copy_(value.detach())
        return value.detach().to("cpu", copy=True)
    if isinstance(value, dict):
        old = reuse if isinstance(reuse, dict) else {}
        return {key: copy_off_device(item, old.get(key)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        old = reuse if isinstance(reuse, (list, tuple)) and len(reuse) == len(value) else [None] * len(value)
        return type(value)(copy_off_device(item, previous) for item, previous in zip(value, old, strict=True))
    return copy.deepcopy(value)
