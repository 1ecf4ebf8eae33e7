"""Opening a file that someone else may have replaced: only a regular file is read, and opening never waits.

A FIFO's open waits for a writer and its read for data, a device such as /dev/zero reads forever: a reader of
a run directory, a snapshot or a data directory on a shared filesystem would hang on either. The file is
opened with O_NONBLOCK (an open of a FIFO returns at once) and checked on the open descriptor, so what was
checked is what is read. Standard library only (the job scripts' history command runs on the host's python3).
"""

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO, Union

#: summary.json is a few hundred bytes (app/train/summary.py); a larger one is not the trainer's.
MAX_SUMMARY_BYTES = 1 << 20

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotARegularFile(OSError):
    """The path is a FIFO, a device, a socket or a directory (or, where links are refused, a link)."""


class FileTooLarge(OSError):
    """The file is larger than its reader accepts."""


def require_regular(fd: int, path: Union[Path, str]) -> None:
    """NotARegularFile unless the open descriptor `fd` (of `path`) is a regular file."""
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise NotARegularFile(errno.EINVAL, f"{kind}, where only a regular file is used", str(path))


def open_regular(path: Union[Path, str], *, follow_links: bool = True, buffering: int = -1) -> BinaryIO:
    """`path` opened for binary reading if it is a regular file, else NotARegularFile (an OSError)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP and not follow_links:
            raise NotARegularFile(errno.ELOOP, "a symbolic link, where only a plain file is used", str(path)) from None
        raise
    try:
        require_regular(fd, path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Union[Path, str], max_bytes: int, *, follow_links: bool = True) -> bytes:
    """The whole of the regular file `path`; FileTooLarge (an OSError) past `max_bytes`."""
    with open_regular(path, follow_links=follow_links) as file:
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLarge(errno.EFBIG, f"larger than the {max_bytes} bytes read from such a file", str(path))
    return data
