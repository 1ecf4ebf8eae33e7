"""GPU health from nvidia-smi (a stand-in prints what `--query-gpu ... --format=csv,noheader,nounits` prints),
and the nodes a failing check puts in --exclude-file."""

from __future__ import annotations

import os

from app.check.node import health
from app.check.report import FAIL, OK, WARN, Check, Report

HEALTHY = "0, 00000000:18:00.0, 0, No, No, [N/A], 16, 16"


def test_a_healthy_gpu_passes_and_fields_the_gpu_does_not_report_are_skipped():
    check = health.judge_health([HEALTHY, "1, 00000000:2A:00.0, [N/A], [N/A], [N/A], [N/A], 16, 16"])
    assert check.status == OK and check.detail.startswith("2 GPU(s)")


def test_uncorrected_ecc_errors_or_a_failed_remap_fail_the_node():
    check = health.judge_health([HEALTHY, "1, 00000000:2A:00.0, 3, No, No, [N/A], 16, 16"])
    assert check.status == FAIL and "GPU 1 (00000000:2A:00.0): 3 uncorrected ECC errors" in check.detail
    assert "--exclude-file" in check.remedy
    assert health.judge_health(["0, 00000000:18:00.0, 0, Yes, No, [N/A], 16, 16"]).status == FAIL


def test_a_narrow_pcie_link_or_a_pending_repair_warns_but_a_lower_link_generation_is_not_compared():
    narrow = health.judge_health(["0, 00000000:18:00.0, 0, No, No, [N/A], 8, 16"])
    assert narrow.status == WARN and "PCIe link x8 of x16" in narrow.detail
    assert health.judge_health(["0, 00000000:18:00.0, 0, No, Yes, [N/A], 16, 16"]).status == WARN
    assert health.judge_health(["0, 00000000:18:00.0, 0, [N/A], [N/A], Yes, 16, 16"]).status == WARN


def test_nvidia_smi_is_asked_for_exactly_these_fields(tmp_path, monkeypatch):
    fake = tmp_path / "nvidia-smi"
    fake.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/args\necho "{HEALTHY}"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert health.check_health(gpu_count=1)[0].status == OK
    assert (tmp_path / "args").read_text().split() == [f"--query-gpu={','.join(health.FIELDS)}",
                                                        "--format=csv,noheader,nounits"]
    assert health.check_health(gpu_count=0) == []  # a CPU node: nothing to say
    fake.write_text('#!/bin/sh\necho "Field \\"remapped_rows.failure\\" is not a valid field to query."\nexit 2\n')
    old_driver = health.check_health(gpu_count=1)[0]
    assert old_driver.status == WARN and "not a valid field" in old_driver.detail


def test_the_nodes_to_exclude_are_those_a_failure_blames_unless_it_blames_every_node():
    report = Report(info={"nodes": {"0": "gpu01", "1": "gpu02/agent1", "2": "gpu03"}})
    report.checks = [Check("gpu: health", FAIL, "ecc", nodes=["gpu02/agent1"]),
                     Check("network: interfaces", WARN, "x", nodes=["gpu03"]), Check("launch", OK, "ok")]
    assert report.nodes_to_exclude() == ["gpu02"]
    report.checks.append(Check("fabric: FI_PROVIDER", FAIL, "efa", nodes=["gpu01", "gpu03"]))
    assert report.nodes_to_exclude() == []  # everyone: the job's settings, not the nodes
