"""The source mirror: every pinned source archive (`*_URL` + `*_SHA256` in containers/versions.env) as
a file in one directory, for builds on machines that cannot reach GitHub (`make sources`, then
`make image SOURCES=DIR`). Files are named as `archive_name` says, the names shared/sources uses.
"""

from __future__ import annotations

import hashlib
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from app.common.errors import UsageError


@dataclass(frozen=True)
class Source:
    name: str
    """The component, e.g. LIBFABRIC."""
    url: str
    sha256: str
    archive: str
    """The file name in a mirror directory."""


def pinned_sources(args: dict[str, str]) -> list[Source]:
    """Every source the build fetches, from the rendered build arguments."""
    return [Source(key.removesuffix("_URL"), url, args[f"{key.removesuffix('_URL')}_SHA256"],
                   args[f"{key.removesuffix('_URL')}_ARCHIVE"])
            for key, url in args.items() if key.endswith("_URL")]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_mirror(sources: list[Source], mirror: Path) -> None:
    """Every archive is in `mirror` with its pinned sha256, or a UsageError naming the first that is not."""
    for source in sources:
        path = mirror / source.archive
        if not path.is_file():
            raise UsageError(f"the source mirror {mirror} has no {source.archive}; fill it with "
                             f"'make sources SOURCES={mirror}' on a machine that reaches GitHub, or copy "
                             f"{source.url} there")
        found = sha256_of(path)
        if found != source.sha256:
            raise UsageError(f"{path} has sha256 {found}, but containers/versions.env pins "
                             f"{source.name}_SHA256={source.sha256}; download it again ({source.url})")


def fill_mirror(sources: list[Source], mirror: Path) -> list[str]:
    """Download every archive `mirror` lacks (or holds with another checksum); return what was fetched."""
    mirror.mkdir(parents=True, exist_ok=True)
    fetched = []
    for source in sources:
        path = mirror / source.archive
        if path.is_file() and sha256_of(path) == source.sha256:
            continue
        partial = path.with_name(path.name + ".part")
        try:
            with urllib.request.urlopen(source.url, timeout=60) as response, partial.open("wb") as out:
                while block := response.read(1 << 20):
                    out.write(block)
        except OSError as err:
            partial.unlink(missing_ok=True)
            raise UsageError(f"cannot download {source.url}: {err}; on a machine without internet access, "
                             f"copy the file to {path}") from None
        if sha256_of(partial) != source.sha256:
            partial.unlink()
            raise UsageError(f"{source.url} does not have the pinned sha256 {source.sha256} "
                             f"({source.name}_SHA256 in containers/versions.env)")
        partial.replace(path)
        fetched.append(source.archive)
    return fetched
