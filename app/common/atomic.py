"""Write files so that a reader sees the old content or the new, never half of it.

Temp file in the same directory, fsync, rename over the target, fsync the directory: after a crash
(or SIGKILL, or a node losing power) the name points at a complete file or at none.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from app.host.common.private_dir import PRIVATE_FILE, group_readable_mode
from app.host.common.regular_files import open_regular


class _HashingWriter:
    """A write-only file wrapper that hashes what passes through (one read of the data, not two)."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        self.sha256 = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.sha256.update(data)
        return self.file.write(data)

    def flush(self) -> None:
        self.file.flush()


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def _temp_beside(path: Path) -> Iterator[tuple[BinaryIO, Path]]:
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    # mkstemp creates 0600 whatever the umask (022 would make a plain open() world-readable: the model's
    # weights, the config); the group may read too where the directory lets it (RUN_DIR_MODE=750).
    os.fchmod(fd, group_readable_mode(path.parent, PRIVATE_FILE))
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as file:
            yield file, temp
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
        fsync_dir(path.parent)
    finally:
        temp.unlink(missing_ok=True)


def write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> str:
    """Atomically replace `path` with what `write(file)` writes; return the content's sha256 hex digest."""
    with _temp_beside(path) as (file, _):
        hashing = _HashingWriter(file)
        write(hashing)  # type: ignore[arg-type]
    return hashing.sha256.hexdigest()


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, lambda file: file.write(text.encode()))


def sha256_of(path: Path, chunk: int = 1 << 22, *, follow_links: bool = True) -> str:
    """The sha256 of the regular file `path` (a FIFO or a device is NotARegularFile, an OSError: never read)."""
    digest = hashlib.sha256()
    with open_regular(path, follow_links=follow_links) as file:
        while block := file.read(chunk):
            digest.update(block)
    return digest.hexdigest()
