"""imagetool.buildhost: `make image` stops before the long steps, in one line with the fix, when this host
cannot build; it warns where the build works a weaker way (fakeroot without a subuid entry)."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

import pytest
from imagetool.apptainer import parse_version
from imagetool.buildhost import GIB, Host, build_needs, check_host, pull_needs

from app.host.common.errors import UsageError

REPO = Path(__file__).resolve().parents[2]
APPTAINER_13 = parse_version("apptainer version 1.3.6", "apptainer")
APPTAINER_14 = parse_version("apptainer version 1.4.5", "apptainer")
SINGULARITY_CE = parse_version("singularity-ce version 4.1.2-jammy", "singularity")
NGC_ARGS = {"BOOTSTRAP": "docker", "BASE": "nvcr.io/nvidia/pytorch@sha256:" + "2" * 64, "NGC_PYTORCH_LAYERS_GIB": "10"}
SMALL = build_needs({"BOOTSTRAP": "localimage", "BASE": "/nonexistent"})


def make_host(tmp_path: Path, *, user: str = "alice", uid: int = 1000, subuid: str | None = None,
              subgid: str | None = None, userns: bool = True, env: dict[str, str] | None = None,
              free_gib: float = 500, arch: str = "x86_64") -> Host:
    entry = f"{user}:100000:65536\n"
    (tmp_path / "binfmt").mkdir(exist_ok=True)
    return Host(arch=arch, user=user, uid=uid, subuid=entry if subuid is None else subuid,
                subgid=entry if subgid is None else subgid, binfmt_dir=tmp_path / "binfmt", userns=userns,
                env={"HOME": str(tmp_path / "home"), **(env or {})},
                space=lambda _path: (0, int(free_gib * GIB)))  # (filesystem, free bytes): one filesystem


def findings(host, runtime=APPTAINER_14, target="x86_64", needs=SMALL, extra=(), local_base=False):
    return check_host(runtime, host, target_arch=target, needs=needs, extra=extra, local_base=local_base)


def test_a_host_with_apptainer_mappings_and_space_passes_with_the_space_said(tmp_path):
    warnings, notes = findings(make_host(tmp_path), needs=build_needs(NGC_ARGS))
    assert warnings == []
    route, space = notes
    assert route.startswith("build route: --fakeroot with alice's /etc/subuid and /etc/subgid ranges")
    assert "APPTAINER_TMPDIR" in space and "APPTAINER_CACHEDIR" in space


def test_the_build_log_says_a_user_without_a_subuid_entry_builds_in_a_root_mapped_namespace(tmp_path):
    _, notes = findings(make_host(tmp_path, subuid="", subgid=""))
    assert notes[0].startswith("build route: --fakeroot in a root-mapped user namespace (alice has no /etc/subuid")


# --- fakeroot: /etc/subuid and /etc/subgid ---------------------------------------------------------------

@pytest.mark.parametrize("entry", ["alice:100000:65536", "1000:100000:65536", "alice:200000:131072"])
def test_a_subuid_entry_matches_by_name_or_by_numeric_uid(tmp_path, entry):
    host = make_host(tmp_path, subuid=entry + "\n", subgid=entry + "\n")
    assert findings(host)[0] == []


def test_without_a_subuid_entry_apptainer_builds_in_a_root_mapped_namespace_with_a_warning(tmp_path):
    host = make_host(tmp_path, subuid="bob:100000:65536\n", subgid="")
    warnings, _ = findings(host)
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert "root-mapped user namespace" in warnings[0] and "apptainer config fakeroot --add alice" in warnings[0]


def test_without_a_subuid_entry_a_local_base_is_refused_because_its_owners_cannot_be_kept(tmp_path):
    """Apptainer 1.4.5 here, as a user without an entry (--ignore-subuid), from a local SIF: the wrapped
    unsquashfs stops with "set_attributes: failed to change uid and gids on .../etc/gshadow" (only root is
    mapped); from a registry it unpacks the layers rootless (umoci, internal/pkg/build/sources/oci_unpack.go)."""
    with pytest.raises(UsageError) as caught:
        findings(make_host(tmp_path, subuid=""), local_base=True)
    assert "local base" in str(caught.value) and "apptainer config fakeroot --add alice" in str(caught.value)


@pytest.mark.parametrize("subuid", ["!alice:100000:65536\n", "alice:100000:1000\n", "1001:100000:65536\n"])
def test_disabled_short_or_other_uids_entries_do_not_count(tmp_path, subuid):
    """A '!' entry is disabled (`config fakeroot --disable`), a range under 65536 is refused (fakeroot.go)."""
    warnings, _ = findings(make_host(tmp_path, subuid=subuid))
    assert len(warnings) == 1 and "root-mapped" in warnings[0]


def test_without_a_subuid_entry_nor_user_namespaces_the_build_is_refused_with_the_fix(tmp_path):
    with pytest.raises(UsageError) as caught:
        findings(make_host(tmp_path, subuid="", userns=False))
    assert "user namespaces" in str(caught.value) and "apptainer config fakeroot --add alice" in str(caught.value)


def test_root_without_a_subuid_entry_is_refused_because_apptainer_maps_only_other_users_to_root(tmp_path):
    with pytest.raises(UsageError) as caught:
        findings(make_host(tmp_path, user="root", uid=0, subuid="alice:100000:65536\n"))
    assert "apptainer config fakeroot --add root" in str(caught.value)


def test_singularityce_needs_the_subuid_entry(tmp_path):
    with pytest.raises(UsageError) as caught:
        findings(make_host(tmp_path, subuid=""), runtime=SINGULARITY_CE)
    assert "singularity config fakeroot --add alice" in str(caught.value)


def test_a_subuid_entry_without_its_subgid_entry_is_refused(tmp_path):
    with pytest.raises(UsageError, match="/etc/subgid"):
        findings(make_host(tmp_path, subgid=""))


# --- another architecture --------------------------------------------------------------------------------

def test_aarch64_on_x86_64_without_qemu_binfmt_says_how_to_register_it(tmp_path):
    with pytest.raises(UsageError) as caught:
        findings(make_host(tmp_path), target="aarch64")
    assert "update-binfmts --enable qemu-aarch64" in str(caught.value) and "on a aarch64 node" in str(caught.value)


def test_the_emulator_it_asks_for_is_one_that_imports_torch(tmp_path):
    """Debian 12's QEMU 7.2 segfaults in `import torch` (2.14.1 aarch64); Debian 13's 10.0 runs it."""
    with pytest.raises(UsageError) as caught:
        findings(make_host(tmp_path), target="aarch64")
    assert "QEMU 10 or newer" in str(caught.value) and "segfaults" in str(caught.value)


def test_aarch64_on_x86_64_with_qemu_binfmt_enabled_passes(tmp_path):
    host = make_host(tmp_path)
    (host.binfmt_dir / "qemu-aarch64").write_text("enabled\ninterpreter /usr/libexec/qemu-binfmt/aarch64-binfmt-P\n")
    assert findings(host, target="aarch64")[0] == []


def test_aarch64_on_x86_64_with_apptainer_1_3_is_refused_before_anything_else(tmp_path):
    with pytest.raises(UsageError, match=r"needs Apptainer >= 1\.4"):
        findings(make_host(tmp_path), runtime=APPTAINER_13, target="aarch64")


# --- space -----------------------------------------------------------------------------------------------

def test_the_ngc_build_needs_its_layers_in_the_cache_and_room_to_unpack_and_squash_them_in_tmp():
    needs = build_needs(NGC_ARGS)
    assert needs.cache_gib == 10
    assert needs.tmp_gib > 3 * 10  # a copy of the layers, the unpacked tree, its squashfs
    assert build_needs({**NGC_ARGS, "BOOTSTRAP": "localimage", "BASE": "/nonexistent"}).cache_gib == 0
    assert pull_needs(NGC_ARGS).cache_gib == 20  # the layers and the SIF made of them


def test_a_local_base_is_measured(tmp_path):
    base = tmp_path / "base.sif"
    with base.open("wb") as out:
        out.truncate(2 * GIB)  # sparse: the size is what counts
    assert build_needs({"BOOTSTRAP": "localimage", "BASE": str(base)}).tmp_gib > 2 * 2


@pytest.mark.parametrize(("env", "extra", "where"), [
    ({}, (), "/tmp"),
    ({"TMPDIR": "/var/tmp"}, (), "/var/tmp"),
    ({"TMPDIR": "/var/tmp", "APPTAINER_TMPDIR": "/scratch/a"}, (), "/scratch/a"),
    ({"APPTAINER_TMPDIR": "/scratch/a"}, ("--tmpdir", "/scratch/b"), "/scratch/b"),
])
def test_too_little_space_in_the_build_directory_stops_in_one_line_naming_the_variable(tmp_path, env, extra, where):
    host = make_host(tmp_path, env=env, free_gib=20)
    with pytest.raises(UsageError) as caught:
        findings(host, needs=build_needs(NGC_ARGS), extra=extra)
    message = str(caught.value)
    assert "\n" not in message and f"APPTAINER_TMPDIR ({where}" in message and "export APPTAINER_TMPDIR=" in message


def test_too_little_space_for_the_cache_names_apptainer_cachedir_and_its_default(tmp_path):
    def space(path: Path) -> tuple[int, int]:  # the home directory: a small filesystem of its own
        return (1, 5 * GIB) if str(path).startswith(str(tmp_path)) else (2, 500 * GIB)

    host = make_host(tmp_path, env={"APPTAINER_TMPDIR": "/scratch"})._replace(space=space)
    with pytest.raises(UsageError) as caught:
        findings(host, needs=build_needs(NGC_ARGS))
    assert "APPTAINER_CACHEDIR" in str(caught.value) and ".apptainer/cache" in str(caught.value)


def test_tmp_and_cache_on_one_filesystem_need_their_sum(tmp_path):
    needs = build_needs(NGC_ARGS)
    host = make_host(tmp_path, free_gib=needs.tmp_gib + needs.cache_gib / 2)
    with pytest.raises(UsageError, match="together"):
        findings(host, needs=needs)


def test_singularityce_reads_its_own_variables(tmp_path):
    host = make_host(tmp_path, env={"SINGULARITY_TMPDIR": "/scratch/s"}, free_gib=1)
    with pytest.raises(UsageError, match=r"SINGULARITY_TMPDIR \(/scratch/s"):
        findings(host, runtime=SINGULARITY_CE, needs=build_needs(NGC_ARGS))


# --- the command line ------------------------------------------------------------------------------------

def _check_host(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": f"{REPO / 'containers'}:{REPO}"}
    return subprocess.run([sys.executable, "-m", "imagetool", "check-host", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)


def test_missing_apptainer_says_how_to_install_it(tmp_path):
    result = _check_host(tmp_path, "--arch", "smoke", "--apptainer", "no-such-apptainer")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "'no-such-apptainer' not found" in result.stderr
    assert "provision-apptainer.sh" in result.stderr and "module load" in result.stderr


def test_make_checks_the_host_with_the_flavour_its_base_and_the_extra_flags():
    result = subprocess.run(["make", "-n", "image", "ARCH=x86_64", "BASE=/bases/ngc.sif",
                             "APPTAINER_BUILD_FLAGS=--tmpdir /scratch/me"], cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    check = next(line for line in result.stdout.splitlines() if "-m imagetool check-host " in line)
    assert "--arch x86_64 --build-arch x86_64 --apptainer apptainer" in check
    assert "--set BASE=/bases/ngc.sif" in check and '--extra="--tmpdir /scratch/me"' in check


def test_the_real_host_is_read(tmp_path):
    host = Host.probe()
    assert host.user == getpass.getuser() and host.uid == os.getuid() and host.arch == os.uname().machine
