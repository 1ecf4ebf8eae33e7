import os
import stat

from app.check.nccl_tests import parse_busbw, run_all_reduce_perf, side_by_side
from app.check.report import OK
from tests.check.check_helpers import DATA

SAMPLE = (DATA / "nccl" / "all_reduce_perf.out").read_text()


def test_out_of_place_busbw_is_read_per_size():
    assert parse_busbw(SAMPLE) == {32768: 2.44, 262144: 15.48, 134217728: 335.27}


def test_missing_binary_is_reported_not_failed(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    check, busbw = run_all_reduce_perf([32768], 4, 10)
    assert check.status == OK and "not on PATH" in check.detail and busbw == {}


def test_binary_on_path_is_run_over_our_sizes(monkeypatch, tmp_path):
    fake = tmp_path / "all_reduce_perf"
    fake.write_text(f'#!/bin/sh\necho "$@" > {tmp_path}/args\ncat {DATA / "nccl" / "all_reduce_perf.out"}\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    check, busbw = run_all_reduce_perf([32768, 134217728], 4, 10)
    assert check.status == OK and busbw[134217728] == 335.27
    assert (tmp_path / "args").read_text().split() == ["-b", "32768", "-e", "134217728", "-f", "2", "-g", "4"]


def test_side_by_side_lists_sizes_both_measured():
    text = side_by_side({32768: 2.0, 65536: 3.0}, parse_busbw(SAMPLE), "within node gpu01 (4 ranks)")
    lines = text.splitlines()
    assert len(lines) == 2 and lines[1].split() == ["32768", "2.00", "2.44"]
