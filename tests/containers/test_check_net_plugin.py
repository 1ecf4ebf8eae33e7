"""containers/scripts/check-net-plugin.sh: the aws-ofi-nccl plugin an image builds is an ELF of the image's
architecture that exports one of the ncclNetPlugin_vN tables NCCL looks up (v12 down to v6), else the build stops
in one line. The plugins here are small shared objects gcc builds for this machine; the aarch64 plugin itself is
checked where it is built (the aarch64 twin image, `nox -s image_aarch64`).
"""

from __future__ import annotations

import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.apptainer import missing_tool

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "containers" / "scripts" / "check-net-plugin.sh"
HOST = platform.machine()
OTHER = {"x86_64": "aarch64", "aarch64": "x86_64"}.get(HOST)


def _plugin(tmp_path: Path, source: str) -> Path:
    if shutil.which("gcc") is None or shutil.which("readelf") is None:
        missing_tool("gcc and readelf (binutils) are not installed")
    (tmp_path / "plugin.c").write_text(source)
    plugin = tmp_path / "libnccl-net.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(plugin), str(tmp_path / "plugin.c")], check=True, timeout=60)
    return plugin


def _check(plugin: Path, arch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), str(plugin), arch], capture_output=True, text=True, timeout=60)


def test_a_plugin_of_this_architecture_with_a_table_nccl_looks_up_is_accepted(tmp_path):
    plugin = _plugin(tmp_path, 'struct net { const char *name; } ncclNetPlugin_v11 = { "AWS Libfabric" };\n'
                               'struct net ncclNetPlugin_v2 = { "AWS Libfabric" };\n')
    result = _check(plugin, HOST)
    assert result.returncode == 0, result.stderr
    assert f"{HOST}, exports ncclNetPlugin_v11" in result.stderr


@pytest.mark.skipif(OTHER is None, reason=f"no other architecture to compare with on {HOST}")
def test_a_plugin_of_another_architecture_is_refused_naming_both(tmp_path):
    plugin = _plugin(tmp_path, 'struct net { const char *name; } ncclNetPlugin_v11 = { "AWS Libfabric" };\n')
    result = _check(plugin, OTHER)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"not {OTHER}" in result.stderr and "make image ARCH=" in result.stderr


def test_a_plugin_with_only_tables_older_than_nccl_takes_is_refused(tmp_path):
    """ncclNetPlugin_v5 and older are not looked up any more: NCCL would skip the plugin as unsupported."""
    plugin = _plugin(tmp_path, 'struct net { const char *name; } ncclNetPlugin_v5 = { "old" };\n'
                               'int ncclCollNetPlugin_v11 = 0;\n')
    result = _check(plugin, HOST)
    assert result.returncode == 1
    assert "exports no ncclNetPlugin_v{6..12} (it has: v5)" in result.stderr


def test_a_table_the_plugin_only_references_does_not_count(tmp_path):
    plugin = _plugin(tmp_path, 'extern int ncclNetPlugin_v11;\nint *use(void) { return &ncclNetPlugin_v11; }\n')
    result = _check(plugin, HOST)
    assert result.returncode == 1
    assert "exports no ncclNetPlugin_v" in result.stderr


def test_a_file_that_is_no_elf_and_an_unknown_architecture_are_named(tmp_path):
    text = tmp_path / "libnccl-net.so"
    text.write_text("not a library\n")
    assert "is not an ELF file" in _check(text, HOST).stderr
    result = _check(text, "ppc64le")
    assert result.returncode == 1
    assert "ARCH 'ppc64le' is neither x86_64 nor aarch64" in result.stderr
