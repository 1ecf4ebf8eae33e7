"""A snapshot write that failed, as one line with its cause and remedy. The file system refused it (full, over
quota, failing): `StorageError`, exit code `exitcodes.STORAGE`, which is neither the user's input (exit 2) nor a
bug (a traceback). The path is no directory this user can write (snapshot.dir replaced by a file, its rights
taken away during the run): `UsageError`, as the same check at start says. DCP wraps each rank's `OSError` in
a `CheckpointException` (torch/distributed/checkpoint/api.py, `failures`: rank -> (exception, stack)); the
cause is looked for there too.
"""

from __future__ import annotations

import errno
from pathlib import Path

import torch
import torch.distributed as dist
from torch.distributed.checkpoint.api import CheckpointException

from app.common.distributed import group_device
from app.common.signed_store import StoreTampered
from app.host.common import exitcodes
from app.host.common.errors import StorageError, UsageError, UserFacingError

#: What a write raises when it fails: DCP's wrapper is a BaseException, not an Exception.
WRITE_ERRORS = (Exception, CheckpointException)

#: What the file system says when it, not the path, is at fault: full, over quota, failing, read-only, a file too
#: big for it, an NFS handle gone stale.
FILE_SYSTEM_FAILED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EFBIG, errno.ESTALE})
_AGAIN = "then run again: it resumes from the newest snapshot"
_ELSEWHERE = "give another snapshot.dir, on a file system with room (e.g. snapshot.dir=$SCRATCH/snapshots)"


def os_error_in(err: BaseException | None, depth: int = 0) -> OSError | None:
    """The `OSError` that caused `err`: itself, one that DCP wrapped, or its cause or context."""
    if err is None or depth > 8:
        return None
    if isinstance(err, OSError) and err.errno is not None:
        return err
    if isinstance(err, CheckpointException):
        for wrapped, _ in err.failures.values():
            if (found := os_error_in(wrapped, depth + 1)) is not None:
                return found
    return os_error_in(err.__cause__ or err.__context__, depth + 1)


def storage_error(what: str, directory: Path, err: OSError, elsewhere: str = _ELSEWHERE,
                  again: str = _AGAIN) -> StorageError:
    """One line: what could not be written, why the file system refused it, what to do: free space, or write
    `elsewhere`, and `again`."""
    if err.errno == errno.ENOSPC:
        cause, remedy = f"no space left on the file system of {directory}", f"free space there, or {elsewhere}"
    elif err.errno == errno.EDQUOT:
        cause, remedy = (f"disk quota exceeded on {directory}",
                         f"free space within your quota (older runs' snapshots), or {elsewhere}")
    else:
        name = errno.errorcode.get(err.errno, str(err.errno))
        cause, remedy = (f"the file system of {directory} failed the write ({err.strerror}, {name})",
                         f"check that file system (mounted read-write? healthy? ask your site), or {elsewhere}")
    return StorageError(f"{what} could not be written: {cause}; {remedy}, {again}")


def as_write_failure(err: BaseException, what: str, directory: Path) -> BaseException:
    """`err` as one line with the remedy when the file system or the path caused it, else `err` itself (a bug
    shows its traceback)."""
    if isinstance(err, UserFacingError):
        return err
    cause = os_error_in(err)
    if cause is None:
        return err
    if cause.errno in FILE_SYSTEM_FAILED:
        return storage_error(what, directory, cause)
    return UsageError(f"{what} could not be written ({cause.strerror}: {cause.filename}); snapshot.dir must be a "
                      f"directory you can write: give another snapshot.dir (e.g. snapshot.dir=$SCRATCH/snapshots), "
                      f"{_AGAIN}")


def raise_on_every_rank(failure: BaseException | None, what: str) -> None:
    """Collective: raise `failure` where it happened and its kind on every other rank, when any rank's write
    failed (rank 0 alone publishes a sharded snapshot: the others would wait for it in the next collective until
    the timeout, then end as if the network had failed); a barrier when none did."""
    if isinstance(failure, StoreTampered):  # another process broke into the ranks' own exchange (peer_pickles.py):
        raise failure  # the others wait in it, not here; they end when this rank's connections close
    code = 0 if failure is None else getattr(failure, "exit_code", exitcodes.INTERNAL)
    if dist.is_initialized() and dist.get_world_size() > 1:
        worst = torch.tensor([code], device=group_device())
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        code = int(worst.item())
    if failure is not None:
        raise failure
    if code == 0:
        return
    said = f"{what} could not be written on another rank (rank 0 publishes it; that rank's `error:` line says why)"
    if code == exitcodes.STORAGE:
        raise StorageError(f"{said}; free space or give another snapshot.dir, {_AGAIN}")
    if code == exitcodes.USAGE:
        raise UsageError(f"{said}; give another snapshot.dir, {_AGAIN}")
    raise RuntimeError(said)
