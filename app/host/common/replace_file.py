"""Files a tool writes at a path it was given or chose: written whole beside the path, then renamed over it
(standard library only, Python 3.6).

A reader then sees the old file or the new one, never half; and a symbolic link at the path is replaced, never
followed: a link another user left where a tool writes by default (`report.png` in a colleague's run directory, a
shared `check.json`) would otherwise have it overwrite a file of its own user's that the link names. The file gets
the mode `open()` would give it (0666 less the umask)."""

import contextlib
import os
import tempfile
from typing import Iterator


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path: str) -> Iterator[str]:
    """A new file beside PATH (its name ends as PATH's does: matplotlib reads the format from it) for the caller to
    write; renamed over PATH when the block ends, removed if it raises."""
    directory, name = os.path.split(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=os.path.splitext(name)[1], dir=directory)
    os.close(fd)
    try:
        yield temporary
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
