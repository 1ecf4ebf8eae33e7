"""containers/scripts/install-system-packages.sh decides from facts of the base (sonames in the loader cache,
headers, commands), not package names, and never lets apt replace NVIDIA's rdma packages (DOCA).

Each test runs the real script on a stand-in base: a fake loader cache (`ldconfig -p`), a fake dpkg status
file (DPKG_ADMINDIR, which dpkg-query honours), headers under a fake root, and an `apt-get` that records what
it was asked to install instead of installing it. The NGC rows are modelled on Ubuntu 24.04 (noble), where the
64-bit time_t transition renamed libcurl4 to libcurl4t64 and librdmacm1 to librdmacm1t64, and on NVIDIA's DOCA
rdma-core (versions such as 2404mlnx51-1.2404066, ai-dynamo/nixl#889).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "containers" / "scripts" / "install-system-packages.sh"
TRIPLET = "x86_64-linux-gnu"

#: The CUDA flavour's facts as NGC 26.05 (Ubuntu 24.04 + DOCA) has them: soname -> the package noble ships it in
NGC_SONAMES = {"libibverbs.so.1": "libibverbs1", "libmlx5.so.1": "ibverbs-providers", "libcurl.so.4": "libcurl4t64",
               "libjson-c.so.5": "libjson-c5", "libnl-3.so.200": "libnl-3-200", "libnl-route-3.so.200":
               "libnl-route-3-200", "libnuma.so.1": "libnuma1", "librdmacm.so.1": "librdmacm1t64"}
NGC_HEADERS = ["infiniband/verbs.h", "rdma/rdma_cma.h", "hwloc.h"]
NGC_COMMANDS = ["ibv_devinfo", "numactl", "gcc", "g++", "make", "autoconf", "automake", "libtoolize", "pkg-config",
                "curl"]
DOCA_VERSION = "2404mlnx51-1.2404066"
#: Basic tools the script may call; everything else it finds (or not) in the stand-in base
HOST_TOOLS = ["bash", "dirname", "dpkg-query", "grep", "uname", "sed", "sha256sum", "cut", "cat", "mktemp", "mkdir",
              "dpkg-deb", "tar", "stat", "mv"]


class Base:
    """A stand-in base image: what the script's probes see."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.bin.mkdir(parents=True)
        for tool in HOST_TOOLS:
            (self.bin / tool).symlink_to(shutil.which(tool))
        (root / "dpkg" / "info").mkdir(parents=True)
        (root / "dpkg" / "updates").mkdir()
        self.packages: dict[str, str] = {}
        self.sonames: list[str] = []
        self.archive = {"libcurl4t64", "librdmacm1t64", "libibverbs1", "ibverbs-providers", "ibverbs-utils",
                        "rdma-core", "ca-certificates", "numactl", "libjson-c5", "libnl-3-200", "libnl-route-3-200",
                        "libnuma1", "build-essential", "autoconf", "automake", "libtool", "pkgconf", "curl",
                        "libhwloc-dev", "libibverbs-dev", "librdmacm-dev", "python3", "python3-venv", "g++",
                        "python3-dev"}
        self._tool("apt-get", f'echo "$*" >>{root}/apt.log')
        self._tool("rm", f'echo "rm $*" >>{root}/apt.log')  # the cleanup of apt's lists, not this host's
        # apt-cache answers from the distribution's archive, or from the index of the file repository that
        # Dir::Etc::SourceList names (a package mirror), as apt would after `apt-get update`.
        self._tool("apt-cache", f"""list=
for arg; do case $arg in Dir::Etc::SourceList=*) list=${{arg#*=}} ;; esac; done
if [ -n "$list" ]; then
    dir=$(sed -n 's|.* file:\\([^ ]*\\) .*|\\1|p' "$list")
    grep -qx -- "Package: ${{@: -1}}" "$dir/Packages"
else
    grep -qx -- "${{@: -1}}" {root}/archive
fi""")

    def _tool(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(f"#!/bin/bash\n{body}\n")
        path.chmod(0o755)

    def ngc(self) -> Base:
        self.sonames += list(NGC_SONAMES)
        for header in NGC_HEADERS:
            self.header(header)
        for command in NGC_COMMANDS:
            self._tool(command, "true")
        self.file("etc/ssl/certs/ca-certificates.crt")
        self.packages.update({package: "8.5.0-2ubuntu10" for package in NGC_SONAMES.values()})
        self.packages.update({"rdma-core": DOCA_VERSION, "ibverbs-providers": DOCA_VERSION,
                              "libibverbs1": DOCA_VERSION, "libibverbs-dev": DOCA_VERSION})
        return self

    def header(self, name: str) -> None:
        self.file(f"usr/include/{name}")

    def file(self, name: str) -> None:
        path = self.root / "sysroot" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def remove(self, *, soname: str = "", command: str = "", header: str = "") -> None:
        if soname:
            self.sonames.remove(soname)
        if command:
            (self.bin / command).unlink()
        if header:
            (self.root / "sysroot" / "usr" / "include" / header).unlink()

    def run(self, flavour: str = "cuda", with_cuda: str = "1", **env: str) -> subprocess.CompletedProcess[str]:
        cache = "".join(f"\t{name} (libc6,x86-64) => /usr/lib/{TRIPLET}/{name}\n" for name in self.sonames)
        self._tool("ldconfig", f"[ \"$1\" = -p ] && printf '%s' '{len(self.sonames)} libs found in cache\n{cache}'")
        (self.root / "archive").write_text("".join(f"{name}\n" for name in sorted(self.archive)))
        status = "".join(f"Package: {name}\nStatus: install ok installed\nVersion: {version}\nArchitecture: amd64\n"
                         f"Maintainer: x\nDescription: x\n\n" for name, version in self.packages.items())
        (self.root / "dpkg" / "status").write_text(status)
        env = {"PATH": str(self.bin), "DPKG_ADMINDIR": str(self.root / "dpkg"), "FLAVOUR": flavour,
               "WITH_CUDA": with_cuda, "PROBE_ROOT": str(self.root / "sysroot"), "TMPDIR": str(self.root), **env}
        return subprocess.run([str(self.bin / "bash"), str(SCRIPT)], env=env, capture_output=True, text=True,
                              timeout=60)

    @property
    def apt(self) -> list[str]:
        log = self.root / "apt.log"
        return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def base(tmp_path: Path) -> Base:
    return Base(tmp_path)


def installed(base: Base) -> list[str]:
    return [word for line in base.apt if line.startswith("install ") for word in line.split()
            if not word.startswith("-") and word != "install" and "=" not in word]  # "=": an -o option's value


def test_ngc_on_ubuntu_24_04_has_every_fact_and_nothing_is_installed(base):
    """libcurl.so.4 comes from libcurl4t64 there: a check by package name found libcurl4 missing every time."""
    result = base.ngc().run()
    assert result.returncode == 0, result.stderr
    assert base.apt == [], base.apt
    assert "installing: nothing" in result.stderr


def test_a_missing_library_is_installed_under_the_name_the_archive_has(base):
    base.ngc().remove(soname="libcurl.so.4")
    result = base.run()
    assert result.returncode == 0, result.stderr
    assert base.apt[0] == "update -qq"
    assert installed(base) == ["libcurl4t64"]


def test_on_a_debian_archive_the_old_name_is_the_one_installed(base):
    base.archive = (base.archive - {"libcurl4t64"}) | {"libcurl4"}
    base.ngc().remove(soname="libcurl.so.4")
    assert base.run().returncode == 0
    assert installed(base) == ["libcurl4"]


def test_rdma_packages_are_never_installed_over_nvidias(base):
    base.ngc().remove(header="rdma/rdma_cma.h")
    result = base.run()
    assert result.returncode != 0
    assert base.apt == []
    lines = [line for line in result.stderr.splitlines() if "error" in line]
    assert len(lines) == 1 and "rdma/rdma_cma.h" in lines[0] and DOCA_VERSION in lines[0]


def test_a_missing_rdma_tool_on_a_doca_base_is_skipped_in_one_line(base):
    base.ngc().remove(command="ibv_devinfo")
    result = base.run()
    assert result.returncode == 0, result.stderr
    assert "ibverbs-utils" not in " ".join(base.apt)
    assert sum("ibv_devinfo" in line and "DOCA" in line for line in result.stderr.splitlines()) == 1


def test_without_doca_a_missing_rdma_library_is_installed(base):
    base.ngc()
    base.packages.update({name: "50.0-2" for name in ("rdma-core", "ibverbs-providers", "libibverbs1",
                                                       "libibverbs-dev")})
    base.remove(soname="libmlx5.so.1")
    assert base.run().returncode == 0
    assert installed(base) == ["ibverbs-providers"]


def test_the_smoke_flavour_on_bare_debian_installs_its_runtime_and_python(base):
    result = base.run(flavour="smoke", with_cuda="0")
    assert result.returncode == 0, result.stderr
    assert installed(base) == ["libibverbs1", "ibverbs-providers", "ibverbs-utils", "rdma-core", "ca-certificates",
                               "numactl", "python3", "python3-venv", "g++", "python3-dev"]



def _deb(directory: Path, package: str, body: str = "") -> Path:
    """A real, minimal .deb of `package` (dpkg-deb --build), as apt-get --download-only leaves them."""
    tree = directory / f"{package}.tree"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text(f"Package: {package}\nVersion: 1.0\nArchitecture: amd64\n"
                                             f"Maintainer: x <x@example.org>\nDescription: {package}{body}\n")
    deb = directory / f"{package}_1.0_amd64.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(tree), str(deb)], check=True,
                   capture_output=True)
    shutil.rmtree(tree)
    return deb


@pytest.fixture
def gathered(base: Base, tmp_path: Path) -> Path:
    """A package mirror as `make sources` writes it (the script in download mode, in the base): apt-get
    --download-only is stood in for by one real .deb of what it was asked for."""
    mirror = tmp_path / "debs"
    mirror.mkdir()
    made = tmp_path / "made"
    made.mkdir()
    _deb(made, "libcurl4t64")
    base._tool("apt-get", f"""echo "$*" >>{tmp_path}/apt.log
for arg; do case $arg in Dir::Cache::archives=*) /bin/cp {made}/*.deb "${{arg#*=}}/" ;; esac; done""")
    base.ngc().remove(soname="libcurl.so.4")
    result = base.run(DEB_DOWNLOAD=str(mirror))
    assert result.returncode == 0, result.stderr
    base._tool("apt-get", f'echo "$*" >>{tmp_path}/apt.log')
    (tmp_path / "apt.log").unlink()
    return mirror


def one_error(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if "error" in line]
    assert result.returncode != 0 and len(lines) == 1, result.stderr
    return lines[0]


def test_make_sources_downloads_what_the_build_would_install_and_installs_nothing(base, gathered):
    assert not installed(base)
    deb = "libcurl4t64_1.0_amd64.deb"
    digest = hashlib.sha256((gathered / deb).read_bytes()).hexdigest()
    assert (gathered / "SHA256SUMS").read_text() == f"{digest}  {deb}\n"
    index = (gathered / "Packages").read_text()
    assert "Package: libcurl4t64\n" in index and f"Filename: ./{deb}\n" in index and f"SHA256: {digest}\n" in index


def test_make_sources_asks_apt_to_download_only_into_the_mirror(base, tmp_path):
    base.ngc().remove(soname="libcurl.so.4")
    mirror = tmp_path / "debs"
    mirror.mkdir()
    result = base.run(DEB_DOWNLOAD=str(mirror))
    assert result.returncode == 0, result.stderr
    [download] = [line for line in base.apt if line.startswith("install ")]
    assert "--download-only" in download and f"Dir::Cache::archives={mirror}" in download
    assert download.endswith(" libcurl4t64")


def test_a_base_that_lacks_nothing_gets_an_empty_mirror_that_says_so(base, tmp_path):
    mirror = tmp_path / "debs"
    mirror.mkdir()
    result = base.ngc().run(DEB_DOWNLOAD=str(mirror))
    assert result.returncode == 0, result.stderr
    assert base.apt == []
    assert (mirror / "SHA256SUMS").read_text() == "" and (mirror / "Packages").read_text() == ""


def test_offline_the_packages_come_from_the_mirror_only(base, gathered):
    result = base.run(DEB_MIRROR=str(gathered))
    assert result.returncode == 0, result.stderr
    assert installed(base) == ["libcurl4t64"]
    for line in base.apt:
        if line.startswith(("update", "install")):
            assert "Dir::Etc::SourceList=" in line and "Dir::Etc::SourceParts=" in line, line


def test_offline_a_deb_missing_from_the_mirror_stops_the_build_in_one_line(base, gathered):
    (gathered / "libcurl4t64_1.0_amd64.deb").unlink()
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert "libcurl4t64_1.0_amd64.deb" in line and "make sources" in line
    assert not installed(base)


def test_offline_a_swapped_deb_is_refused(base, gathered, tmp_path):
    shutil.copy(_deb(tmp_path, "libcurl4t64", " (swapped)"), gathered / "libcurl4t64_1.0_amd64.deb")
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert "sha256" in line and "libcurl4t64_1.0_amd64.deb" in line
    assert not installed(base)


def test_offline_a_package_the_mirror_was_not_gathered_for_is_named_in_one_line(base, gathered):
    base.remove(soname="libnuma.so.1")
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert "libnuma1" in line and "libnuma.so.1" in line and "make sources" in line
    assert not installed(base)
