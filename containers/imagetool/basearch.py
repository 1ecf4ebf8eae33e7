"""The architecture of a local base (`make image BASE=FILE`): a SIF says it in its global header, a root file
system directory in its executables' ELF headers. Read before the build, so a base for the wrong machine stops in
one line instead of after Apptainer has unpacked it and %post compares `uname -m`.
"""

import struct
from pathlib import Path
from typing import Optional

from app.host.common.errors import UsageError

#: SIF global header: 32 bytes of launch script, "SIF_MAGIC\0", a 3-byte version, then a 3-byte architecture code
#: (apptainer/sif pkg/sif/arch.go), named here as `uname -m` does
_SIF_MAGIC = (32, b"SIF_MAGIC\0")
_SIF_ARCH_OFFSET = 45
_SIF_ARCHES = {b"01": "i386", b"02": "x86_64", b"03": "armv7l", b"04": "aarch64", b"05": "ppc64", b"06": "ppc64le",
               b"07": "mips", b"08": "mipsel", b"09": "mips64", b"10": "mips64el", b"11": "s390x"}
#: ELF e_machine (offset 18, little-endian on these machines): the System V ABI's EM_X86_64 and EM_AARCH64
_ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
#: Executables every Linux root file system has, as real files (not links that point outside the directory)
_ROOTFS_PROBES = ("usr/bin/env", "bin/env", "usr/bin/ls", "bin/ls")


def base_arch(base: Path) -> Optional[str]:
    """The base's machine as `uname -m` names it, or None where its headers do not say."""
    if base.is_dir():
        for probe in _ROOTFS_PROBES:
            path = base / probe
            if path.is_file() and not path.is_symlink():
                return _elf_arch(path)
        return None
    try:
        with base.open("rb") as file:
            header = file.read(_SIF_ARCH_OFFSET + 3)
    except OSError:
        return None
    offset, magic = _SIF_MAGIC
    if header[offset:offset + len(magic)] != magic:
        return None
    return _SIF_ARCHES.get(header[_SIF_ARCH_OFFSET:_SIF_ARCH_OFFSET + 2])


def _elf_arch(path: Path) -> Optional[str]:
    with path.open("rb") as file:
        header = file.read(20)
    if len(header) < 20 or header[:4] != b"\x7fELF" or header[5] != 1:  # little-endian only
        return None
    return _ELF_MACHINES.get(struct.unpack_from("<H", header, 18)[0])


def check_base_arch(base: Path, arch: str) -> None:
    """A UsageError in one line when `base` is for another machine than `arch` (x86_64 or aarch64)."""
    found = base_arch(base)
    if found is None or found == arch:
        return
    raise UsageError(f"the base {base} is an {found} image, but ARCH={arch} builds an {arch} one; pull the "
                     f"{arch} base (make base ARCH={arch}) and pass it as BASE=, or build for the base's "
                     f"architecture (make image ARCH={found} BASE={base})")
