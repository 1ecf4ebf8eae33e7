"""Snapshots: written atomically by rank 0, verified before use, loaded with `weights_only=True`.

Layout: `<dir>/step-00000100.pt` and beside it `step-00000100.pt.sha256` in `sha256sum` format
(check by hand with `sha256sum -c`). The checksum file is written after the snapshot is durable, so a
snapshot without a matching checksum is incomplete or damaged; loading then falls back to the previous
snapshot with a warning. Only the newest `keep` snapshots are kept.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import torch

from app.train.atomic import sha256_of, write_atomic, write_text_atomic

log = logging.getLogger(__name__)
_NAME = re.compile(r"^step-(\d{8,})\.pt$")


def snapshot_name(step: int) -> str:
    return f"step-{step:08d}.pt"


class Checkpointer:
    """Save and find snapshots in one directory shared by all ranks."""

    def __init__(self, directory: Path, keep: int) -> None:
        self.directory = directory
        self.keep = keep

    def snapshots(self) -> list[Path]:
        """Snapshot files, newest (highest step) first."""
        if not self.directory.is_dir():
            return []
        found = [p for p in self.directory.iterdir() if _NAME.match(p.name)]
        return sorted(found, key=lambda p: int(_NAME.match(p.name).group(1)), reverse=True)  # type: ignore[union-attr]

    def save(self, state: dict[str, Any], step: int) -> Path:
        """Write the snapshot and its checksum atomically, then delete snapshots beyond `keep`."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / snapshot_name(step)
        digest = write_atomic(path, lambda file: torch.save(state, file))
        write_text_atomic(_checksum_path(path), f"{digest}  {path.name}\n")
        self._prune()
        return path

    def _prune(self) -> None:
        for old in self.snapshots()[self.keep :]:
            old.unlink(missing_ok=True)
            _checksum_path(old).unlink(missing_ok=True)

    def load_latest(self, map_location: torch.device | str = "cpu") -> tuple[dict[str, Any], Path] | None:
        """The newest snapshot that verifies and loads; warn about each newer one that does not."""
        for path in self.snapshots():
            problem = _verify(path)
            if problem is None:
                try:
                    return torch.load(path, map_location=map_location, weights_only=True), path
                except Exception as err:  # a damaged zip or a non-snapshot file: any error means unusable
                    problem = f"it does not load ({type(err).__name__}: {str(err).splitlines()[0][:120]})"
            log.warning("snapshot %s is unusable: %s; falling back to the previous snapshot", path, problem)
        return None


def _checksum_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _verify(path: Path) -> str | None:
    """None when the snapshot matches its recorded checksum, else what is wrong."""
    checksum = _checksum_path(path)
    try:
        recorded = checksum.read_text().split()[0]
    except (OSError, IndexError):
        return f"its checksum file {checksum.name} is missing or empty (the write did not finish)"
    actual = sha256_of(path)
    if actual != recorded:
        return f"its sha256 {actual[:12]}… does not match the recorded {recorded[:12]}… (truncated or corrupted)"
    return None
