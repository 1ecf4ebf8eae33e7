"""The CUDA image's fabric stack on a real GPU: its aws-ofi-nccl plugin (linked against its libfabric 1.22.0)
carrying NCCL's traffic between two ranks that NCCL takes for two hosts, and nccl-tests' all_reduce_perf beside
the check's own figures. Where the files come from:
    APP_TEST_FABRIC_LIBS  a folder with libnccl-net.so, libfabric.so.1 and the libraries they need, copied out
                          of the built image by bench/gpu_fabric_libs.sh
    APP_TEST_NCCL_TESTS   a folder with all_reduce_perf, built on the GPU host from the mirrored archive by
                          `bash bench/gpu_session.sh nccl-tests` (against that host's CUDA and NCCL)
Each test is skipped, with the reason, where its folder or a GPU is missing: CI has neither."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.trainer_runs import clean_env, emulated_nodes, finish_all, run

FABRIC_LIBS = os.environ.get("APP_TEST_FABRIC_LIBS", "")
NCCL_TESTS = os.environ.get("APP_TEST_NCCL_TESTS", "")

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (none is visible here)"),
]
needs_plugin = pytest.mark.skipif(not FABRIC_LIBS, reason="APP_TEST_FABRIC_LIBS names no folder of the image's "
                                  "plugin and libfabric (bench/gpu_fabric_libs.sh)")


def plugin_env(**extra: str) -> dict[str, str]:
    """The image's plugin found as NCCL finds it there: the default libnccl-net.so on the library path."""
    env = clean_env(CUDA_VISIBLE_DEVICES="0", **extra)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [FABRIC_LIBS, env.get("LD_LIBRARY_PATH", "")]))
    return env


@needs_plugin
def test_the_plugin_resolves_every_library_and_symbol_version_on_this_host():
    result = subprocess.run(["ldd", "-r", str(Path(FABRIC_LIBS) / "libnccl-net.so")], env=plugin_env(),
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "not found" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert str(Path(FABRIC_LIBS) / "libfabric.so.1") in result.stdout


@needs_plugin
def test_two_ranks_on_one_gpu_talk_through_the_plugin_over_libfabrics_tcp_provider(tmp_path):
    # NCCL_NET as the policy sets it on a Slingshot job, with libfabric's tcp provider where no cxi NIC exists.
    # The two "hosts" share this machine, so they meet on loopback: libfabric lists only `lo` under
    # FI_TCP_IFACE=lo (src/common.c, ofi_get_list_of_addr), and the plugin skips `lo` unless told otherwise
    # (aws-ofi-nccl 1.18 include/nccl_ofi_param.h: OFI_NCCL_EXCLUDE_TCP_IF defaults to "lo,docker0").
    env = plugin_env(NCCL_NET="AWS Libfabric", FI_PROVIDER="tcp", FI_TCP_IFACE="lo", OFI_NCCL_EXCLUDE_TCP_IF="docker0")
    agents = emulated_nodes(2, "app.check", "--json", str(tmp_path / "report.json"), env=env)
    outputs = finish_all(agents)
    text = "\n---\n".join(outputs)
    assert [a.returncode for a in agents] == [0, 0], text[-4000:]
    assert "VERDICT: PASS" in text, text[-4000:]
    report = json.loads((tmp_path / "report.json").read_text())
    transports = report["info"]["nccl_transports"]
    assert "NET/AWS Libfabric" in transports and "aws-ofi-nccl 1.18.0" in transports, transports
    assert "provider tcp" in transports, transports
    assert report["scopes"][0]["avg_busbw_gbps"] > 0
    print(transports, "\n", [(row["collective"], row["size"], row["busbw"]) for row in report["scopes"][0]["rows"]])


@pytest.mark.skipif(not NCCL_TESTS, reason="APP_TEST_NCCL_TESTS names no folder with all_reduce_perf")
def test_the_check_runs_all_reduce_perf_on_the_gpu_and_prints_it_beside_its_own_busbw(tmp_path):
    env = clean_env(CUDA_VISIBLE_DEVICES="0")
    env["PATH"] = os.pathsep.join([NCCL_TESTS, env["PATH"]])
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=1", "-m", "app.check",
               "--nccl-tests", "--json", str(report)]
    result = run(command, env=env)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    checks = {c["name"]: c for c in json.loads(report.read_text())["checks"]}
    assert checks["nccl-tests: all_reduce_perf"]["status"] == "OK", checks["nccl-tests: all_reduce_perf"]
    busbw = json.loads(report.read_text())["info"]["nccl_tests_busbw"]
    assert busbw and all(value >= 0 for value in busbw.values()), busbw
    print(result.stdout[-3000:])
