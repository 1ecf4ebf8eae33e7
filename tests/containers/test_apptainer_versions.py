"""imagetool.apptainer: the `build` and `pull` command lines follow the Apptainer (or SingularityCE) a site runs.

Each table below lists the long flags one release registers for its `build` and `pull` commands, read from
its source (every `cmdline.Flag` under cmd/internal/cli that `RegisterFlagForCmd` gives to `buildCmd` or
`PullCmd`). The tests hold every command line made for that release against its table: a flag the release
does not know stops it at once with `Error: unknown flag: --...`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from imagetool.apptainer import Runtime, build_command, parse_version, pull_command, read_runtime

from app.host.common.errors import UsageError
from tests.fixtures.apptainer import missing_tool

REPO = Path(__file__).resolve().parents[2]

_COMMON_BUILD = {
    "bind", "build-arg", "build-arg-file", "disable-cache", "docker-host", "docker-login", "docker-password",
    "docker-username", "encrypt", "fakeroot", "fix-perms", "force", "json", "library", "mount", "no-cleanup",
    "no-https", "notest", "nv", "nvccli", "passphrase", "pem-path", "remote", "rocm", "sandbox", "section",
    "tmpdir", "update", "writable-tmpfs",
}
_APPTAINER_BUILD = _COMMON_BUILD | {"ignore-fakeroot-command", "ignore-subuid", "ignore-userns", "userns",
                                    "warn-unused-build-args"}
_APPTAINER_PULL = {"allow-unauthenticated", "allow-unsigned", "arch", "arch-variant", "dir", "disable-cache",
                   "docker-host", "docker-login", "docker-password", "docker-username", "force", "library",
                   "name", "no-cleanup", "no-https", "tmpdir"}
#: (version line, build flags, pull flags, where they were read)
ACCEPTED = {
    # apptainer/apptainer cmd/internal/cli/build.go + pull.go, tag v1.2.0 (v1.2.5: the same)
    "1.2": ("apptainer version 1.2.5", _APPTAINER_BUILD, _APPTAINER_PULL),
    # tag v1.3.6: the same as 1.2; CHANGELOG 1.4.0 adds --arch and --mksquashfs-args to build
    "1.3": ("apptainer version 1.3.6", _APPTAINER_BUILD, _APPTAINER_PULL),
    # tag v1.4.0 (v1.4.5: the same)
    "1.4": ("apptainer version 1.4.5", _APPTAINER_BUILD | {"arch", "arch-variant", "authfile", "mksquashfs-args"},
            _APPTAINER_PULL | {"authfile", "sandbox"}),
    # sylabs/singularity cmd/internal/cli/build.go, pull.go, singularity.go (--arch, --platform), tag v4.0.0.
    # build's --arch is for remote builds: a local one for another architecture stops with "Requested
    # architecture ... does not match host ... Cannot build locally" (build_linux.go, v4.0.0 to v4.5.1).
    "ce4": ("singularity-ce version 4.1.2-jammy",
            _COMMON_BUILD | {"arch", "builder", "detached", "no-oci", "no-setgroups", "oci"},
            {"allow-unauthenticated", "allow-unsigned", "arch", "dir", "disable-cache", "docker-host", "docker-login",
             "docker-password", "docker-username", "force", "library", "name", "no-cleanup", "no-https", "no-oci",
             "oci", "platform", "tmpdir"}),
}
SQUASHFS = "-comp zstd -Xcompression-level 3"


def flags(command: list[str]) -> set[str]:
    return {arg[2:].split("=")[0] for arg in command if arg.startswith("--")}


def native_build(runtime: Runtime, extra: tuple[str, ...] = ()) -> list[str]:
    return build_command(runtime, target_arch="x86_64", host_arch="x86_64", docker_arch="amd64",
                         args_file="build/x86_64.args", squashfs_args=SQUASHFS, extra=extra,
                         out="build/app.sif.tmp", definition="containers/app.def")


@pytest.mark.parametrize("release", ACCEPTED)
def test_a_native_build_uses_only_flags_that_release_accepts(release):
    line, build_flags, _ = ACCEPTED[release]
    command = native_build(parse_version(line, "apptainer"))
    assert command[:2] == ["apptainer", "build"]
    assert command[-2:] == ["build/app.sif.tmp", "containers/app.def"]
    assert {"force", "fakeroot", "build-arg-file"} <= flags(command) <= build_flags
    assert "--arch" not in command  # the host's own platform is every release's default


@pytest.mark.parametrize(("release", "compressed"), [("1.2", False), ("1.3", False), ("1.4", True), ("ce4", False)])
def test_squashfs_arguments_go_only_to_releases_that_take_them(release, compressed):
    command = native_build(parse_version(ACCEPTED[release][0], "apptainer"))
    assert (SQUASHFS in command) == compressed
    assert ("--mksquashfs-args" in command) == compressed


def test_a_cross_build_on_apptainer_1_4_names_the_platform():
    runtime = parse_version(ACCEPTED["1.4"][0], "apptainer")
    command = build_command(runtime, target_arch="aarch64", host_arch="x86_64", docker_arch="arm64",
                            args_file="a.args", squashfs_args=SQUASHFS, extra=(), out="o.sif", definition="d.def")
    assert command[command.index("--arch") + 1] == "arm64"
    assert flags(command) <= ACCEPTED["1.4"][1]


@pytest.mark.parametrize(("release", "wanted"), [("1.2", "Apptainer >= 1.4"), ("1.3", "Apptainer >= 1.4"),
                                                 ("ce4", "SingularityCE builds only for its host")])
def test_a_cross_build_where_the_release_cannot_is_refused_in_one_line(release, wanted):
    runtime = parse_version(ACCEPTED[release][0], "apptainer")
    with pytest.raises(UsageError) as caught:
        build_command(runtime, target_arch="aarch64", host_arch="x86_64", docker_arch="arm64", args_file="a.args",
                      squashfs_args=SQUASHFS, extra=(), out="o.sif", definition="d.def")
    message = str(caught.value)
    assert "\n" not in message and wanted in message and "aarch64 node" in message


def test_extra_flags_come_before_the_two_positional_arguments():
    command = native_build(parse_version(ACCEPTED["1.3"][0], "apptainer"), extra=("--tmpdir", "/scratch/u"))
    assert command[-4:] == ["--tmpdir", "/scratch/u", "build/app.sif.tmp", "containers/app.def"]


@pytest.mark.parametrize("release", ACCEPTED)
def test_the_pull_of_the_multi_arch_base_names_its_platform_on_every_release(release):
    line, _, pull_flags = ACCEPTED[release]
    command = pull_command(parse_version(line, "singularity"), docker_arch="arm64", out="ngc-aarch64.sif",
                           ref="docker://nvcr.io/nvidia/pytorch@sha256:" + "2" * 64)
    assert command[:2] == ["singularity", "pull"]
    assert command[command.index("--arch") + 1] == "arm64"
    assert flags(command) <= pull_flags
    assert command[-2:] == ["ngc-aarch64.sif", "docker://nvcr.io/nvidia/pytorch@sha256:" + "2" * 64]


@pytest.mark.parametrize(("line", "product", "version"), [
    ("apptainer version 1.4.5", "apptainer", (1, 4, 5)),
    ("apptainer version 1.3.6-1.el8", "apptainer", (1, 3, 6)),
    ("apptainer version 1.2.0-rc.1", "apptainer", (1, 2, 0)),
    ("singularity-ce version 4.1.2-jammy", "singularity-ce", (4, 1, 2)),
    ("singularity-ce version 4.0", "singularity-ce", (4, 0, 0)),
])
def test_the_version_line_of_each_product_is_read(line, product, version):
    runtime = parse_version(line, "apptainer")
    assert (runtime.product, runtime.version) == (product, version)


@pytest.mark.parametrize("line", ["apptainer version 1.1.9-1.el8", "singularity-ce version 3.11.4",
                                  "singularity version 3.8.7-1.el8"])
def test_releases_older_than_templated_definitions_are_refused_with_the_fix(line):
    with pytest.raises(UsageError) as caught:
        parse_version(line, "apptainer")
    assert "too old to build these images" in str(caught.value) and "module avail" in str(caught.value)


def test_a_version_that_cannot_be_read_is_refused():
    with pytest.raises(UsageError, match="no version"):
        parse_version("something else", "apptainer")


def test_make_hands_the_build_to_the_version_aware_command_line():
    """The recipe itself holds no version-dependent flag: imagetool reads the version and builds the command."""
    result = subprocess.run(["make", "-n", "image", "ARCH=aarch64", "APPTAINER=singularity"], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    build = next(line for line in result.stdout.splitlines() if "-m imagetool build " in line)
    assert "--apptainer singularity" in build and "--build-arch aarch64" in build
    assert "--arch arm64" not in result.stdout and "--mksquashfs-args" not in result.stdout


def test_the_command_line_a_release_gets_can_be_printed_without_running_it(tmp_path):
    fake = tmp_path / "apptainer"
    fake.write_text("#!/bin/sh\necho 'apptainer version 1.3.6'\n")
    fake.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{REPO / 'containers'}:{REPO}"}
    result = subprocess.run([sys.executable, "-m", "imagetool", "build", "--arch", "x86_64", "--build-arch", "x86_64",
                             "--apptainer", str(fake), "--args-file", "build/x86_64.args", "--out", "o.sif",
                             "--squashfs-args", SQUASHFS, "--extra=--notest", "--dry-run"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (f"{fake} build --force --fakeroot --build-arg-file build/x86_64.args --notest "
                                     "o.sif containers/app.def")


@pytest.mark.parametrize("release", ["1.2", "ce4"])
def test_make_base_pulls_the_pinned_base_for_the_image_architecture(tmp_path, release):
    """The offline recipe's pull on an x86_64 transfer node must fetch the arm64 child for a GH200 image."""
    result = subprocess.run(["make", "-n", "base", "ARCH=aarch64", "APPTAINER=singularity"], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    pull = next(line for line in result.stdout.splitlines() if "-m imagetool pull-base " in line)
    assert "--arch aarch64 --apptainer singularity" in pull and "--out build/ngc-pytorch-aarch64.sif" in pull
    fake = tmp_path / "apptainer"
    fake.write_text(f"#!/bin/sh\necho '{ACCEPTED[release][0]}'\n")
    fake.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": f"{REPO / 'containers'}:{REPO}"}
    result = subprocess.run([sys.executable, "-m", "imagetool", "pull-base", "--arch", "aarch64", "--apptainer",
                             str(fake), "--out", "ngc.sif", "--dry-run"], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    command = result.stdout.strip().splitlines()[-1].split()
    assert command[:4] == [str(fake), "pull", "--arch", "arm64"]
    assert flags(command) <= ACCEPTED[release][2]
    assert command[-1].startswith("docker://nvcr.io/nvidia/pytorch@sha256:")


def test_make_base_refuses_a_flavour_that_has_no_registry_base(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": f"{REPO / 'containers'}:{REPO}"}
    result = subprocess.run([sys.executable, "-m", "imagetool", "pull-base", "--arch", "smoke", "--out", "x.sif",
                             "--dry-run"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--arch x86_64" in result.stderr


@pytest.mark.apptainer
@pytest.mark.parametrize("verb", ["build", "pull"])
def test_the_installed_release_lists_every_flag_of_the_command_line_made_for_it(verb):
    if shutil.which("apptainer") is None:
        missing_tool("apptainer is not installed")
    runtime = read_runtime("apptainer")
    if verb == "build":  # a cross-build where the release can (its longest command line)
        target = "aarch64" if runtime.builds_for_another_arch else "x86_64"
        command = build_command(runtime, target_arch=target, host_arch="x86_64", docker_arch="arm64",
                                args_file="a.args", squashfs_args=SQUASHFS, extra=(), out="o.sif", definition="d.def")
    else:
        command = pull_command(runtime, docker_arch="arm64", out="o.sif", ref="docker://alpine")
    listed = subprocess.run(["apptainer", verb, "--help"], capture_output=True, text=True, timeout=60).stdout
    assert flags(command) <= set(re.findall(r"^\s+(?:-\w, )?--([\w-]+)", listed, re.MULTILINE)), listed
