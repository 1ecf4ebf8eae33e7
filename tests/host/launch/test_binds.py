"""app/host/launch/binds.py: what the container binds from the host, with the host's tools answering as given."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch.binds import container_binds, host_libfabric_dir, host_libfabric_needs, version_key


def tree(root: Path, *files: str) -> str:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).touch()
    return str(root)


def tools(**outputs: str):
    """A stand-in for the host's ldconfig, objdump and ldd: each prints what OUTPUTS gives it."""
    return lambda argv: outputs.get(argv[0], "")


def test_the_slingshot_container_gets_the_nics_the_sites_libfabric_and_what_it_links(tmp_path):
    root = tree(tmp_path, "dev/cxi0", "dev/cxi1", "opt/cray/libfabric/1.9.0/lib64/libfabric.so.1",
                "opt/cray/libfabric/1.22.0/lib64/libfabric.so.1", "usr/lib64/libcxi.so.1", "usr/lib64/libnl-3.so.200",
                "usr/lib64/libnl-route-3.so.200")
    ldd = ("\tlibcurl.so.4 => /usr/lib64/libcurl.so.4 (0x1)\n\tlibjson-c.so.3 => /usr/lib64/libjson-c.so.3 (0x2)\n"
           "\tlibc.so.6 => /lib64/libc.so.6 (0x3)\n\tlibz.so.1 => /lib64/libz.so.1 (0x4)\n")
    objdump = "  NEEDED               libcurl.so.4\n  NEEDED               libjson-c.so.3\n  NEEDED  libc.so.6\n"
    binds = container_binds("slingshot", "/runs/7", "/data:/in:ro", root,
                            run=tools(ldd=ldd, objdump=objdump))
    lib = f"{root}/opt/cray/libfabric/1.22.0"  # the newest (1.22 > 1.9): no module and no loader cache names one
    assert binds.args == [
        "--bind", "/runs/7", "--bind", f"{root}/dev/cxi0:/dev/cxi0", "--bind", f"{root}/dev/cxi1:/dev/cxi1",
        "--bind", f"{lib}:/opt/libfabric",
        "--bind", f"{root}/usr/lib64/libcxi.so.1:/opt/host-fabric-libs/libcxi.so.1",
        "--bind", f"{root}/usr/lib64/libnl-3.so.200:/opt/host-fabric-libs/libnl-3.so.200",
        "--bind", f"{root}/usr/lib64/libnl-route-3.so.200:/opt/host-fabric-libs/libnl-route-3.so.200",
        "--bind", "/usr/lib64/libcurl.so.4:/opt/host-fabric-libs/libcurl.so.4",
        "--bind", "/usr/lib64/libjson-c.so.3:/opt/host-fabric-libs/libjson-c.so.3",
        "--bind", "/data:/in:ro"]
    assert binds.warnings == []


def test_the_libfabric_the_host_loads_wins_over_the_newest_installed(tmp_path):
    root = tree(tmp_path, "opt/cray/libfabric/1.20.1/lib64/libfabric.so.1",
                "opt/cray/libfabric/1.22.0/lib64/libfabric.so.1")
    module = f"{root}/opt/cray/libfabric/1.20.1/lib64"
    assert host_libfabric_dir(root, f"/nowhere:{module}", tools()) == f"{root}/opt/cray/libfabric/1.20.1"
    cache = f"\tlibfabric.so.1 (libc6,AArch64) => {module}/libfabric.so.1\n"
    assert host_libfabric_dir(root, "", tools(ldconfig=cache)) == f"{root}/opt/cray/libfabric/1.20.1"
    assert sorted(["1.9.0", "1.22.0", "1.20.1"], key=version_key) == ["1.9.0", "1.20.1", "1.22.0"]


def test_without_objdump_every_library_ldd_resolves_is_bound_but_glibcs(tmp_path):
    root = tree(tmp_path, "lf/lib/libfabric.so.1")
    ldd = "\tlibcurl.so.4 => /usr/lib/libcurl.so.4 (0x1)\n\tld-linux-aarch64.so.1 => /lib/ld-linux-aarch64.so.1\n"
    assert host_libfabric_needs(f"{root}/lf", tools(ldd=ldd)) == {"libcurl.so.4": "/usr/lib/libcurl.so.4"}


def test_missing_host_pieces_are_warned_about_and_a_wrong_libfabric_dir_refused(tmp_path):
    binds = container_binds("slingshot", "/runs/7", "", str(tmp_path), run=tools())
    assert binds.args == ["--bind", "/runs/7"]
    assert [w.split(";")[0] for w in binds.warnings] == [
        "warning: no host libfabric (/opt/cray/libfabric/*)", "warning: host libcxi.so.1 not found",
        "warning: host libnl-3.so.200 not found", "warning: host libnl-route-3.so.200 not found"]
    with pytest.raises(UsageError, match="HOST_LIBFABRIC_DIR=/no/such is not a directory"):
        container_binds("slingshot", "/runs/7", "", str(tmp_path), "/no/such", run=tools())


def test_infiniband_binds_the_verbs_devices_where_the_node_has_them(tmp_path):
    assert container_binds("infiniband", "/r", "", str(tmp_path)).args == ["--bind", "/r"]
    root = tree(tmp_path, "dev/infiniband/uverbs0")
    assert container_binds("roce", "/r", "", root).args == ["--bind", "/r", "--bind",
                                                            f"{root}/dev/infiniband:/dev/infiniband"]


@pytest.mark.parametrize(("run_dir", "expected"), [
    ("/runs/plain", ["--bind", "/runs/plain"]),
    ("/runs/lr=1e-3,bs=32", ["--mount", 'type=bind,"src=/runs/lr=1e-3,bs=32","dst=/runs/lr=1e-3,bs=32"']),
    ('/runs/q"x:y', ["--mount", 'type=bind,"src=/runs/q""x:y","dst=/runs/q""x:y"']),
])
def test_the_run_dir_is_bound_whole_whatever_it_holds(run_dir, expected):
    assert container_binds("none", run_dir, "").args == expected


@pytest.mark.parametrize("binds", ["/data/lr=1e-3,bs=32", "/data/a:b", "/data:/in:rx", "data"])
def test_binds_apptainer_would_split_elsewhere_are_refused_with_the_remedy(binds):
    with pytest.raises(UsageError, match="--mount"):
        container_binds("none", "/r", binds)
