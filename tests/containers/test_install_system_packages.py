"""containers/scripts/install-system-packages.sh decides from facts of the base (sonames in the loader cache,
headers, commands), not package names, and never lets apt replace NVIDIA's rdma packages (DOCA).

Each test runs the real script on a stand-in base: a fake loader cache (`ldconfig -p`), a fake dpkg status
file (DPKG_ADMINDIR, which dpkg-query honours), headers under a fake root, and an `apt-get` that records what
it was asked to install instead of installing it. Where apt itself decides (which lists the base's sources name,
which version an install picks, whether the lists hold a package), Debian's own apt-get and apt-cache answer,
configured as the stand-in base (its /etc/apt, its dpkg status, amd64). The NGC rows are modelled on Ubuntu 24.04
(noble), where the 64-bit time_t transition renamed libcurl4 to libcurl4t64 and librdmacm1 to librdmacm1t64, and
on NVIDIA's DOCA rdma-core (versions such as 2404mlnx51-1.2404066, ai-dynamo/nixl#889).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.missing import missing_tool
from tests.fixtures.other_user import needs_other_user, other_uid, share_with_group, write_as_other_user

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
              "dpkg-deb", "tar", "stat", "mv", "cp", "gzip", "awk", "base64", "od", "head", "tr", "date", "gpgv"]
#: Debian's apt, which answers for the stand-in base where apt decides
REAL_APT = {tool: shutil.which(tool) for tool in ("apt-get", "apt-cache")}
#: The stand-in archive (apt's list names start with URI_dists_SUITE_)
ARCHIVE = "http://deb.example.org/debian"


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
        # The base's apt: its sources name the stand-in archive's suite `stable` (one-line format, as Ubuntu's
        # and older Debian's), Debian's apt reads them with this configuration (APT_CONFIG is read first, so the
        # host's own /etc/apt is not)
        etc = root / "sysroot" / "etc" / "apt"
        for part in ("apt.conf.d", "sources.list.d", "preferences.d"):
            (etc / part).mkdir(parents=True)
        self.sources("stable")
        self.apt_config = root / "apt.conf"
        self.apt_config.write_text(f'Dir::Etc "{etc}";\nDir::State::status "{root}/dpkg/status";\n'
                                   'APT::Architecture "amd64";\nAPT::Architectures { "amd64"; };\n')
        self.apt_get(f"{root}/apt.log")
        self._tool("rm", f'echo "rm $*" >>{root}/apt.log')  # the cleanup of apt's lists, not this host's
        # apt-cache answers from the lists apt reads (Dir::State::Lists: a package mirror's, or those `apt-get
        # update` fetched), as Debian's apt-cache does; with no lists named (a build with the network), from the
        # distribution's archive.
        self._tool("apt-cache", f"""for arg; do case $arg in
    Dir::State::Lists=*) APT_CONFIG={self.apt_config} exec {REAL_APT["apt-cache"]} "$@" ;;
esac; done
grep -qx -- "${{@: -1}}" {root}/archive""")

    def apt_get(self, log: str, then: str = "") -> None:
        """apt-get: Debian's where apt decides (`indextargets`, `install --print-uris`); else what it was asked is
        logged (with the .debs in its archive cache, for an install), then `then` runs (a stand-in for `update`
        or a download)."""
        self._tool("apt-get", f"""case " $* " in
    *" indextargets "* | *" --print-uris "*) APT_CONFIG={self.apt_config} exec {REAL_APT["apt-get"]} "$@" ;;
esac
echo "$*" >>{log}
for arg; do case $1:$arg in
    install:Dir::Cache=*) (cd "${{arg#*=}}/archives" && echo "archives:" *.deb) >>{log} ;;
esac; done
{then}""")

    def sources(self, *suites: str) -> None:
        """The suites of the stand-in archive that the base's apt sources name (/etc/apt/sources.list)."""
        (self.root / "sysroot" / "etc" / "apt" / "sources.list").write_text(
            "".join(f"deb {ARCHIVE} {suite} main\n" for suite in suites))

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
        if soname:  # the library is gone, and so is the package dpkg had it from (apt reads the status)
            self.sonames.remove(soname)
            self.packages.pop(NGC_SONAMES.get(soname, ""), None)
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


def archives(base: Base) -> list[str]:
    """The .debs in apt's archive cache when it was asked to install (what it installs with --no-download)."""
    return [word for line in base.apt if line.startswith("archives:") for word in line.split()[1:]
            if word != "*.deb"]


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



def _deb(directory: Path, package: str, body: str = "", version: str = "1.0") -> Path:
    """A real, minimal .deb of `package` (dpkg-deb --build), as apt-get --download-only leaves them."""
    tree = directory / f"{package}_{version}.tree"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text(f"Package: {package}\nVersion: {version}\nArchitecture: amd64\n"
                                             f"Maintainer: x <x@example.org>\nDescription: {package}{body}\n")
    deb = directory / f"{package}_{version}_amd64.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(tree), str(deb)], check=True,
                   capture_output=True)
    shutil.rmtree(tree)
    return deb


class SigningKey:
    """An archive's signing key, as a distribution's (gpg in a private home): what it signs, the base trusts
    only where its apt would (trusted.gpg.d, or a Signed-By its sources name)."""

    def __init__(self, home: Path, name: str) -> None:
        self.home = home
        home.mkdir(mode=0o700)
        self._gpg("--passphrase", "", "--quick-gen-key", f"{name} <archive@example.org>", "ed25519", "sign", "never")

    def _gpg(self, *args: str, stdin: str = "") -> str:
        return subprocess.run(["gpg", "--batch", "--quiet", "--homedir", str(self.home), *args], input=stdin,
                              capture_output=True, text=True, check=True, timeout=60).stdout

    def clearsign(self, text: str) -> str:
        return self._gpg("--clearsign", "--digest-algo", "SHA256", stdin=text)

    def detach_sign(self, text: str) -> str:
        return self._gpg("--armor", "--detach-sign", "--digest-algo", "SHA256", stdin=text)

    def public(self, armor: bool) -> bytes:
        armored = ["--armor"] if armor else []
        return subprocess.run(["gpg", "--batch", "--homedir", str(self.home), "--export", *armored],
                              capture_output=True, check=True, timeout=60).stdout

    def close(self) -> None:
        subprocess.run(["gpgconf", "--homedir", str(self.home), "--kill", "gpg-agent"], capture_output=True)


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory):
    """The distribution's key and an attacker's (gpg makes them in about a second each)."""
    if not shutil.which("gpg"):
        missing_tool("gpg (package gnupg) signs the stand-in archive's Release", "system.sh")
    home = tmp_path_factory.mktemp("gpg")
    made = {"archive": SigningKey(home / "archive", "Example Archive Automatic Signing Key"),
            "attacker": SigningKey(home / "attacker", "Example Archive Automatic Signing Key")}
    yield made
    for key in made.values():
        key.close()


#: apt's list names for the stand-in archive (URI_dists_SUITE_...), as `apt-get update` writes them
LIST = "deb.example.org_debian_dists_stable_"
PACKAGES = f"{LIST}main_binary-amd64_Packages"


def packages_index(debs: list[Path]) -> str:
    """The archive's Packages index of `debs`: each control file with Filename, Size and SHA256 (as dak writes)."""
    stanzas = []
    for deb in debs:
        control = subprocess.run(["dpkg-deb", "--field", str(deb)], capture_output=True, text=True,
                                 check=True).stdout
        stanzas.append(f"{control}Filename: pool/main/{deb.name}\nSize: {deb.stat().st_size}\n"
                       f"SHA256: {hashlib.sha256(deb.read_bytes()).hexdigest()}\n")
    return "\n".join(stanzas)


def release(packages: str, valid_until: str = "", suite: str = "stable", fields: str = "") -> str:
    """The archive's Release of `suite`: the SHA256 and size of its Packages index (compressed names too, as
    Debian's); `fields`: more lines (a backports suite's NotAutomatic)."""
    body = packages.encode()
    digest = hashlib.sha256(body).hexdigest()
    until = f"Valid-Until: {valid_until}\n" if valid_until else ""
    return (f"Origin: Example\nSuite: {suite}\nCodename: {suite}\nDate: Sat, 28 Nov 2026 12:00:00 UTC\n{until}{fields}"
            f"Architectures: amd64\nComponents: main\nSHA256:\n {'0' * 64} 123 main/binary-amd64/Packages.xz\n"
            f" {digest} {len(body)} main/binary-amd64/Packages\n")


def signed_lists(directory: Path, key: SigningKey, debs: list[Path], valid_until: str = "") -> None:
    """What `apt-get update` leaves in its lists directory for an archive that holds `debs`."""
    directory.mkdir(parents=True, exist_ok=True)
    packages = packages_index(debs)
    (directory / PACKAGES).write_text(packages)
    (directory / f"{LIST}InRelease").write_text(key.clearsign(release(packages, valid_until)))


def trust(base: Base, key: SigningKey, *, where: str = "etc/apt/trusted.gpg.d/example-archive.asc") -> None:
    """Put the archive's public key where the stand-in base keeps it (.asc: armored, as Debian's trusted.gpg.d)."""
    path = base.root / "sysroot" / where
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(key.public(armor=where.endswith(".asc")))


def downloading_apt(base: Base, tmp_path: Path) -> None:
    """apt-get as `make sources` meets it in the base: `update` fills its lists directory with the archive's
    (tmp_path/archive-lists), `install --download-only` its archives directory with the .debs (tmp_path/made)."""
    base.apt_get(f"{tmp_path}/apt.log", f"""for arg; do case $arg in
    Dir::Cache::archives=*) /bin/cp {tmp_path}/made/*.deb "${{arg#*=}}/" ;;
    Dir::State::Lists=*) [ "$1" != update ] || /bin/cp {tmp_path}/archive-lists/* "${{arg#*=}}/" ;;
esac; done""")


def suite_lists(mirror: Path, key: SigningKey, suite: str, debs: list[Path], fields: str = "") -> None:
    """Another suite of the stand-in archive as `make sources` keeps one in the mirror's lists/: its InRelease,
    signed by `key`, and its Packages index of `debs`, gzipped."""
    packages = packages_index(debs)
    prefix = f"deb.example.org_debian_dists_{suite}_"
    (mirror / "lists" / f"{prefix}main_binary-amd64_Packages.gz").write_bytes(gzip.compress(packages.encode(),
                                                                                            mtime=0))
    (mirror / "lists" / f"{prefix}InRelease").write_text(key.clearsign(release(packages, suite=suite,
                                                                               fields=fields)))


@pytest.fixture
def gathered(base: Base, tmp_path: Path, keys) -> Path:
    """A package mirror as `make sources` writes it (the script in download mode, in the base): `apt-get update`
    is stood in for by the signed lists of an archive that holds one real .deb, apt-get --download-only by that
    .deb; the base trusts the archive's key, as Debian's trusts debian-archive-keyring's. What apt-get was asked
    then is kept in tmp_path/make-sources.log."""
    if not all(REAL_APT.values()):
        missing_tool("apt-get and apt-cache (Debian's apt) resolve the stand-in base's packages", "system.sh")
    mirror = tmp_path / "debs"
    mirror.mkdir()
    made = tmp_path / "made"
    made.mkdir()
    deb = _deb(made, "libcurl4t64")
    signed_lists(tmp_path / "archive-lists", keys["archive"], [deb])
    trust(base, keys["archive"])
    downloading_apt(base, tmp_path)
    base.ngc().remove(soname="libcurl.so.4")
    result = base.run(DEB_DOWNLOAD=str(mirror))
    assert result.returncode == 0, result.stderr
    base.apt_get(f"{tmp_path}/apt.log")
    (tmp_path / "apt.log").rename(tmp_path / "make-sources.log")
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


def test_make_sources_asks_apt_to_download_only_into_the_mirror(gathered, tmp_path):
    asked = (tmp_path / "make-sources.log").read_text().splitlines()
    [download] = [line for line in asked if line.startswith("install ")]
    assert "--download-only" in download and f"Dir::Cache::archives={gathered}" in download
    assert download.endswith(" libcurl4t64")


def test_a_base_that_lacks_nothing_gets_an_empty_mirror_that_says_so(base, tmp_path):
    mirror = tmp_path / "debs"
    mirror.mkdir()
    result = base.ngc().run(DEB_DOWNLOAD=str(mirror))
    assert result.returncode == 0, result.stderr
    assert base.apt == []
    assert (mirror / "SHA256SUMS").read_text() == "" and (mirror / "Packages").read_text() == ""


def test_offline_the_packages_come_from_the_mirror_only(base, gathered):
    """apt reads the mirror's signed lists in place of the archive's and downloads nothing: no `update`, and the
    install takes the .debs in its archive cache (--no-download)."""
    result = base.run(DEB_MIRROR=str(gathered))
    assert result.returncode == 0, result.stderr
    assert installed(base) == ["libcurl4t64"]
    assert not [line for line in base.apt if line.startswith("update")], base.apt
    [install] = [line for line in base.apt if line.startswith("install ")]
    assert "--no-download" in install and "Dir::State::Lists=" in install, install


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


DEB = "libcurl4t64_1.0_amd64.deb"


def rewrite_mirror_index(mirror: Path) -> None:
    """What anyone who can write the mirror can do besides swapping a .deb: make its SHA256SUMS and its own
    Packages index match whatever .debs lie there now."""
    debs = sorted(mirror.glob("*.deb"))
    (mirror / "SHA256SUMS").write_text("".join(f"{hashlib.sha256(deb.read_bytes()).hexdigest()}  {deb.name}\n"
                                               for deb in debs))
    (mirror / "Packages").write_text(packages_index(debs).replace("pool/main/", "./"))


def swap_deb(mirror: Path, tmp_path: Path) -> None:
    """A libcurl4t64 1.0 of the attacker's, in place of the distribution's, with the mirror's own indexes to match."""
    shutil.copy(_deb(tmp_path, "libcurl4t64", " (swapped)"), mirror / DEB)
    rewrite_mirror_index(mirror)


def rewrite_signed_packages(mirror: Path) -> bytes:
    """The kept Packages index rewritten to list the .debs now in the mirror (what an attacker would do next)."""
    text = packages_index(sorted(mirror.glob("*.deb")))
    (mirror / "lists" / f"{PACKAGES}.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
    return text.encode()


def test_make_sources_keeps_what_the_distribution_signed_beside_the_debs(gathered):
    kept = sorted(path.name for path in (gathered / "lists").iterdir())
    assert kept == [f"{LIST}InRelease", f"{PACKAGES}.gz"]
    assert "-----BEGIN PGP SIGNED MESSAGE-----" in (gathered / "lists" / f"{LIST}InRelease").read_text()
    assert f"SHA256: {hashlib.sha256((gathered / DEB).read_bytes()).hexdigest()}" in gzip.decompress(
        (gathered / "lists" / f"{PACKAGES}.gz").read_bytes()).decode()


def test_make_sources_refuses_a_package_no_signed_index_lists(base, gathered, tmp_path):
    """A base whose apt took the package from an archive that signed nothing ([trusted=yes]): make sources stops
    instead of writing a mirror that looks whole."""
    (tmp_path / "archive-lists" / f"{LIST}InRelease").unlink()
    downloading_apt(base, tmp_path)
    again = tmp_path / "again"
    again.mkdir()
    line = one_error(base.run(DEB_DOWNLOAD=str(again)))
    assert PACKAGES in line and "no Release file" in line, line


def test_offline_the_honest_mirror_installs_from_a_verified_private_copy(base, gathered):
    result = base.run(DEB_MIRROR=str(gathered))
    assert result.returncode == 0, result.stderr
    assert installed(base) == ["libcurl4t64"] and archives(base) == [DEB]
    assert str(gathered) not in " ".join(base.apt)


def test_offline_a_swapped_deb_with_sha256sums_and_packages_rewritten_is_refused(base, gathered, tmp_path):
    swap_deb(gathered, tmp_path)
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert DEB in line and "expected" in line and "found" in line and "make sources" in line, line
    assert not installed(base)


@needs_other_user
def test_offline_a_deb_another_user_swapped_in_a_mirror_their_group_can_write_is_refused(base, gathered, tmp_path,
                                                                                          group_project):
    """The mirror gathered into a project directory, its files the group's (`make sources` there under the group's
    umask); a member of that group puts their libcurl4t64 1.0 in place of the distribution's, with SHA256SUMS and
    Packages to match (made beforehand here: how they make them is beside the point)."""
    mirror = group_project / "debs"
    shutil.copytree(gathered, mirror)
    share_with_group(mirror)
    theirs = tmp_path / "theirs"
    shutil.copytree(gathered, theirs)
    swap_deb(theirs, tmp_path)
    for name in (DEB, "SHA256SUMS", "Packages"):
        write_as_other_user(mirror / name, (theirs / name).read_bytes())
    assert (mirror / DEB).stat().st_uid == other_uid()
    line = one_error(base.run(DEB_MIRROR=str(mirror)))
    assert DEB in line and "expected" in line and "found" in line and "make sources" in line, line
    assert not installed(base)


def test_offline_a_packages_index_altered_to_match_a_swapped_deb_is_refused(base, gathered, tmp_path):
    swap_deb(gathered, tmp_path)
    altered = rewrite_signed_packages(gathered)
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert f"{PACKAGES}.gz" in line and "signed Release" in line, line
    assert f"found {hashlib.sha256(altered).hexdigest()} {len(altered)}" in line and "make sources" in line
    assert not installed(base)


def test_offline_an_inrelease_whose_signature_no_longer_matches_is_refused(base, gathered, tmp_path):
    swap_deb(gathered, tmp_path)
    altered = rewrite_signed_packages(gathered)
    inrelease = gathered / "lists" / f"{LIST}InRelease"
    text = inrelease.read_text()
    old = re.search(r" ([0-9a-f]{64}) (\d+) main/binary-amd64/Packages\n", text)
    inrelease.write_text(text.replace(old.group(0), f" {hashlib.sha256(altered).hexdigest()} {len(altered)} "
                                                    "main/binary-amd64/Packages\n"))
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert f"{LIST}InRelease" in line and "bad signature" in line and "make sources" in line, line
    assert not installed(base)


def test_offline_an_inrelease_signed_by_a_key_the_base_does_not_trust_is_refused(base, gathered, tmp_path, keys):
    swap_deb(gathered, tmp_path)
    altered = rewrite_signed_packages(gathered).decode()
    (gathered / "lists" / f"{LIST}InRelease").write_text(keys["attacker"].clearsign(release(altered)))
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert f"{LIST}InRelease" in line and "no key the base trusts" in line, line
    assert not installed(base)


def test_offline_a_key_the_base_keeps_but_its_apt_does_not_trust_signs_nothing(base, gathered):
    """Debian's /usr/share/keyrings holds debian-archive-removed-keys.gpg: a keyring apt is not told to use."""
    trusted = base.root / "sysroot" / "etc/apt/trusted.gpg.d/example-archive.asc"
    kept = base.root / "sysroot" / "usr/share/keyrings/example-archive-removed-keys.gpg"
    kept.parent.mkdir(parents=True)
    trusted.rename(kept)
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert "no keyring its apt trusts" in line or "no key the base trusts" in line, line
    assert not installed(base)


def test_offline_a_keyring_the_bases_sources_name_with_signed_by_is_trusted(base, gathered, keys):
    (base.root / "sysroot" / "etc/apt/trusted.gpg.d/example-archive.asc").unlink()
    trust(base, keys["archive"], where="usr/share/keyrings/example-archive-keyring.gpg")
    (base.root / "sysroot" / "etc/apt/sources.list").unlink()  # its sources in deb822 alone, as Debian 12's
    sources = base.root / "sysroot" / "etc/apt/sources.list.d/example.sources"
    sources.write_text("Types: deb\nURIs: http://deb.example.org/debian\nSuites: stable\nComponents: main\n"
                       "Signed-By: /usr/share/keyrings/example-archive-keyring.gpg\n")
    result = base.run(DEB_MIRROR=str(gathered))
    assert result.returncode == 0, result.stderr
    assert installed(base) == ["libcurl4t64"]


def test_offline_an_expired_release_is_refused(base, gathered, keys):
    """A genuine Release kept past its Valid-Until (Debian's security archive gives a week), as apt refuses it."""
    packages = gzip.decompress((gathered / "lists" / f"{PACKAGES}.gz").read_bytes()).decode()
    (gathered / "lists" / f"{LIST}InRelease").write_text(
        keys["archive"].clearsign(release(packages, valid_until="Sat, 01 Jan 2022 00:00:00 UTC")))
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert f"{LIST}InRelease" in line and "expired" in line and "2022" in line and "make sources" in line, line
    assert not installed(base)


@pytest.mark.parametrize("unsigned", ["no signature at all", "unsigned text after the signature"])
def test_offline_an_unsigned_release_is_refused(base, gathered, unsigned):
    lists = gathered / "lists"
    inrelease = lists / f"{LIST}InRelease"
    if unsigned == "no signature at all":
        packages = gzip.decompress((lists / f"{PACKAGES}.gz").read_bytes()).decode()
        (lists / f"{LIST}Release").write_text(release(packages))
        inrelease.unlink()
        expected = "has no signature"
    else:
        inrelease.write_text(inrelease.read_text() + "Valid-Until: Sat, 01 Jan 2000 00:00:00 UTC\n")
        expected = "not one clearsigned message"
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert expected in line, line
    assert not installed(base)


def test_offline_a_release_with_a_detached_signature_is_verified_too(base, gathered, keys):
    lists = gathered / "lists"
    packages = gzip.decompress((lists / f"{PACKAGES}.gz").read_bytes()).decode()
    (lists / f"{LIST}Release").write_text(release(packages))
    (lists / f"{LIST}Release.gpg").write_text(keys["archive"].detach_sign(release(packages)))
    (lists / f"{LIST}InRelease").unlink()
    result = base.run(DEB_MIRROR=str(gathered))
    assert result.returncode == 0, result.stderr
    (lists / f"{LIST}Release").write_text(release(packages).replace("Origin: Example", "Origin: Other"))
    assert "bad signature" in one_error(base.run(DEB_MIRROR=str(gathered)))


def test_offline_a_deb_no_signed_index_lists_is_refused(base, gathered, tmp_path):
    _deb(gathered, "libnuma1")
    rewrite_mirror_index(gathered)
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert "libnuma1_1.0_amd64.deb" in line and "no Packages index the distribution signed" in line, line
    assert not installed(base)


def test_offline_a_base_without_gpgv_stops_in_one_line_instead_of_trusting_the_mirror(base, gathered):
    (base.bin / "gpgv").unlink()
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert "no gpgv" in line, line
    assert not installed(base)


@pytest.mark.parametrize("suite, named, fields", [
    ("experimental", False, ""),
    ("stable-backports", True, "NotAutomatic: yes\nButAutomaticUpgrades: yes\n"),
], ids=["a suite the base's sources do not name", "a backports suite they name"])
def test_offline_an_extra_package_from_another_suite_the_archive_key_signs_is_refused(base, gathered, tmp_path, keys,
                                                                                     suite, named, fields):
    """A distribution signs several suites with one key (bookworm, -updates, -backports, -security): whoever can
    write the mirror adds one's signed lists and a newer libcurl4t64 it lists. Neither is what the base's apt
    would install: the base does not name the first suite; the second is NotAutomatic, which apt never prefers
    to the version in stable. Before, both passed the signatures and the build installed 9.9."""
    deb = _deb(tmp_path, "libcurl4t64", f" ({suite})", version="9.9")
    shutil.copy(deb, gathered / deb.name)
    rewrite_mirror_index(gathered)
    suite_lists(gathered, keys["archive"], suite, [deb], fields)
    if named:
        base.sources("stable", suite)
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    if named:
        assert deb.name in line and f"picks {DEB}" in line, line
    else:
        assert f"deb.example.org_debian_dists_{suite}_" in line and "do not name" in line, line
    assert "make sources" in line
    assert not installed(base)


def test_offline_an_older_signed_version_in_place_of_the_one_the_base_picks_is_refused(base, gathered, tmp_path,
                                                                                       keys):
    """The base names stable and stable-updates, whose signed lists hold libcurl4t64 1.1: `make sources` gathered
    1.1. Whoever can write the mirror puts back stable's signed 1.0 (an older version, with the fixes of 1.1
    missing) with stable's lists, and keeps stable-updates' lists: the base's apt picks 1.1 from them. Before,
    1.0 passed the signatures and was installed."""
    base.sources("stable", "stable-updates")
    suite_lists(gathered, keys["archive"], "stable-updates", [_deb(tmp_path, "libcurl4t64", version="1.1")])
    line = one_error(base.run(DEB_MIRROR=str(gathered)))
    assert DEB in line and "picks libcurl4t64_1.1_amd64.deb" in line and "make sources" in line, line
    assert not installed(base)


def test_offline_a_replayed_older_index_of_a_suite_the_base_names_installs_its_older_package(base, gathered,
                                                                                              tmp_path, keys):
    """The documented limit (docs/security.md): an older InRelease the distribution once signed for stable, with
    the older libcurl4t64 0.9 it lists, in place of the current ones. That is all the base's apt could see of
    stable offline, so it picks 0.9, as apt itself would from such a mirror; only a Valid-Until in the Release
    bounds it (test_offline_an_expired_release_is_refused)."""
    (gathered / DEB).unlink()
    older = _deb(gathered, "libcurl4t64", " (an older release)", version="0.9")
    rewrite_mirror_index(gathered)
    suite_lists(gathered, keys["archive"], "stable", [older])
    result = base.run(DEB_MIRROR=str(gathered))
    assert result.returncode == 0, result.stderr
    assert installed(base) == ["libcurl4t64"] and archives(base) == [older.name]


def test_offline_a_version_with_an_epoch_goes_into_apts_cache_under_the_name_apt_gives_it(base, gathered, keys):
    """apt-get --no-download takes a file of the right size from its archive cache by name alone, and names a
    version's epoch ':' %3a (Debian's libgmp10 2:6.2.1: libgmp10_2%3a6.2.1+dfsg1-1.1_amd64.deb): each verified .deb
    goes there under the name its own package, version and architecture give, whatever the mirror called it."""
    (gathered / DEB).unlink()
    epoch = _deb(gathered, "libcurl4t64", version="1:1.0+dfsg1")
    rewrite_mirror_index(gathered)
    suite_lists(gathered, keys["archive"], "stable", [epoch])
    result = base.run(DEB_MIRROR=str(gathered))
    assert result.returncode == 0, result.stderr
    assert archives(base) == ["libcurl4t64_1%3a1.0+dfsg1_amd64.deb"]
