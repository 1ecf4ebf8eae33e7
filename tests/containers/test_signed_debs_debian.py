"""The package mirror's chain of trust against Debian's real archive (containers/scripts/signed-debs.sh).

`containers/gather-debs.sh` asks the smoke flavour's base (the debootstrapped Debian rootfs, `make
build/smoke-rootfs/.debootstrapped`) for its packages with the network, as `make sources` does; then the package
step runs in a copy of that rootfs, as root in a chroot inside a network namespace with no route out (`unshare
--net`): the honest mirror installs, verified against the rootfs's own debian-archive-keyring; a .deb rebuilt with
the same name and version, with SHA256SUMS and the mirror's own Packages rewritten, is refused (the code before
the chain of trust installed it). The stand-in
archive of tests/containers/test_install_system_packages.py proves each refusal in `make test`; this proves the
rules hold for what Debian really signs (a clearsigned InRelease with three signatures, .asc keyrings in
trusted.gpg.d). About 2.5 minutes on a loaded 2-core machine (the download, two copies of the rootfs, apt
installing 85 packages): `nox -s debian_mirror` (DDP_TEST_DEBIAN_MIRROR=1), not `make test`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.apptainer import missing_tool

pytestmark = [pytest.mark.apptainer, pytest.mark.slow, pytest.mark.root,
              pytest.mark.skipif(os.environ.get("DDP_TEST_DEBIAN_MIRROR") != "1",
                                 reason="needs Debian's archive and ~2 minutes: nox -s debian_mirror")]

REPO = Path(__file__).resolve().parents[2]
ROOTFS = REPO / "build" / "smoke-rootfs"


@pytest.fixture(scope="module")
def debian_mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.geteuid() != 0:
        missing_tool("the chroot and apptainer exec --fakeroot of the smoke rootfs need root")
    made = subprocess.run(["make", "-C", str(REPO), "build/smoke-rootfs/.debootstrapped"], capture_output=True,
                          text=True, timeout=900)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    mirror = tmp_path_factory.mktemp("sources") / "debs-smoke"
    gathered = subprocess.run(["bash", str(REPO / "containers" / "gather-debs.sh"), "smoke", str(ROOTFS),
                               str(mirror), "python3"], capture_output=True, text=True, timeout=900)
    assert gathered.returncode == 0, gathered.stderr[-3000:]
    return mirror


def install_offline(mirror: Path, root: Path) -> subprocess.CompletedProcess[str]:
    """The package step with DEB_MIRROR in a fresh copy of the smoke rootfs, with no network."""
    shutil.copytree(ROOTFS, root, symlinks=True)
    shutil.copytree(REPO / "containers" / "scripts", root / "opt" / "scripts")
    shutil.copytree(mirror, root / "opt" / "debs-smoke", symlinks=True)
    (root / "dev").mkdir(exist_ok=True)
    subprocess.run(["mount", "--bind", "/dev", str(root / "dev")], check=True)
    try:
        return subprocess.run(["unshare", "--net", "chroot", str(root), "env", "-i",
                               "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "FLAVOUR=smoke", "WITH_CUDA=0",
                               "DEB_MIRROR=/opt/debs-smoke", "bash", "/opt/scripts/install-system-packages.sh"],
                              capture_output=True, text=True, timeout=900)
    finally:
        subprocess.run(["umount", str(root / "dev")], check=True)


def rewrite_mirror_index(mirror: Path) -> None:
    """SHA256SUMS and the mirror's own Packages made to match whatever .debs lie there (as make sources writes them)."""
    sums, stanzas = [], []
    for deb in sorted(mirror.glob("*.deb")):
        digest = hashlib.sha256(deb.read_bytes()).hexdigest()
        control = subprocess.run(["dpkg-deb", "--field", str(deb)], capture_output=True, text=True,
                                 check=True).stdout
        sums.append(f"{digest}  {deb.name}\n")
        stanzas.append(f"{control}Filename: ./{deb.name}\nSize: {deb.stat().st_size}\nSHA256: {digest}\n\n")
    (mirror / "SHA256SUMS").write_text("".join(sums))
    (mirror / "Packages").write_text("".join(stanzas))


def test_make_sources_keeps_debians_signed_release_and_index_beside_the_packages(debian_mirror):
    kept = sorted(path.name for path in (debian_mirror / "lists").iterdir())
    assert any(name.endswith("_dists_bookworm_InRelease") for name in kept), kept
    assert any(name.endswith("_dists_bookworm_main_binary-amd64_Packages.gz") for name in kept), kept


def test_the_honest_debian_mirror_installs_with_no_network(debian_mirror, tmp_path):
    result = install_offline(debian_mirror, tmp_path / "root")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "installing from the package mirror /opt/debs-smoke" in result.stderr
    assert (tmp_path / "root" / "usr" / "bin" / "numactl").is_file()


def test_a_rebuilt_debian_package_with_sha256sums_and_packages_rewritten_is_refused(debian_mirror, tmp_path):
    mirror = tmp_path / "debs-smoke"
    shutil.copytree(debian_mirror, mirror)
    [deb] = mirror.glob("numactl_*.deb")
    tree = tmp_path / "tree"
    subprocess.run(["dpkg-deb", "-R", str(deb), str(tree)], check=True)
    (tree / "usr" / "bin" / "numactl").write_text("#!/bin/sh\ntouch /tmp/ran-the-swapped-numactl\n")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", str(tree), str(deb)], check=True, capture_output=True)
    rewrite_mirror_index(mirror)
    result = install_offline(mirror, tmp_path / "root")
    errors = [line for line in result.stderr.splitlines() if "error" in line]
    assert result.returncode != 0 and len(errors) == 1, result.stderr[-3000:]
    assert deb.name in errors[0] and "expected" in errors[0] and "make sources" in errors[0], errors[0]
    assert not (tmp_path / "root" / "usr" / "bin" / "numactl").exists()
