"""Reading the project's JSON-lines files (metrics.jsonl, history.jsonl) as their writers may have left them.

A line is appended whole or not at all only while nothing goes wrong: a node lost or a disk full mid-write
leaves the last line cut short, and a disk error or another writer can leave bytes that are not UTF-8. Such
a line is not a record: readers skip it and keep the rest. Standard library only (the job scripts run the
history command with the host's python3).
"""

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

from app.host.common.regular_files import open_regular


def json_object(line: bytes) -> Optional[Dict[str, Any]]:
    """The JSON object on one line, or None when the line is not one (cut short, not UTF-8, another type)."""
    try:
        value = json.loads(line.decode())
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    return value if isinstance(value, dict) else None


#: The longest line read as a record: the project's lines are under a kilobyte; a longer one is damage (or
#: someone else's file) and is skipped a piece at a time, so a reader's memory does not grow with it.
MAX_LINE_BYTES = 1 << 16


def json_objects(path: Path) -> List[Dict[str, Any]]:
    """The lines of `path` that are JSON objects, in order; none when the file does not exist. A path that is
    not a regular file (a FIFO would block the reader) is NotARegularFile, an OSError."""
    return list(each_json_object(path))


def each_json_object(path: Path) -> Iterator[Dict[str, Any]]:
    """`json_objects(path)` one at a time, reading a line at a time: memory bounded by MAX_LINE_BYTES whatever
    the file's length (metrics.jsonl of a million steps is hundreds of megabytes)."""
    try:
        file = open_regular(path)
    except FileNotFoundError:
        return
    with file:
        while True:
            line = file.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # the rest of an over-long line, piece by piece
                    line = file.readline(MAX_LINE_BYTES)
                continue
            for piece in line.splitlines():  # a bare \r ends a line too, as bytes.splitlines() has it
                entry = json_object(piece)
                if entry is not None:
                    yield entry
