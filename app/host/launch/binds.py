"""What the container binds from the host (standard library only): the run directory, the fabric's devices and,
on Slingshot, the host's libfabric and what it links, and the user's BINDS, as `apptainer exec` arguments."""

import glob
import os
import re
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence

from app.host.common.errors import UsageError
from app.host.launch.host_command import host_output as _run

#: Where the host's fabric libraries go in the container: a directory of their own that the fabric policy
#: (app/host/common/fabric_policy.env) appends to LD_LIBRARY_PATH inside; not /.singularity.d/libs, where --nv puts the
#: driver's libraries, and which --nv is reported to replace before Apptainer 1.1 and on SingularityCE.
HOST_FABRIC_LIBS = "/opt/host-fabric-libs"
#: libcxi and what it needs: libfabric's cxi provider talks to the NICs through it
CXI_LIBS = ("libcxi.so.1", "libnl-3.so.200", "libnl-route-3.so.200")
#: glibc's own libraries stay the image's
GLIBC = re.compile(r"(libc|libm|libpthread|libdl|librt|libresolv|libutil|ld-linux.*)\.so")
LIB_DIRS = ("/usr/lib64", "/usr/lib/aarch64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib")


class Binds(NamedTuple):
    """The arguments, and the warnings the job log shows."""

    args: List[str]
    warnings: List[str]


def host_lib(name: str, probe_root: str = "", run: Callable[[Sequence[str]], str] = _run) -> str:
    """The path of a host shared library: the loader's cache (ldconfig -p), then the usual directories."""
    for line in run(["ldconfig", "-p"]).splitlines():
        fields = line.split()
        if fields and fields[0] == name:
            return fields[-1]
    return next((probe_root + d + "/" + name for d in LIB_DIRS if os.path.exists(probe_root + d + "/" + name)), "")


def version_key(path: str) -> List[object]:
    """`sort -V`'s order for the versions of one directory: numbers compared as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path)]


def host_libfabric_dir(probe_root: str, ld_library_path: str, run: Callable[[Sequence[str]], str] = _run) -> str:
    """The site's libfabric, /opt/cray/libfabric/VERSION: the one the host's programs load (a `module load
    libfabric` on LD_LIBRARY_PATH, else the loader's cache), not merely the newest installed, which may be a preview
    the site has not made its default; the newest only when neither names one."""
    path = next((d + "/libfabric.so.1" for d in ld_library_path.split(":") if os.path.exists(d + "/libfabric.so.1")),
                "") or host_lib("libfabric.so.1", probe_root, run)
    found = re.fullmatch(r"(.*/opt/cray/libfabric/[^/]+)/lib(64)?/libfabric\.so\.1", path)
    if found:
        return found.group(1)
    return max(glob.glob(probe_root + "/opt/cray/libfabric/*"), key=version_key, default="")


def host_libfabric_needs(libfabric: str, run: Callable[[Sequence[str]], str] = _run) -> Dict[str, str]:
    """SONAME -> PATH per library LIBFABRIC's libfabric.so.1 links directly (its NEEDED entries, resolved by the
    host's ldd; all that ldd lists where objdump is missing), glibc's own left out."""
    so = next((libfabric + sub for sub in ("/lib64/libfabric.so.1", "/lib/libfabric.so.1")
               if os.path.exists(libfabric + sub)), "")
    if not so:
        return {}
    needed = {fields[1] for fields in (line.split() for line in run(["objdump", "-p", so]).splitlines())
              if len(fields) > 1 and fields[0] == "NEEDED"}
    found = {}  # type: Dict[str, str]
    for fields in (line.split() for line in run(["ldd", so]).splitlines()):
        if len(fields) > 2 and fields[1] == "=>" and fields[2].startswith("/") and \
                (not needed or fields[0] in needed) and not GLIBC.match(fields[0]):
            found.setdefault(fields[0], fields[2])
    return found


def bind_whole(path: str) -> List[str]:
    """Bind PATH at the same path in the container, whatever characters it holds. `--bind PATH` splits at ','
    (several binds) and ':' (source, destination, options); `--mount` takes CSV fields, so a quoted field keeps
    both, with '"' doubled (apptainer.org/docs/user/latest/bind_paths_and_mounts.html, --mount; tested with
    Apptainer 1.4.5: a directory named lr=1e-3,bs=32 or a:b is seen whole inside). A plain path keeps the plain
    --bind, which every runtime version reads."""
    if not any(char in path for char in ',:"'):
        return ["--bind", path]
    quoted = path.replace('"', '""')
    return ["--mount", f'type=bind,"src={quoted}","dst={quoted}"']


def user_binds(binds: str) -> List[str]:
    """BINDS, comma-separated SRC[:DST[:ro|rw]] of absolute paths, as --bind arguments."""
    args = []
    for bind in filter(None, binds.split(",")):
        # apptainer --bind reads SRC[:DST[:OPTS]]: a path holding `,` or `:` arrives here cut in pieces
        if not re.fullmatch(r"/[^:]*(:/[^:]*(:(ro|rw))?)?", bind):
            raise UsageError(
                f"BINDS item '{bind}' is not SRC[:DST[:ro|rw]] with absolute paths (BINDS={binds}): apptainer --bind "
                "splits a path at ',' and ':'; bind such a path with APPTAINER_ARGS='--mount "
                'type=bind,"src=/data/lr=1e-3,bs=32",dst=/data\' (CSV-quoted fields)')
        args += ["--bind", bind]
    return args


def slingshot_binds(probe_root: str, libfabric_knob: str, ld_library_path: str,
                    run: Callable[[Sequence[str]], str] = _run) -> Binds:
    """The cxi devices, the host's libfabric (it matches the host's Slingshot driver; it replaces the image's
    /opt/libfabric), libcxi and what the host's libfabric links (libcurl and json-c for cxi: libfabric
    prov/cxi/configure.m4), at the host's sonames (SLES' libjson-c.so.3 is in no Debian or Ubuntu image)."""
    args, warnings = [], []  # type: List[str], List[str]
    for device in sorted(glob.glob(probe_root + "/dev/cxi[0-9]*")):
        args += ["--bind", f"{device}:/dev/{os.path.basename(device)}"]
    libfabric = libfabric_knob or host_libfabric_dir(probe_root, ld_library_path, run)
    if libfabric and not os.path.isdir(libfabric):
        raise UsageError(f"HOST_LIBFABRIC_DIR={libfabric} is not a directory; example: "
                         "HOST_LIBFABRIC_DIR=/opt/cray/libfabric/1.22.0")
    if libfabric:
        args += ["--bind", libfabric + ":/opt/libfabric"]
    else:
        warnings.append("warning: no host libfabric (/opt/cray/libfabric/*); the image's own libfabric must have "
                        "cxi, else set HOST_LIBFABRIC_DIR")
    bound = {}  # type: Dict[str, str]
    for lib in CXI_LIBS:
        path = host_lib(lib, probe_root, run)
        if path:
            bound[lib] = path
        else:
            warnings.append(f"warning: host {lib} not found; libfabric's cxi provider may fail to load")
    if libfabric:
        for lib, path in host_libfabric_needs(libfabric, run).items():
            bound.setdefault(lib, path)
    for lib, path in bound.items():
        args += ["--bind", f"{path}:{HOST_FABRIC_LIBS}/{lib}"]
    return Binds(args, warnings)


def container_binds(fabric: str, run_dir: str, binds: str, probe_root: str = "", libfabric_knob: str = "",
                    ld_library_path: str = "", run: Optional[Callable[[Sequence[str]], str]] = None) -> Binds:
    """Everything the container binds: the run directory (snapshots, the stop file) wherever it is, the fabric's
    pieces, then BINDS."""
    args, warnings = bind_whole(run_dir), []  # type: List[str], List[str]
    if fabric in ("infiniband", "roce") and os.path.isdir(probe_root + "/dev/infiniband"):
        # Visible anyway without --contain; bound explicitly so APPTAINER_ARGS=--contain keeps working.
        args += ["--bind", probe_root + "/dev/infiniband:/dev/infiniband"]
    elif fabric == "slingshot":
        slingshot = slingshot_binds(probe_root, libfabric_knob, ld_library_path, run or _run)
        args, warnings = args + slingshot.args, slingshot.warnings
    return Binds(args + user_binds(binds), warnings)
