"""Can this host build the image? Checked by `make image` before the long steps (wheelhouse, pull, build).

Each check reads a `Host` (probed from the machine, or written by hand in tests) and either passes, adds a
warning (the build works, a weaker way), or raises `UsageError`: one line with the cause and the fix.
"""

import getpass
import math
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Callable, List, Mapping, NamedTuple, Optional, Tuple

from app.host.common.errors import UsageError
from imagetool.apptainer import Runtime, check_cross_build

GIB = 1 << 30
#: Apptainer and SingularityCE accept a subuid/subgid range of at least 65536 ids (validRangeCount,
#: internal/pkg/fakeroot/fakeroot.go, Apptainer v1.2.0, SingularityCE v4.1.0); '!' marks a disabled entry.
_MIN_RANGE = 65536
#: Unpacked size / compressed size of a CUDA base. An upper estimate: NGC PyTorch 23.03-py3 takes "~20GB"
#: unpacked (d4l3k/torchdrive#4) for about 9 GB of layers; CUDA libraries compress about 2:1.
UNPACK_RATIO = 2.5
#: What %post adds before squashing: the wheelhouse, libfabric, aws-ofi-nccl, nccl-tests and DeepSpeed's
#: build trees (about 2 GiB on the twin), rounded up.
POST_GIB = 3


class Needs(NamedTuple):
    """GiB the build needs in Apptainer's temporary directory and in its cache."""

    tmp_gib: int
    cache_gib: int


def _size_gib(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / GIB
    if path.is_dir():
        return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / GIB
    return 0.0


def _layers_gib(args: Mapping[str, str]) -> float:
    """The registry base's compressed layers (versions.env, beside its digest)."""
    return float(args.get("NGC_PYTORCH_LAYERS_GIB", 0))


def build_needs(args: Mapping[str, str]) -> Needs:
    """Disk for `apptainer build` of this flavour (its rendered build arguments).

    From the registry (Bootstrap: docker): the layers go to the cache, are copied into an OCI layout in the
    temporary directory (internal/pkg/build/sources/conveyorPacker_oci.go), unpacked there, and the tree is
    squashed into a temporary file there too (internal/pkg/build/assemblers/sif.go, CreateTemp(TmpDir)).
    From a local SIF: unpacked and squashed in the temporary directory; nothing is cached.
    """
    if args.get("BOOTSTRAP") == "docker":
        layers = _layers_gib(args)
        return Needs(tmp_gib=math.ceil(layers + layers * UNPACK_RATIO + layers + POST_GIB),
                     cache_gib=math.ceil(layers))
    base = Path(args.get("BASE", ""))
    size = _size_gib(base)
    unpacked = size if base.is_dir() else size * UNPACK_RATIO
    return Needs(tmp_gib=math.ceil(unpacked + unpacked / UNPACK_RATIO + POST_GIB), cache_gib=0)


def pull_needs(args: Mapping[str, str]) -> Needs:
    """Disk for `apptainer pull` of the registry base: the conversion runs as a build does, and the cache
    keeps the layers and the SIF made of them (internal/pkg/client/oci/pull.go, OciTempCacheType)."""
    layers = _layers_gib(args)
    return Needs(tmp_gib=math.ceil(layers + layers * UNPACK_RATIO + layers), cache_gib=math.ceil(2 * layers))


def _probe_space(path: Path) -> Tuple[int, int]:
    """(filesystem id, free bytes) of the nearest existing directory at or above `path`."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return os.stat(path).st_dev, shutil.disk_usage(path).free


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _userns_works() -> bool:
    """A root-mapped unprivileged user namespace, the one Apptainer's fakeroot falls back to (`unshare -r`)."""
    try:
        return subprocess.run(["unshare", "--user", "--map-root-user", "true"], stdout=subprocess.PIPE,  # noqa: UP022
                              stderr=subprocess.PIPE, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Host(NamedTuple):
    """What the checks read from the build host."""

    arch: str
    user: str
    uid: int
    subuid: str  # text of /etc/subuid ("" when there is none)
    subgid: str
    binfmt_dir: Path
    userns: bool  # an unprivileged root-mapped user namespace can be made
    env: Mapping[str, str]
    space: Callable[[Path], Tuple[int, int]]  # (filesystem id, free bytes) where a path is or would be made

    @classmethod
    def probe(cls) -> "Host":
        return cls(arch=platform.machine(), user=getpass.getuser(), uid=os.getuid(), subuid=_read("/etc/subuid"),
                   subgid=_read("/etc/subgid"), binfmt_dir=Path("/proc/sys/fs/binfmt_misc"), userns=_userns_works(),
                   env=dict(os.environ), space=_probe_space)


def _mapped(text: str, host: Host) -> bool:
    """An enabled entry for the user, by name or numeric uid, with a range Apptainer accepts."""
    for line in text.splitlines():
        name, _, rest = line.strip().partition(":")
        count = rest.partition(":")[2]
        if name in (host.user, str(host.uid)) and count.isdigit() and int(count) >= _MIN_RANGE:
            return True
    return False


def _fakeroot_warning(runtime: Runtime, host: Host, local_base: bool) -> Optional[str]:
    command = "apptainer" if runtime.is_apptainer else "singularity"
    fix = (f"as root run '{command} config fakeroot --add {host.user}' (or add '{host.user}:100000:65536' to "
           "/etc/subuid and /etc/subgid)")
    if _mapped(host.subuid, host):
        if _mapped(host.subgid, host):
            return None
        raise UsageError(f"--fakeroot is not configured for user '{host.user}': an /etc/subuid entry but none in "
                         f"/etc/subgid; {fix}")
    # Apptainer >= 1.1 maps a user without an entry (never root) to root in an unprivileged user namespace
    # (cmd/internal/cli/build_linux.go, v1.2.0: "User not listed in /etc/subuid, trying root-mapped namespace").
    # SingularityCE's fakeroot needs both entries (internal/pkg/runtime/engine/fakeroot/engine_linux.go, v4.1.0).
    # It unpacks a registry base rootless (umoci, internal/pkg/build/sources/oci_unpack.go); a local base keeps
    # its owners, which one mapped id cannot hold: Apptainer 1.4.5 with --ignore-subuid from a local SIF stops
    # in unsquashfs ("set_attributes: failed to change uid and gids on .../etc/gshadow"), tested here.
    if runtime.is_apptainer and host.uid != 0:
        if local_base:
            raise UsageError(f"--fakeroot without an /etc/subuid entry for '{host.user}' cannot unpack a local base "
                             "(its files keep their owners, and a root-mapped user namespace maps only yours); "
                             f"{fix}, or build from the registry (no BASE=)")
        if host.userns:
            return (f"no /etc/subuid entry for {host.user} (uid {host.uid}): {runtime.name} builds in a root-mapped "
                    "user namespace instead, where every file belongs to root and a package that changes owners "
                    f"may warn; for the full --fakeroot mapping, {fix}")
        raise UsageError(f"--fakeroot cannot work for user '{host.user}': no /etc/subuid entry and no unprivileged "
                         f"user namespaces (sysctl user.max_user_namespaces); {fix}, or take an image built "
                         "elsewhere (docs/images.md)")
    raise UsageError(f"--fakeroot is not configured for user '{host.user}': no entry in /etc/subuid; {fix}")


def _check_binfmt(target_arch: str, host: Host) -> None:
    if target_arch == host.arch:
        return
    qemu = host.binfmt_dir / f"qemu-{target_arch}"
    if not qemu.is_file() or not qemu.read_text().startswith("enabled"):
        raise UsageError(
            f"building a {target_arch} image on this {host.arch} machine needs QEMU user emulation registered "
            f"with binfmt_misc (not found: {qemu}). As root: apt-get install qemu-user-static binfmt-support && "
            "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable "
            f"qemu-{target_arch}, with QEMU 10 or newer (Debian 13's qemu-user; Debian 12's QEMU 7.2 segfaults in "
            "`import torch`: containers/twin/build-twin.sh says how). Emulated builds are ~10x slower: better run "
            f"'make image ARCH={target_arch}' on a {target_arch} node (e.g. a GH200 login node)")


def _tmpdir(runtime: Runtime, host: Host, extra: Tuple[str, ...]) -> Path:
    """`build --tmpdir`, else PREFIX_TMPDIR, else Go's os.TempDir(): $TMPDIR or /tmp (commonTmpDirFlag)."""
    if "--tmpdir" in extra[:-1]:
        return Path(extra[extra.index("--tmpdir") + 1])
    return Path(host.env.get(f"{runtime.env_prefix}_TMPDIR") or host.env.get("TMPDIR") or "/tmp")


def _cachedir(runtime: Runtime, host: Host) -> Path:
    default = Path(host.env.get("HOME", "~")) / runtime.default_cache[len("~/"):]
    return Path(host.env.get(f"{runtime.env_prefix}_CACHEDIR") or default)


def check_space(runtime: Runtime, host: Host, needs: Needs, extra: Tuple[str, ...], what: str = "build") -> str:
    """Say where the build (or pull) writes and how much it needs; stop in one line where it does not fit."""
    tmp_var, cache_var = f"{runtime.env_prefix}_TMPDIR", f"{runtime.env_prefix}_CACHEDIR"
    tmp, cache = _tmpdir(runtime, host, extra), _cachedir(runtime, host)
    (tmp_fs, tmp_free), (cache_fs, cache_free) = host.space(tmp), host.space(cache)
    fix = (f"export {tmp_var}=/scratch/$USER/apptainer-tmp {cache_var}=/scratch/$USER/apptainer-cache "
           "(any directory of yours with room), then run make again")
    said = f"the {what} needs {needs.tmp_gib} GiB in {tmp_var} ({tmp}, {tmp_free / GIB:.0f} GiB free)"
    if needs.cache_gib:
        said += f" and {needs.cache_gib} GiB in {cache_var} ({cache}, {cache_free / GIB:.0f} GiB free)"
    if tmp_free < needs.tmp_gib * GIB:
        raise UsageError(f"not enough space: {said}; {fix}")
    if needs.cache_gib and cache_free < needs.cache_gib * GIB:
        raise UsageError(f"not enough space: {said}; {fix}")
    if needs.cache_gib and tmp_fs == cache_fs and tmp_free < (needs.tmp_gib + needs.cache_gib) * GIB:
        raise UsageError(f"not enough space: {said}, together on one filesystem; {fix}")
    return said


def check_host(runtime: Runtime, host: Host, *, target_arch: str, needs: Needs, local_base: bool,
               extra: Tuple[str, ...] = ()) -> Tuple[List[str], List[str]]:
    """(warnings, notes) for a build of `target_arch` with `runtime` on `host`, from a local base (a SIF or a
    directory: Bootstrap: localimage) or the registry; the first fatal problem raises UsageError. `extra`
    holds the user's own `apptainer build` flags (a --tmpdir among them)."""
    check_cross_build(runtime, target_arch, host.arch)
    _check_binfmt(target_arch, host)
    warning = _fakeroot_warning(runtime, host, local_base)
    note = check_space(runtime, host, needs, extra)
    return ([warning] if warning else []), [f"build route: {build_route(runtime, host)}", note]


def build_route(runtime: Runtime, host: Host) -> str:
    """Which of the ways to build that _fakeroot_warning let through this host takes, for the build log."""
    if _mapped(host.subuid, host):
        return f"--fakeroot with {host.user}'s /etc/subuid and /etc/subgid ranges (every owner in the image kept)"
    return (f"--fakeroot in a root-mapped user namespace ({host.user} has no /etc/subuid entry; {runtime.name} "
            "maps only your own id, so every file belongs to root)")
