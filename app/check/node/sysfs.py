"""Small readers for sysfs-style trees (one value per file), tolerant of missing files."""

from __future__ import annotations

from pathlib import Path


def read(path: Path, default: str = "") -> str:
    """The file's stripped text, or `default` when it is missing or unreadable."""
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return default


def entries(path: Path) -> list[str]:
    """Sorted names inside a directory; [] when it does not exist."""
    try:
        return sorted(p.name for p in path.iterdir())
    except OSError:
        return []
