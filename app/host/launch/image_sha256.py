"""The sha256 of the local image file a job runs (standard library only: the batch host's python3 runs it), so that
every run names its exact image: manifest.json's `image.sha256` and history.jsonl's `image_sha256`, which
`sha256sum FILE` matches later (docs/images.md, "What a run records"). A registry image is named by its digest
instead (app/host/launch/image_registry.py).

Hashing reads the whole file, 10 to 20 GiB for the CUDA images: 10 to 35 s at the 0.6 to 1 GiB/s that Python's
hashlib reached on one core of the shared 2-core test machine, longer from a parallel file system's cold cache. So
a file is hashed once, by the first job that runs it, and its sha256 remembered in IMAGE_CACHE (MEMORY there, a
directory only you can write) under what changes whenever the file does: its path, inode, size, and modification
and change times to the nanosecond. The change time is the kernel's, which no user can set: a file rewritten in
place, touched back to its old time, or another file renamed onto the path, is hashed again. The SIF format holds no
digest of its contents to read instead: its header has a random build id and two times, and only a signature
object, which an unsigned image lacks, holds digests of the parts it signs.
"""

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from app.host.common.errors import UsageError
from app.host.common.replace_file import replacing
from app.host.launch.image_registry import DEFAULT_CACHE, cache_dir

#: The remembered digests, in IMAGE_CACHE
MEMORY = "sha256-of-images.json"
#: Entries kept, the newest first: every image one user switches between
KEPT = 32
#: What changes whenever the file does, besides its path
IDENTITY = ("inode", "size", "mtime_ns", "ctime_ns")
SHA256 = re.compile(r"sha256:[0-9a-f]{64}\Z")
CHUNK = 1 << 20


class Sha256(NamedTuple):
    """The image's path as the steps run it, its sha256 ('' when none is recorded) and the line the job logs."""

    path: str
    digest: str
    said: str


def identity(path: str, info: os.stat_result) -> Dict[str, Any]:
    return {"path": path, "inode": info.st_ino, "size": info.st_size, "mtime_ns": info.st_mtime_ns,
            "ctime_ns": info.st_ctime_ns}


def well_formed(entry: Any) -> bool:
    """An entry as this module writes it: the memory is read back checked, like anything read from a file."""
    return (isinstance(entry, dict) and isinstance(entry.get("path"), str)
            and all(type(entry.get(key)) is int for key in IDENTITY)
            and isinstance(entry.get("sha256"), str) and SHA256.match(entry["sha256"]) is not None)


def remembered(memory: Path) -> List[Dict[str, Any]]:
    """The well-formed entries of MEMORY; none where it is missing or damaged (the file is then hashed again)."""
    try:
        entries = json.loads(memory.read_text())
    except (OSError, ValueError):
        return []
    return [entry for entry in entries if well_formed(entry)] if isinstance(entries, list) else []


def hashed(path: str) -> Tuple[str, Dict[str, Any], Dict[str, Any]]:
    """PATH's sha256, and the file's identity before and after it was read."""
    digest = hashlib.sha256()
    with open(path, "rb") as sif:
        before = identity(path, os.fstat(sif.fileno()))
        for chunk in iter(lambda: sif.read(CHUNK), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest(), before, identity(path, os.stat(path))


def memory_dir(cache: str, create: bool) -> Tuple[Optional[Path], str]:
    """IMAGE_CACHE (default: the checkout's build/images), checked as the registry's pulls check it, or None and
    why not: the sha256 is then hashed again by every job, which goes on."""
    place = Path(cache) if cache else DEFAULT_CACHE
    if not create and not place.is_dir():
        return None, f"no {place} yet"
    try:
        return cache_dir(place), ""
    except UsageError:
        return None, f"{place} cannot be made or is not yours alone (IMAGE_CACHE: a directory only you can write)"


def remember(memory: Path, entry: Dict[str, Any], entries: List[Dict[str, Any]]) -> None:
    """ENTRY first in MEMORY, the other entries for its path dropped, KEPT in all; written whole, then renamed."""
    kept = [entry, *[old for old in entries if old["path"] != entry["path"]]][:KEPT]
    with replacing(str(memory)) as temporary:
        Path(temporary).write_text(json.dumps(kept, indent=1) + "\n")


def image_sha256(image: str, cache: str, dry_run: bool) -> Sha256:
    """IMAGE's sha256 as remembered in the cache CACHE (IMAGE_CACHE), else hashed now and remembered; a dry run
    hashes nothing."""
    path = os.path.abspath(image)
    now = identity(path, os.stat(path))
    place, why_not = memory_dir(cache, create=not dry_run)
    entries = remembered(place / MEMORY) if place is not None else []
    for entry in entries:
        if {key: entry[key] for key in now} == now:
            return Sha256(path, entry["sha256"], f"IMAGE {path}: {entry['sha256']} (remembered from an earlier job)")
    size = f"{now['size'] / (1 << 30):.1f} GiB"
    if dry_run:
        return Sha256(path, "", f"DRY_RUN=1: the job hashes IMAGE {path} ({size}) for the run's records, once")
    started = time.monotonic()
    digest, before, after = hashed(path)
    if before != now or after != now:
        return Sha256(path, "", f"IMAGE {path} changed while it was hashed: this run records no sha256 of it")
    said = f"IMAGE {path}: {digest} (hashed {size} in {time.monotonic() - started:.0f} s"
    if place is None:
        return Sha256(path, digest, f"{said}; not remembered, so every job hashes it again: {why_not})")
    remember(place / MEMORY, dict(now, sha256=digest), entries)
    return Sha256(path, digest, f"{said}, once: remembered in {place / MEMORY})")
