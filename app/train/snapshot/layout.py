"""How snapshots lie on disk, both kinds, written in this one place: their names, listing, verifying, reading.

A snapshot directory may hold both kinds (e.g. after a run switched `dist.strategy` to fit a bigger
batch); the newest usable one of either kind is the one to resume from:

- **single file** (`dist.strategy=ddp`): `step-00000100.pt`, a `torch.save` of the whole training state,
  and beside it `step-00000100.pt.sha256` in `sha256sum` format (check by hand with `sha256sum -c`). The
  checksum is written after the snapshot is durable, so a snapshot without a matching one is incomplete.
- **sharded** (`dist.strategy=fsdp`): `step-00000100/` holds torch.distributed.checkpoint's files
  (`__<rank>_0.distcp` per rank, `.metadata`), the rest of the state as JSON (`extras.json`: nothing to
  unpickle) and `manifest.json`, the sha256 of every other file, written last; the directory is written
  as `.step-00000100.partial/` and renamed when complete. A manifest names plain files of that directory
  only: a path, a link, a FIFO or a device named in it makes the snapshot unusable, never read.

Reading never runs code from the file: `torch.load(weights_only=True)`; DCP's non-tensor items go through
the same (DCP's own planner unpickles them freely) and its `.metadata` through an unpickler that resolves only
DCP's metadata types (app/train/snapshot/dcp_metadata.py; DCP's own reader uses plain `pickle.load`). A sharded snapshot
is usable only once its `.metadata` reads that way, so a planted one is passed over like a torn one.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import FileSystemReader, Metadata
from torch.distributed.checkpoint._traverse import set_element
from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner
from torch.distributed.checkpoint.metadata import StorageMeta

from app.common.atomic import sha256_of
from app.host.common.private_dir import why_not_private
from app.host.common.regular_files import read_regular
from app.train.snapshot import dcp_metadata
from app.train.snapshot.wire import from_rank_zero

log = logging.getLogger(__name__)
_NAME = re.compile(r"^step-(\d{8,})(\.pt)?$")
MANIFEST, EXTRAS, METADATA = "manifest.json", "extras.json", ".metadata"
#: What each small file of a snapshot may hold at most: a checksum file holds one `sha256sum` line; a manifest
#: a line per file (one shard file per rank: about 90 bytes a rank); extras.json the training position and the
#: RNG and data-order states (kilobytes). Far above any real one, far below what could exhaust a node's memory.
MAX_CHECKSUM_BYTES, MAX_MANIFEST_BYTES, MAX_EXTRAS_BYTES = 4 << 10, 64 << 20, 256 << 20
#: The most `.metadata` may take as JSON when rank 0 sends it to the others: four times the file's cap (the tags
#: make the regression model's metadata 2.1 to 2.5 times its pickle, at 1 and 2 ranks).
MAX_METADATA_JSON_BYTES = 4 * dcp_metadata.MAX_BYTES


def single_file_path(directory: Path, step: int) -> Path:
    return directory / f"step-{step:08d}.pt"


def sharded_path(directory: Path, step: int) -> Path:
    return directory / f"step-{step:08d}"


def partial_path(final: Path) -> Path:
    """Where a sharded snapshot is written until it is complete."""
    return final.with_name(f".{final.name}.partial")


def checksum_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def step_of(path: Path) -> int:
    found = _NAME.match(path.name)
    if found is None:
        raise ValueError(f"{path} is not named like a snapshot (step-NNNNNNNN.pt or step-NNNNNNNN)")
    return int(found[1])


def is_sharded(path: Path) -> bool:
    return not path.name.endswith(".pt")


def listing(directory: Path) -> list[Path]:
    """Every snapshot of either kind, newest (highest step) first (of one step, the single file first)."""
    if not directory.is_dir():
        return []
    found = [p for p in directory.iterdir()
             if (match := _NAME.match(p.name)) and (p.is_dir() if match[2] is None else p.is_file())]
    return sorted(found, key=lambda p: (step_of(p), not is_sharded(p)), reverse=True)


def remove(path: Path) -> None:
    if is_sharded(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
        checksum_path(path).unlink(missing_ok=True)


def verify(path: Path) -> str | None:
    """None when the snapshot (either kind) matches its recorded checksums, else what is wrong."""
    if not path.exists():
        return "it does not exist"
    return _verify_manifest(path) if path.is_dir() else _verify_checksum(path)


def _foreign(path: Path) -> str | None:
    """Why a sharded snapshot's directory may hold another user's files (see app/host/common/private_dir.py)."""
    why = why_not_private(path) if is_sharded(path) and path.exists() else None
    return None if why is None else f"its directory {why}"


def _verify_checksum(path: Path) -> str | None:
    checksum = checksum_path(path)
    try:
        recorded = read_regular(checksum, MAX_CHECKSUM_BYTES).split()[0].decode("ascii")
    except (FileNotFoundError, IndexError):
        return f"its checksum file {checksum.name} is missing or empty (the write did not finish)"
    except OSError as err:
        return f"its checksum file {checksum.name} is unreadable ({err.strerror})"
    except UnicodeDecodeError:
        return f"its checksum file {checksum.name} does not start with a sha256 digest"
    try:
        actual = sha256_of(path)
    except OSError as err:
        return f"it is unreadable ({err.strerror})"
    if actual != recorded:
        return f"its sha256 {actual[:12]}… does not match the recorded {recorded[:12]!r}… (truncated or corrupted)"
    return None


def _is_plain_name(name: str) -> bool:
    """A name of a file in the snapshot's own directory: no directory part, not `.` or `..`, no NUL, and one a
    file system can hold (JSON can spell a lone surrogate, which no file name encodes to)."""
    try:
        os.fsencode(name)
    except UnicodeEncodeError:
        return False
    return bool(name) and "/" not in name and "\0" not in name and name not in (".", "..")


def _verify_manifest(path: Path) -> str | None:
    """Every file the manifest names is a regular file in `path` itself (never a link, a FIFO, a device or a
    name outside) whose sha256 is the recorded one."""
    try:
        recorded = json.loads(read_regular(path / MANIFEST, MAX_MANIFEST_BYTES, follow_links=False).decode())
    except FileNotFoundError:
        return f"its {MANIFEST} is missing (the write did not finish)"
    except OSError as err:
        return f"its {MANIFEST} is unreadable ({err.strerror})"
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the parser's depth
        return f"its {MANIFEST} is not JSON (the write did not finish, or the file was damaged)"
    if not isinstance(recorded, dict) or not all(isinstance(digest, str) for digest in recorded.values()):
        return f"its {MANIFEST} is not a mapping of file names to sha256 digests"
    for name, digest in recorded.items():
        shown = repr(name[:80])  # quoted: a name may hold a newline, which would forge a log line
        if not _is_plain_name(name):
            return f"its {MANIFEST} names {shown}, which is not a file of the snapshot's own directory"
        try:
            actual = sha256_of(path / name, follow_links=False)
        except FileNotFoundError:
            return f"{shown} is missing"
        except OSError as err:
            return f"{shown} is unreadable ({err.strerror})"
        if actual != digest:
            return (f"{shown}: sha256 {actual[:12]}… does not match the recorded {digest[:12]!r}… "
                    f"(truncated or corrupted)")
    return None


@dataclass(frozen=True)
class Snapshot:
    """A snapshot read from disk. `contents`: the whole state (single file) or everything but the tensors
    (sharded: those load later, straight into the model's shards, with `read_shards`)."""

    path: Path
    contents: dict[str, Any]

    @property
    def sharded(self) -> bool:
        return is_sharded(self.path)

    @property
    def step(self) -> int:
        return step_of(self.path)


def read(path: Path, map_location: torch.device | str = "cpu") -> Snapshot | None:
    """The snapshot at `path` if it is the user's own, verifies and loads, else None with a warning."""
    problem = _foreign(path) or verify(path)
    if problem is None:
        try:
            if is_sharded(path):
                dcp_metadata.read(path / METADATA)  # rank 0 reads it again in read_shards, for DCP
                extras = json.loads(read_regular(path / EXTRAS, MAX_EXTRAS_BYTES, follow_links=False).decode())
                if not isinstance(extras, dict):
                    raise ValueError(f"{EXTRAS} holds a {type(extras).__name__}, not an object")
                return Snapshot(path, extras)
            return Snapshot(path, torch.load(path, map_location=map_location, weights_only=True))
        except dcp_metadata.UnsafeMetadata as err:
            problem = f"its {METADATA} is refused: {err}"
        except Exception as err:  # a damaged zip or a non-snapshot file: any error means unusable
            problem = f"it does not load ({type(err).__name__}: {str(err).splitlines()[0][:120]})"
    log.warning("snapshot %s is unusable: %s; falling back to the previous snapshot", path, problem)
    return None


def read_newest(directory: Path, map_location: torch.device | str = "cpu") -> Snapshot | None:
    """The newest snapshot that verifies and loads; a warning about each newer one that does not."""
    return next(filter(None, (read(path, map_location) for path in listing(directory))), None)


class WeightsOnlyLoadPlanner(DefaultLoadPlanner):
    """DCP's default planner, but non-tensor items are read with `weights_only=True`."""

    def load_bytes(self, read_item, value) -> None:  # type: ignore[no-untyped-def]
        loaded = torch.load(value, weights_only=True)
        if self.flatten_state_dict:
            set_element(self.original_state_dict, self.mappings[read_item.dest_index.fqn], loaded)
        else:
            self.state_dict[read_item.dest_index.fqn] = loaded


class SafeMetadataReader(FileSystemReader):
    """DCP's file reader, but `.metadata` goes through `dcp_metadata.read` (no code from the file runs)."""

    def read_metadata(self) -> Metadata:  # no **kwargs: DCP then never falls back to per-rank metadata files
        metadata = dcp_metadata.read(Path(self.path) / METADATA)
        if metadata.storage_meta is None:  # as FileSystemReader.read_metadata does
            metadata.storage_meta = StorageMeta()
        metadata.storage_meta.load_id = self.load_id
        return metadata


class MetadataFromRankZero(SafeMetadataReader):
    """DCP's file reader, but `.metadata` is read by rank 0 alone and sent to the others as JSON (wire.py: nothing
    that arrives is unpickled): the file holds an entry per tensor per rank (O(N) bytes), so every rank reading it
    costs O(N^2) from the shared filesystem (53.5 KB at 2 ranks, 81.8 KB at 4 for the tiny model's 139 items:
    14 KB more a rank). DCP calls `read_metadata` on every rank at the same point of `load` (its `local_step`,
    before any collective of its own), so the broadcast is collective there."""

    def read_metadata(self) -> Metadata:  # no **kwargs, as above
        if not (dist.is_initialized() and dist.get_world_size() > 1):
            return super().read_metadata()
        metadata, problem = None, None
        if dist.get_rank() == 0:
            try:
                metadata = super().read_metadata()
            except Exception as err:  # every rank must hear of it, or the others wait in the broadcast
                problem = f"{type(err).__name__}: {err}"
        metadata = dcp_metadata.checked(from_rank_zero(metadata, what=f"{self.path}/{METADATA}", problem=problem,
                                                       limit=MAX_METADATA_JSON_BYTES, kinds=dcp_metadata.DATACLASSES))
        if metadata.storage_meta is not None:
            metadata.storage_meta.load_id = self.load_id  # this reader's, as DCP's own read sets it
        return metadata


def read_shards(tensors: dict[str, Any], path: Path) -> None:
    """Fill `tensors` (this rank's sharded state dicts) in place from the sharded snapshot at `path`; DCP
    reshards when another world size wrote it (collective)."""
    dcp.load(tensors, storage_reader=MetadataFromRankZero(path), planner=WeightsOnlyLoadPlanner())
