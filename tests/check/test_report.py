import json

import pytest

from app.check.report import FAIL, OK, WARN, BandwidthRow, Check, Report, format_report, format_table
from app.host.common import exitcodes


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
    header, units, *_ = format_table([row]).splitlines()
    assert header.split() == ["#", "collective", "size", "count", "type", "redop", "root", "time", "algbw", "busbw",
                              "#wrong"]
    assert units.split() == ["#", "(B)", "(elements)", "(us)", "(GB/s)", "(GB/s)"]


def test_json_holds_checks_scopes_and_exit_code_under_identifier_keys(tmp_path):
    rows = [BandwidthRow("all_reduce", size, size // 4, "float", "sum", -1, 1.0, bw, bw, 0)
            for size, bw in ((8, 1.0), (1024, 3.0))]
    report = Report([Check("a", FAIL, "d", "r", stage="bandwidth")], {"intra:gpu01": rows, "all": rows},
                    titles={"intra:gpu01": "within node gpu01 (4 ranks)", "all": "all ranks (8)"},
                    thresholds={"intra": 20.0})
    path = tmp_path / "r.json"
    report.write_json(str(path))
    data = json.loads(path.read_text())
    assert data["schema_version"] == 1 and data["exit_code"] == exitcodes.SLOW
    assert list(data) == ["schema_version", "exit_code", "verdict", "checks", "scopes", "info"]
    first = data["scopes"][0]
    assert {k: first[k] for k in ("scope", "kind", "node", "title", "min_busbw_gbps", "avg_busbw_gbps")} == {
        "scope": "intra:gpu01", "kind": "intra", "node": "gpu01", "title": "within node gpu01 (4 ranks)",
        "min_busbw_gbps": 20.0, "avg_busbw_gbps": 2.0}
    assert data["scopes"][1]["node"] is None and data["scopes"][1]["min_busbw_gbps"] == 0.0
    assert set(first["rows"][0]) == {"collective", "size", "count", "dtype", "redop", "root", "time_us", "algbw",
                                     "busbw", "wrong"}
    # Printed as nccl-tests prints: `#` header lines, bare rows, and the line its parsers read
    text = format_report(report)
    assert "# == collectives: within node gpu01 (4 ranks) ==" in text
    table = text[text.index("# == collectives: all ranks (8) =="):].splitlines()
    assert table[1].startswith("#") and table[2].startswith("#") and not table[3].startswith("#")
    assert table[5] == "# Avg bus bandwidth    : 2.0000 (all_reduce, GB/s, mean of 2 sizes)"


def test_unknown_status_or_stage_is_a_programming_error():
    with pytest.raises(ValueError):
        Check("a", "MAYBE", "d")
    with pytest.raises(ValueError):
        Check("a", OK, "d", stage="nonsense")


@pytest.mark.parametrize(("nodes", "says"), [
    ({"0": "n1"}, "one process measured nothing between ranks or nodes"),
    ({"0": "n1", "1": "n1"}, "the ranks of one node can train together; nothing was measured across nodes"),
    ({"0": "n1", "1": "n2"}, "these nodes can train together"),
])
def test_a_pass_says_what_was_measured(nodes, says):
    report = Report([Check("a", OK, "fine")], info={"nodes": nodes})
    assert says in report.verdict()
    assert report.exit_code() == exitcodes.OK


def test_a_link_at_the_json_path_is_replaced_and_the_file_it_names_is_left_alone(tmp_path):
    yours = tmp_path / "yours.txt"
    yours.write_text("keep me\n")
    (tmp_path / "check.json").symlink_to(yours)
    Report([Check("a", OK, "d")]).write_json(str(tmp_path / "check.json"))
    assert yours.read_text() == "keep me\n"
    assert json.loads((tmp_path / "check.json").read_text())["exit_code"] == 0
