"""containers/imagetool/sources.py: the offline source mirror (`make sources`, `make image SOURCES=DIR`)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from imagetool.buildargs import archive_name, render_build_args
from imagetool.sources import Source, check_debs, check_mirror, check_mirror_owners, fill_mirror, pinned_sources

from app.host.common.errors import UsageError
from tests.fixtures.other_user import (
    as_other_user,
    needs_other_user,
    needs_shared_group,
    other_uid,
    writable_by_a_group,
    write_as_other_user,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("url", "name"), [
    ("https://github.com/ofiwg/libfabric/archive/refs/tags/v1.22.0.tar.gz", "libfabric-v1.22.0.tar.gz"),
    ("https://github.com/NVIDIA/nccl-tests/archive/refs/tags/v2.17.6.tar.gz", "nccl-tests-v2.17.6.tar.gz"),
    ("https://example.org/dist/libfoo-1.0.tar.bz2", "libfoo-1.0.tar.bz2"),
])
def test_a_mirror_names_github_tag_archives_as_github_serves_them_by_repository(url, name):
    assert archive_name(url) == name


def test_every_pinned_source_of_the_cuda_images_is_a_mirror_entry():
    sources = {source.name: source.archive for source in pinned_sources(render_build_args("x86_64"))}
    assert sources == {"LIBFABRIC": "libfabric-v1.22.0.tar.gz", "AWS_OFI_NCCL": "aws-ofi-nccl-v1.18.0.tar.gz",
                       "NCCL_TESTS": "nccl-tests-v2.17.6.tar.gz"}


def served(tmp_path: Path, content: bytes) -> Source:
    origin = tmp_path / "origin" / "pkg-1.0.tar.gz"
    origin.parent.mkdir()
    origin.write_bytes(content)
    return Source("PKG", origin.as_uri(), hashlib.sha256(content).hexdigest(), "pkg-1.0.tar.gz")


def test_filling_a_mirror_downloads_checks_and_then_skips_what_is_there(tmp_path):
    source = served(tmp_path, b"archive bytes")
    mirror = tmp_path / "mirror"
    assert fill_mirror([source], mirror) == ["pkg-1.0.tar.gz"]
    assert fill_mirror([source], mirror) == []
    check_mirror([source], mirror, "x86_64")


def test_a_download_with_another_checksum_is_refused_and_not_kept(tmp_path):
    source = served(tmp_path, b"archive bytes")
    tampered = Source(source.name, source.url, "0" * 64, source.archive)
    with pytest.raises(UsageError, match="does not have the pinned sha256"):
        fill_mirror([tampered], tmp_path / "mirror")
    assert list((tmp_path / "mirror").iterdir()) == []


def test_an_incomplete_or_altered_mirror_names_the_file_and_the_fix(tmp_path):
    source = served(tmp_path, b"archive bytes")
    with pytest.raises(UsageError, match=r"has no pkg-1\.0\.tar\.gz; fill it with 'make sources SOURCES="):
        check_mirror([source], tmp_path, "x86_64")
    (tmp_path / "pkg-1.0.tar.gz").write_bytes(b"other bytes")
    with pytest.raises(UsageError, match="PKG_SHA256="):
        check_mirror([source], tmp_path, "x86_64")


def check_before_an_offline_build(mirror: Path, flavour: str = "x86_64") -> subprocess.CompletedProcess[str]:
    """What `make image SOURCES=MIRROR` runs before Apptainer starts."""
    return subprocess.run([sys.executable, "-m", "imagetool", "sources", "--check", "--arch", flavour,
                           "--mirror", str(mirror)], cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": f"{REPO / 'containers'}:{REPO}", "PATH": "/usr/bin:/bin"})


def test_the_check_before_an_offline_build_exits_2_in_one_line(tmp_path):
    result = check_before_an_offline_build(tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "has no libfabric-v1.22.0.tar.gz" in result.stderr


@pytest.mark.parametrize(("flavour", "arch"), [("aarch64", "aarch64"), ("ngc-twin-aarch64", "aarch64"),
                                               ("x86_64", "x86_64")])
def test_the_remedy_for_an_empty_mirror_gathers_for_the_architecture_it_was_checked_for(tmp_path, flavour, arch):
    """Run on an x86_64 workstation, `make sources` without ARCH gathers x86_64's flavours: the remedy for an aarch64
    mirror that said so left it as empty as before."""
    result = check_before_an_offline_build(tmp_path, flavour)
    assert result.returncode == 2, result.stderr
    assert f"'make sources SOURCES={tmp_path} ARCH={arch}'" in result.stderr, result.stderr


def test_an_offline_build_needs_the_distribution_packages_make_sources_gathered_from_its_base(tmp_path):
    with pytest.raises(UsageError, match=r"has no debs-x86_64/SHA256SUMS.*make base ARCH=x86_64.*make sources "):
        check_debs(tmp_path, "x86_64")
    (tmp_path / "debs-x86_64").mkdir()
    (tmp_path / "debs-x86_64" / "SHA256SUMS").write_text("")  # a base that lacks nothing: an empty list
    check_debs(tmp_path, "x86_64")


def test_each_flavour_finds_its_packages_in_the_mirror_under_its_own_name():
    assert render_build_args("ngc-twin")["DEBS"] == "debs-ngc-twin"
    assert render_build_args("aarch64")["DEBS"] == "debs-aarch64"


@pytest.mark.parametrize(("make_args", "gathered"), [
    (["ARCH=x86_64"], [("ngc-twin", "build/ngc-twin.sif"), ("smoke", "build/smoke-rootfs"),
                       ("x86_64", "build/ngc-pytorch-x86_64.sif")]),
    (["ARCH=aarch64", "BASE=/bases/ngc.sif"], [("aarch64", "/bases/ngc.sif"),
                                               ("ngc-twin-aarch64", "build/ngc-twin-aarch64.sif")]),
])
def test_make_sources_asks_each_flavours_base_for_its_distribution_packages(make_args, gathered):
    result = subprocess.run(["make", "-n", "sources", "SOURCES=/mirror", *make_args], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    found = re.findall(r"containers/gather-debs\.sh (\S+) (\S+) (\S+)", result.stdout)
    assert found == [(flavour, base, f"/mirror/debs-{flavour}") for flavour, base in gathered]


def test_debs_gathered_without_what_the_distribution_signed_are_refused_before_the_build(tmp_path):
    debs = tmp_path / "debs-x86_64"
    debs.mkdir()
    (debs / "numactl_2.0.16-1_amd64.deb").write_bytes(b"a .deb")
    (debs / "SHA256SUMS").write_text("")
    with pytest.raises(UsageError, match=r"no lists/ .*signed.*make sources SOURCES="):
        check_debs(tmp_path, "x86_64")
    (debs / "lists").mkdir()
    (debs / "lists" / "deb.debian.org_debian_dists_bookworm_InRelease").write_text("signed")
    check_debs(tmp_path, "x86_64")


def a_mirror(tmp_path: Path) -> Path:
    mirror = tmp_path / "mirror"
    (mirror / "debs-x86_64" / "lists").mkdir(parents=True)
    (mirror / "debs-x86_64" / "numactl_2.0.16-1_amd64.deb").write_bytes(b"a .deb")
    for path in (mirror, mirror / "debs-x86_64", mirror / "debs-x86_64" / "lists"):
        path.chmod(0o755)
    return mirror


@needs_shared_group
@pytest.mark.parametrize(("writable", "mode"), [("", 0o777), ("debs-x86_64", 0o775),
                                                 ("debs-x86_64/numactl_2.0.16-1_amd64.deb", 0o666)])
def test_a_mirror_other_users_can_write_is_refused(tmp_path, writable, mode):
    mirror = a_mirror(tmp_path)
    check_mirror_owners(mirror, "x86_64")
    writable_by_a_group(mirror / writable, mode)  # a group of others: a group of one of yours is no one else
    with pytest.raises(UsageError, match=rf"{re.escape(str(mirror / writable).rstrip('/'))} .*writable by other "
                                         rf"users \(mode {mode:04o}\).*chmod -R go-w"):
        check_mirror_owners(mirror, "x86_64")


def test_a_mirror_in_a_directory_other_users_can_write_is_refused(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared").chmod(0o777)  # not sticky: anyone can rename mirror/ and put theirs in its place
    mirror = a_mirror(tmp_path / "shared")
    with pytest.raises(UsageError,
                       match=r"lies in .*shared, which other users can write.*make sources SOURCES=\S+ ARCH=x86_64"):
        check_mirror_owners(mirror, "x86_64")


@pytest.mark.root
def test_a_file_another_user_owns_in_the_mirror_is_refused(tmp_path):
    mirror = a_mirror(tmp_path)
    deb = mirror / "debs-x86_64" / "numactl_2.0.16-1_amd64.deb"
    os.chown(deb, 65534, 65534)  # nobody's: it can rewrite the file whatever its mode
    with pytest.raises(UsageError, match=r"numactl_2\.0\.16-1_amd64\.deb in the source mirror belongs to another "
                                         r"user \(uid 65534\)"):
        check_mirror_owners(mirror, "x86_64")


@pytest.mark.root
def test_a_mirror_in_a_directory_another_user_owns_is_refused(tmp_path):
    (tmp_path / "theirs").mkdir()
    mirror = a_mirror(tmp_path / "theirs")
    os.chown(tmp_path / "theirs", 65534, 65534)  # nobody's: it can rename mirror/ and put its own there
    with pytest.raises(UsageError, match=r"lies in .*theirs, which belongs to another user \(uid 65534\)"):
        check_mirror_owners(mirror, "x86_64")


def test_the_check_before_an_offline_build_refuses_a_mirror_others_can_write_in_one_line(tmp_path):
    mirror = a_mirror(tmp_path)
    mirror.chmod(0o777)
    result = check_before_an_offline_build(mirror)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "writable by other users (mode 0777)" in result.stderr, result.stderr


@needs_other_user
def test_a_mirror_another_user_swapped_for_their_own_in_a_group_directory_is_refused_in_one_line(group_project):
    """A member of the project directory's group renames your mirror there and puts a copy of theirs in its place,
    with a .deb of theirs in it: the build stops before it reads anything there."""
    mirror = a_mirror(group_project)
    as_other_user("mv", str(mirror), str(group_project / "mirror.old"))
    as_other_user("cp", "-r", str(group_project / "mirror.old"), str(mirror))
    write_as_other_user(mirror / "debs-x86_64" / "numactl_2.0.16-1_amd64.deb", b"their .deb")
    assert mirror.stat().st_uid == other_uid()
    result = check_before_an_offline_build(mirror)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"lies in {group_project}, which other users can write (mode 2775)" in result.stderr, result.stderr
    assert "make sources SOURCES=" in result.stderr
