"""Reading job logs within bounds: streamed line by line, over-long lines cut, files beyond a size read at both
ends, only regular files (a FIFO or a device is refused, never waited on)."""

import os
import stat
from pathlib import Path
from typing import Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from app.host.common.access import READ_REMEDY, why_unreadable_directory

#: Files read from a run directory (runs/<jobid>/): the trainer's summary and history, and any job output in it.
RUN_DIR_FILES = ("summary.json", "history.jsonl", "*.out", "*.err", "*.log")
#: Over-long lines and skipped file parts that are named in the report; the rest are counted.
MAX_NOTES = 5
#: A skipped middle part up to this size is scanned for newlines, so the lines after it keep their numbers.
MAX_COUNTED_BYTES = 8 << 30
#: Lines handed on together (the matcher looks for its words in a whole block at once).
BLOCK_LINES = 20_000
_WHAT_TO_GIVE = "give a job's output file (ddp-<jobid>.out, ddp.o<jobid>) or a run directory (runs/<jobid>)"


class UnreadableInput(Exception):
    """A path that cannot be read: the message says which and what to give instead."""


class Limits(NamedTuple):  # NamedTuple, not a frozen dataclass: dataclasses are 3.7+, the login nodes run 3.6
    """How much of each file is read: bounds the time a log of any size takes (BENCHMARKS.md has the figures)."""

    max_file_bytes: int = 256 << 20
    """A longer file: its first quarter of this and its last three quarters are read, the middle is skipped."""
    max_line_bytes: int = 1 << 20
    """A longer line is cut here; the rest of it is skipped."""


class Line(NamedTuple):
    source: str
    number: int
    text: str

    def where(self) -> str:
        return f"{self.source}:{self.number}"


class Reading:
    """What was read of the logs: the line count and what was left out (parts of files, ends of lines)."""

    def __init__(self, limits: Optional[Limits] = None) -> None:
        self.limits = limits or Limits()
        self.lines = 0
        self.notes: List[str] = []
        self._cut_lines = 0

    def lines_of(self, paths: Sequence[Union[str, Path]]) -> Iterator[Line]:
        """Every line of every file, in order; a directory stands for the run-directory files in it
        (RUN_DIR_FILES). Every path is checked before the first line is read (UnreadableInput)."""
        for source, block in self.blocks_of(paths):
            for number, text in block:
                yield Line(source, number, text)

    def blocks_of(self, paths: Sequence[Union[str, Path]]) -> Iterator[Tuple[str, List[Tuple[int, str]]]]:
        """The same lines as (file, [(line number, text), ...]) blocks of up to BLOCK_LINES lines."""
        files = [file for path in map(Path, paths) for file in _files_of(path)]
        for file in files:
            block: List[Tuple[int, str]] = []
            for item in _lines_of(file, self):
                block.append(item)
                if len(block) == BLOCK_LINES:
                    self.lines += len(block)
                    yield str(file), block
                    block = []
            if block:
                self.lines += len(block)
                yield str(file), block
        if self._cut_lines > MAX_NOTES:
            self.notes.append(f"{self._cut_lines - MAX_NOTES} more line(s) cut at {_size(self.limits.max_line_bytes)}")

    def note(self, text: str) -> None:
        self.notes.append(text)

    def line_cut(self, where: str) -> None:
        self._cut_lines += 1
        if self._cut_lines <= MAX_NOTES:
            self.notes.append(f"{where}: line longer than {_size(self.limits.max_line_bytes)}, read up to there")


def _files_of(path: Path) -> List[Path]:
    try:
        mode = path.stat().st_mode
    except OSError as error:
        raise UnreadableInput(f"cannot read {path}: {error.strerror or error}; {_WHAT_TO_GIVE}") from None
    if stat.S_ISDIR(mode):
        unreadable = why_unreadable_directory(str(path))  # glob finds nothing there, and would say so: ask first
        if unreadable is not None:
            raise UnreadableInput(f"cannot read the run directory {path}: {unreadable}; {READ_REMEDY}, or give the "
                                  f"job's log files you can read (ddp-<jobid>.out, ddp.o<jobid>)")
        files = sorted({f for pattern in RUN_DIR_FILES for f in path.glob(pattern) if f.is_file()})
        if not files:
            raise UnreadableInput(f"{path} is a directory without {', '.join(RUN_DIR_FILES)}; {_WHAT_TO_GIVE}")
        return files
    if not stat.S_ISREG(mode):
        raise UnreadableInput(f"{path} is not a regular file (a pipe, socket or device is never read: it could "
                              f"wait forever or never end); save the output to a file first, or {_WHAT_TO_GIVE}")
    return [path]


def _open_regular(path: Path) -> int:
    """A descriptor for `path`, which must still be a regular file (checked on the open file: a FIFO put in
    its place after the first check is opened without waiting, then refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise UnreadableInput(f"cannot read {path}: {error.strerror or error}; {_WHAT_TO_GIVE}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnreadableInput(f"{path} is not a regular file; {_WHAT_TO_GIVE}")
    os.set_blocking(fd, True)
    return fd


def _lines_of(path: Path, reading: Reading) -> Iterator[Tuple[int, str]]:
    limits = reading.limits
    with open(_open_regular(path), "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= limits.max_file_bytes:
            yield from _read_lines(handle, str(path), 1, None, reading)
            return
        head = limits.max_file_bytes // 4
        number, position = yield from _read_lines(handle, str(path), 1, head, reading)
        tail_start = size - (limits.max_file_bytes - head)
        if tail_start <= position:  # the head's last line reached into the tail: nothing to skip
            yield from _read_lines(handle, str(path), number, None, reading)
            return
        skipped = tail_start - position
        counted = skipped <= MAX_COUNTED_BYTES
        if counted:
            number += _count_newlines(handle, skipped)
        handle.seek(tail_start - 1)
        # Unless tail_start begins a line, the line that holds it began in the skipped part: skip its rest too.
        if handle.read(1) != b"\n" and _skip_line(handle):
            number += 1
        reading.note(f"{path}: {_size(skipped)} in the middle not read (its first {_size(head)} and last "
                     f"{_size(size - tail_start)} were)"
                     + ("" if counted else "; line numbers after it count from where reading resumed"))
        if not counted:
            number = 1
        yield from _read_lines(handle, str(path), number, None, reading)


def _read_lines(handle, source: str, number: int, stop_at: Optional[int],
                reading: Reading) -> Iterator[Tuple[int, str]]:
    """Lines from the handle's position until EOF or the first line that starts at or after `stop_at`;
    returns (the next line's number, the position reached)."""
    cap = reading.limits.max_line_bytes
    position = handle.tell()
    while stop_at is None or position < stop_at:
        raw = handle.readline(cap)
        if not raw:
            break
        position += len(raw)
        if len(raw) == cap and not raw.endswith(b"\n"):
            position += _skip_line(handle, counted=True)
            reading.line_cut(f"{source}:{number}")
        yield number, raw.decode("utf-8", errors="replace").rstrip("\r\n")
        number += 1
    return number, position


def _skip_line(handle, counted: bool = False) -> int:
    """Read past the end of the current line. Returns the bytes skipped when `counted`, else 1 when a
    newline ended it (0 at EOF)."""
    skipped = 0
    while True:
        chunk = handle.readline(1 << 20)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            ended = bool(chunk)
            break
    return skipped if counted else int(ended)


def _count_newlines(handle, length: int) -> int:
    newlines = 0
    while length > 0:
        chunk = handle.read(min(length, 8 << 20))
        if not chunk:
            break
        newlines += chunk.count(b"\n")
        length -= len(chunk)
    return newlines


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"
