"""The source mirror: every pinned source archive (`*_URL` + `*_SHA256` in containers/versions.env) as
a file in one directory, for builds on machines that cannot reach GitHub (`make sources`, then
`make image SOURCES=DIR`). Files are named as `archive_name` says, the names shared/sources uses.
Beside them, `make sources` writes wheelhouse-FLAVOUR/ (the locked wheels) and debs-FLAVOUR/ (the distribution
packages FLAVOUR's base lacks, with SHA256SUMS and lists/, what the distribution signed for them:
containers/gather-debs.sh).
"""

import hashlib
import os
import stat
import tempfile
import urllib.request
from pathlib import Path
from typing import BinaryIO, Dict, List, NamedTuple

from app.host.common.errors import UsageError
from app.host.common.owners import others_can_write, why_parents_unsafe
from imagetool.buildargs import CONTAINERS_DIR, render_build_args


class Source(NamedTuple):
    name: str
    """The component, e.g. LIBFABRIC."""
    url: str
    sha256: str
    archive: str
    """The file name in a mirror directory."""


def pinned_sources(args: Dict[str, str]) -> List[Source]:
    """Every source the build fetches, from the rendered build arguments."""
    names = [key[:-len("_URL")] for key in args if key.endswith("_URL")]
    return [Source(name, args[f"{name}_URL"], args[f"{name}_SHA256"], args[f"{name}_ARCHIVE"]) for name in names]


def check_mirror(sources: List[Source], mirror: Path, arch: str) -> None:
    """Every archive is in `mirror` with its pinned sha256, or a UsageError naming the first that is not. The remedy
    names `arch`, the checked flavour's: `make sources` without ARCH gathers the flavours of the machine it runs on."""
    for source in sources:
        path = mirror / source.archive
        if not path.is_file():
            raise UsageError(f"the source mirror {mirror} has no {source.archive}; fill it with "
                             f"'make sources SOURCES={mirror} ARCH={arch}' on a machine that reaches GitHub, or copy "
                             f"{source.url} there")
        found = sha256_of(path)
        if found != source.sha256:
            raise UsageError(f"{path} has sha256 {found}, but containers/versions.env pins "
                             f"{source.name}_SHA256={source.sha256}; download it again ({source.url})")


def check_debs(mirror: Path, flavour: str) -> None:
    """The mirror holds the distribution packages gathered from `flavour`'s base (debs-FLAVOUR/SHA256SUMS, empty
    where the base lacks nothing) with what the distribution signed for them (lists/), or a UsageError: the build
    would otherwise need the distribution's archive, or stop at its first .deb (the build verifies each one)."""
    debs = mirror / f"debs-{flavour}"
    arch = render_build_args(flavour)["ARCH"]
    regather = (f"on a machine with a network, with the base at hand (make base ARCH={arch}, or BASE=FILE): make "
                f"sources SOURCES={mirror} ARCH={arch}")
    if not (debs / "SHA256SUMS").is_file():
        raise UsageError(f"the source mirror {mirror} has no debs-{flavour}/SHA256SUMS (the distribution packages "
                         f"the base lacks); {regather}")
    if any(debs.glob("*.deb")) and not any((debs / "lists").glob("*Release")):
        raise UsageError(f"the source mirror {mirror} has .debs in debs-{flavour}/ but no lists/ (the Release and "
                         f"Packages the distribution signed, which the build verifies them against; an older make "
                         f"sources kept none); {regather}")


def check_mirror_owners(mirror: Path, arch: str) -> None:
    """Nothing in `mirror` or above it can another user change: each file and directory in it belongs to a trusted
    user and only its owner can write it (a group of one, its owner's private group, adds no one), and no directory
    above lets another user swap it (as app.host.common.owners has it for RUN_DIR), or a UsageError naming the first
    that fails. Trusted: this user, root, and the owner of this checkout's containers/ (who writes the build's own
    scripts, so trusting them adds no one: CI checkouts belong to a runner user while root builds). The build
    verifies what it can (pinned sha256s, signed Releases); this keeps another user from making it act at all. The
    remedy gathers for `arch`."""
    trusted = {os.geteuid(), 0, os.stat(str(CONTAINERS_DIR)).st_uid}
    why = why_parents_unsafe(mirror, trusted)
    if why is not None:
        raise UsageError(f"the source mirror {mirror} {why}; gather one where only you can write: make sources "
                         f"SOURCES=$HOME/mirror ARCH={arch}")
    for directory, names, files in os.walk(str(mirror)):
        for path in [directory] + [os.path.join(directory, name) for name in names + files]:
            info = os.lstat(path)
            if info.st_uid not in trusted:
                raise UsageError(f"{path} in the source mirror belongs to another user (uid {info.st_uid}), who can "
                                 f"change what the build installs; gather your own: make sources SOURCES=DIR "
                                 f"ARCH={arch}")
            if others_can_write(info) and not stat.S_ISLNK(info.st_mode):
                raise UsageError(f"{path} in the source mirror is writable by other users (mode "
                                 f"{stat.S_IMODE(info.st_mode):04o}), who can change what the build installs; "
                                 f"chmod -R go-w {mirror}")


def fill_mirror(sources: List[Source], mirror: Path) -> List[str]:
    """Download every archive `mirror` lacks (or holds with another checksum), each checked before it takes
    its name; return what was fetched."""
    mirror.mkdir(parents=True, exist_ok=True)
    fetched = []
    for source in sources:
        path = mirror / source.archive
        if path.is_file() and sha256_of(path) == source.sha256:
            continue
        _write_verified(source, path)
        fetched.append(source.archive)
    return fetched


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_verified(source: Source, path: Path) -> None:
    """Download beside `path` and rename only once the checksum matches: an interrupted or wrong download never
    takes the archive's name. (Not app.common.atomic: this runs on the build node's python3, 3.6 on SLES 15.)"""
    with tempfile.NamedTemporaryFile(dir=str(path.parent), prefix=f".{path.name}.", delete=False) as file:
        try:
            _download_verified(source, file)
            file.flush()
            os.fsync(file.fileno())
        except BaseException:
            os.unlink(file.name)
            raise
    os.chmod(file.name, 0o644)
    os.replace(file.name, str(path))


def _download_verified(source: Source, file: BinaryIO) -> None:
    """Copy the archive into `file`; a checksum mismatch raises, so write_atomic never renames it."""
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(source.url, timeout=60) as response:
            for block in iter(lambda: response.read(1 << 20), b""):
                digest.update(block)
                file.write(block)
    except OSError as err:
        raise UsageError(f"cannot download {source.url}: {err}; on a machine without internet access, "
                         f"copy the file into the mirror as {source.archive}") from None
    if digest.hexdigest() != source.sha256:
        raise UsageError(f"{source.url} does not have the pinned sha256 {source.sha256} "
                         f"({source.name}_SHA256 in containers/versions.env)")
