"""Reading the project's JSON-lines files (metrics.jsonl, history.jsonl) as their writers may have left them.

A line is appended whole or not at all only while nothing goes wrong: a node lost or a disk full mid-write
leaves the last line cut short, and a disk error or another writer can leave bytes that are not UTF-8. Such
a line is not a record: readers skip it and keep the rest. Standard library only (the job scripts run the
history command with the host's python3).
"""

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from app.common.regular_files import open_regular


def json_object(line: bytes) -> Optional[Dict[str, Any]]:
    """The JSON object on one line, or None when the line is not one (cut short, not UTF-8, another type)."""
    try:
        value = json.loads(line.decode())
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    return value if isinstance(value, dict) else None


def json_objects(path: Path) -> List[Dict[str, Any]]:
    """The lines of `path` that are JSON objects, in order; none when the file does not exist. A path that is
    not a regular file (a FIFO would block the reader) is NotARegularFile, an OSError."""
    try:
        with open_regular(path) as file:
            data = file.read()
    except FileNotFoundError:
        return []
    return [entry for entry in map(json_object, data.splitlines()) if entry is not None]
