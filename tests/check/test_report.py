import json

import pytest

from app.check.report import FAIL, OK, WARN, BandwidthRow, Check, Report, format_report, format_table
from app.common import exitcodes


def test_exit_code_is_that_of_the_earliest_failing_stage():
    report = Report([Check("a", FAIL, "slow", stage="bandwidth"), Check("b", FAIL, "wrong", stage="correctness")])
    assert report.exit_code() == exitcodes.WRONG_RESULTS
    report.add(Check("c", FAIL, "bad ifname", "set X", stage="preflight"))
    assert report.exit_code() == exitcodes.PREFLIGHT


def test_warnings_alone_pass():
    report = Report([Check("a", WARN, "meh", "do y"), Check("b", OK, "fine")])
    assert report.exit_code() == exitcodes.OK
    assert "1 warning" in report.verdict()


def test_verdict_is_the_last_line_and_names_the_first_failure_and_its_fix():
    report = Report([Check("network: NCCL_SOCKET_IFNAME", FAIL, "ib9 matches nothing", "NCCL_SOCKET_IFNAME=ib0")])
    text = format_report(report)
    last = text.splitlines()[-1]
    assert last.startswith("VERDICT: FAIL") and "NCCL_SOCKET_IFNAME=ib0" in last and last.endswith("exit code 7")


def test_remedy_line_is_printed_under_warn_and_fail_only():
    text = format_report(Report([Check("x", OK, "good", "never shown"), Check("y", WARN, "hmm", "do this")]))
    assert "never shown" not in text and "-> do this" in text


def test_bandwidth_table_has_nccl_tests_columns():
    row = BandwidthRow("all_reduce", 1 << 20, 1 << 18, "float", "sum", -1, 100.0, 10.49, 15.73, 0)
    header = format_table([row]).splitlines()[0].split()
    assert header == [
        "collective",
        "size(B)",
        "count",
        "type",
        "redop",
        "root",
        "time(us)",
        "algbw",
        "busbw",
        "#wrong",
    ]


def test_json_holds_checks_tables_and_exit_code(tmp_path):
    report = Report(
        [Check("a", FAIL, "d", "r", stage="bandwidth")],
        {"all ranks (2)": [BandwidthRow("broadcast", 8, 2, "float", "none", 0, 1.0, 0.008, 0.008, 0)]},
    )
    path = tmp_path / "r.json"
    report.write_json(str(path))
    data = json.loads(path.read_text())
    assert data["exit_code"] == exitcodes.SLOW
    assert data["tables"]["all ranks (2)"][0]["collective"] == "broadcast"


def test_unknown_status_or_stage_is_a_programming_error():
    with pytest.raises(ValueError):
        Check("a", "MAYBE", "d")
    with pytest.raises(ValueError):
        Check("a", OK, "d", stage="nonsense")
