"""app.launch.pbs: `qstat -f` as PBS Pro prints it, the walltime, the options of a resubmission, the timer's delay.

The samples are folded the way OpenPBS's qstat folds them (tests/fixtures/qstat.py). This directory has
no __init__.py: tests/launch.py, the trainer's launch helpers, already holds the name `tests.launch`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from app.common.errors import UsageError
from app.launch import pbs
from tests.fixtures.qstat import CHAR_LINE_LIMIT, OLIVIA, qstat_f

REPO = Path(__file__).resolve().parents[2]

def test_the_port_folds_long_values_onto_tab_lines_as_qstat_does():
    """The stand-in itself: every line fits 80 columns (a tab counts as 8), a long exec_vnode is cut inside a
    piece, a comma-separated one at its commas."""
    text = qstat_f("1234.pbs01", OLIVIA)
    lines = text.splitlines()
    assert all(len(line.expandtabs(8)) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    vnode_lines = text.split("    exec_vnode = ")[1].split("\n    ")[0].split("\n\t")
    assert len(vnode_lines) > 5 and not vnode_lines[1].startswith("(")
    variable_lines = text.split("    Variable_List = ")[1].split("\n\n")[0].split("\n\t")
    assert all(line.startswith("PBS_O_") for line in variable_lines[1:]), variable_lines


@pytest.mark.parametrize("attributes", [
    OLIVIA,
    {"Job_Name": "a,b,c" * 40, "Resource_List.walltime": "00:10:00"},
    # A piece that ends exactly at the line's end leaves an empty continuation line
    {"Resource_List.select": "x" * (CHAR_LINE_LIMIT - len("Resource_List.select") - 7)},
    {"exec_host": "nid001000/0*2"},
])
def test_folded_values_come_back_whole(attributes):
    job_id, found = pbs.parse_qstat_full(qstat_f("1234.pbs01", attributes))
    assert job_id == "1234.pbs01"
    assert found == {k: ",".join(p for p in v.split(",") if p) for k, v in attributes.items()}


def test_qstat_f_w_prints_each_attribute_on_one_line_and_reads_the_same():
    wide = "Job Id: 7.pbs\n" + "".join(f"    {k} = {v}\n" for k, v in OLIVIA.items())
    assert pbs.parse_qstat_full(wide) == pbs.parse_qstat_full(qstat_f("7.pbs", OLIVIA))


@pytest.mark.parametrize(("text", "cause"), [
    ("    queue = blanca\n", "qstat -f line 1 is not 'Job Id: ID'"),
    ("Job Id: 7.pbs\n\tca\n", "qstat -f line 2 continues no attribute"),
    ("Job Id: 7.pbs\n    queue = blanca\nqstat: connection refused\n", "qstat -f line 3 is not"),
    ("Job Id: 7.pbs\n    queue=blanca\n", "qstat -f line 2 is not"),
    ("Job Id: 7.pbs\n    queue = a\n\nJob Id: 8.pbs\n    queue = b\n", "shows more than one job (7.pbs, 8.pbs)"),
    ("\n\n", "qstat -f printed nothing"),
])
def test_text_that_is_not_one_jobs_qstat_f_gets_a_one_line_cause(text, cause):
    with pytest.raises(UsageError) as raised:
        pbs.parse_qstat_full(text)
    message = str(raised.value)
    assert cause in message and "\n" not in message, message


@pytest.mark.parametrize(("value", "seconds"), [
    ("03:00:00", 10800), ("72:00:00", 259200), ("00:01:00", 60), ("1:30", 90), ("45", 45),
    ("00:00:01.500", 1), ("0:90:00", 5400),
])
def test_walltime_reads_pbs_durations(value, seconds):
    assert pbs.walltime_seconds(value) == seconds


@pytest.mark.parametrize("value", ["", "1:2:3:4", "ab:00:00", "-1", "1h", "01:00:00 ", "١:00"])
def test_a_walltime_that_is_not_a_pbs_duration_names_the_format(value):
    with pytest.raises(UsageError) as raised:
        pbs.walltime_seconds(value)
    assert "[[hours:]minutes:]seconds" in str(raised.value) and repr(value) in str(raised.value)


def test_the_resubmission_carries_account_queue_name_and_the_resources_given_not_those_derived():
    _, attributes = pbs.parse_qstat_full(qstat_f("1234.pbs01", OLIVIA))
    assert pbs.submission_options(attributes) == [
        "-A", "ehpc00", "-q", "blanca", "-N", "ddp", "-l", "place=scatter:excl",
        "-l", "select=16:ncpus=72:ngpus=4:mpiprocs=4:sales_op=blanca", "-l", "walltime=72:00:00"]


@pytest.mark.parametrize(("select", "expected"), [
    # Chunks of two kinds (`+`): each chunk's resources stay inside select
    ("1:ncpus=8:bigmem=true+2:ngpus=4:sales_op=blanca", []),
    # A chunk without a count (one chunk): bigmem is the job's own, sales_op the chunk's
    ("ncpus=8:sales_op=blanca", ["-l", "bigmem=true"]),
])
def test_resources_named_inside_any_chunk_are_not_repeated_job_wide(select, expected):
    attributes = {"Resource_List.select": select, "Resource_List.bigmem": "true", "Resource_List.sales_op": "blanca",
                  "Resource_List.walltime": "01:00:00", "Resource_List.ncpus": "16"}
    assert pbs.submission_options(attributes) == [*expected, "-l", f"select={select}", "-l", "walltime=01:00:00"]


def test_a_job_without_select_keeps_its_job_wide_resources():
    assert pbs.submission_options({"queue": "workq", "Resource_List.ncpus": "4", "Resource_List.mem": "8gb"}) == [
        "-q", "workq"]
    assert pbs.submission_options({"Resource_List.walltime": "00:30:00", "Resource_List.nice": "5"}) == [
        "-l", "nice=5", "-l", "walltime=00:30:00"]


@pytest.mark.parametrize(("walltime", "margin", "elapsed", "delay"), [
    ("3600", "90", "10", 3500), ("92", "90", "0", 2), ("92", "90", "5", 1), ("60", "90", "0", 1),
])
def test_the_timer_fires_the_margin_before_the_walltime_counted_from_the_jobs_start(walltime, margin, elapsed, delay):
    timer = pbs.timer_delay(walltime, margin, elapsed, "")
    assert timer.delay_s == delay
    assert timer.note == (f"USR1 in {delay}s (walltime {walltime}s minus {margin}s margin) for a snapshot "
                          "before the limit")


def test_without_walltime_s_the_timer_reads_qstat_and_without_either_arms_nothing():
    assert pbs.timer_delay("", "90", "0", qstat_f("7.pbs", OLIVIA)).delay_s == 72 * 3600 - 90
    none = pbs.timer_delay("", "90", "0", "")
    assert none.delay_s is None and none.note.startswith("walltime unknown (no WALLTIME_S, and qstat -f")


def test_a_walltime_qstat_shows_that_is_no_duration_arms_no_timer_and_says_why():
    timer = pbs.timer_delay("", "90", "0", qstat_f("7.pbs", {"Resource_List.walltime": "soon"}))
    assert timer.delay_s is None and "'soon' is not a PBS duration" in timer.note


@pytest.mark.parametrize(("walltime", "margin", "named"), [
    ("1h", "90", "WALLTIME_S=1h"), ("3600", "1.5", "PREEMPT_MARGIN_S=1.5"), ("3600", "", "PREEMPT_MARGIN_S="),
])
def test_knobs_that_are_not_whole_seconds_stop_with_an_example(walltime, margin, named):
    with pytest.raises(UsageError) as raised:
        pbs.timer_delay(walltime, margin, "0", "")
    assert named in str(raised.value) and "example: WALLTIME_S=3600 PREEMPT_MARGIN_S=90" in str(raised.value)


def ask(question: list[str], qstat_text: str | None, tmp_path: Path,
        python: str = sys.executable) -> tuple[subprocess.CompletedProcess, list[str]]:
    """`python3 -m app.launch --script gh200-pbs.sh QUESTION...` as lib.sh's ddp_plan runs it, with a `qstat` that
    prints QSTAT_TEXT for `qstat -f 7.pbs` (None: no qstat at all); the run and its answer's words."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if qstat_text is not None:
        (tmp_path / "qstat-f.txt").write_text(qstat_text)
        (bin_dir / "qstat").write_text(f'#!/bin/sh\n[ "$1 $2" = "-f 7.pbs" ] && cat "{tmp_path}/qstat-f.txt"\n')
        (bin_dir / "qstat").chmod(0o755)
    read, write = os.pipe()
    result = subprocess.run([python, "-m", "app.launch", "--script", "gh200-pbs.sh", "--answer-fd", str(write),
                             *question], env={"PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHONPATH": str(REPO)},
                            cwd=tmp_path, pass_fds=(write,), capture_output=True, timeout=60)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        words = answer.read().decode().split("\0")[:-1]
    return result, words


RESUBMIT = ["pbs-resubmit", "--job-id=7.pbs"]


def test_the_resubmission_answer_is_data_whatever_qstat_shows(tmp_path):
    hostile = {"Job_Name": f"x$(touch {tmp_path}/pwned)`touch {tmp_path}/also`'\"; echo no", "queue": "work q",
               "Account_Name": "caf\u00e9", "Resource_List.walltime": "01:00:00"}
    result, words = ask(RESUBMIT, qstat_f("7.pbs", hostile), tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    assert words == ["-A", "caf\u00e9", "-q", "work q", "-N", hostile["Job_Name"], "-l", "walltime=01:00:00"]
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "also").exists()
    assert f"resubmitting with this job's options: {shlex.join(words)}\n" in result.stdout.decode()


@pytest.mark.parametrize("qstat_text", ["", None])
def test_without_a_word_from_qstat_the_resubmission_keeps_the_scripts_defaults_and_says_so(tmp_path, qstat_text):
    result, words = ask(RESUBMIT, qstat_text, tmp_path)
    assert result.returncode == 0 and words == [], result.stderr.decode()
    assert ("warning: qstat -f 7.pbs said nothing: resubmitting with the script's #PBS defaults only"
            in result.stdout.decode())


def test_qstat_output_that_is_not_qstat_f_is_named_in_one_line_and_the_job_still_resubmits(tmp_path):
    result, words = ask(RESUBMIT, "Job Id: 7.pbs\ngarbage\n", tmp_path)
    assert result.returncode == 0 and words == []
    assert result.stderr.decode().splitlines() == [
        "gh200-pbs.sh: error: qstat -f line 2 is not 'Job Id: ID', '    Name = value' or a continuation (a tab "
        "first): 'garbage'; run qstat -f yourself to see what prints it (a site wrapper?)"]
    assert "resubmitting with the script's #PBS defaults only" in result.stdout.decode()


def test_the_timer_answer_gives_the_delay_from_qstat_and_logs_the_note(tmp_path):
    result, words = ask(["pbs-timer", "--job-id=7.pbs", "--margin-s=90", "--elapsed-s=30"],
                        qstat_f("7.pbs", {"Resource_List.walltime": "00:10:00"}), tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    assert words == ["480"]
    assert "USR1 in 480s (walltime 600s minus 90s margin) for a snapshot before the limit" in result.stdout.decode()


def test_without_a_walltime_the_timer_answers_nothing_and_says_how_to_set_one(tmp_path):
    result, words = ask(["pbs-timer", "--job-id=7.pbs", "--margin-s=90", "--elapsed-s=0"], None, tmp_path)
    assert result.returncode == 0 and words == [], result.stderr.decode()
    assert "no snapshot before the limit; WALLTIME_S=SECONDS sets it" in result.stdout.decode()


def test_a_walltime_s_that_is_no_number_exits_2_with_one_line(tmp_path):
    result, words = ask(["pbs-timer", "--job-id=7.pbs", "--walltime-s=1h", "--margin-s=90", "--elapsed-s=0"], "",
                        tmp_path)
    assert result.returncode == 2 and words == []
    assert result.stderr.decode().splitlines() == [
        "gh200-pbs.sh: error: WALLTIME_S=1h must be whole seconds; example: WALLTIME_S=3600 PREEMPT_MARGIN_S=90"]


def test_the_questions_run_under_the_login_nodes_python_3_6(tmp_path):
    """SLES 15's python3 runs the job scripts' plan: the same answer as the newest."""
    from tests.test_login_tools import login_python

    old = login_python()
    if old is None:
        pytest.skip("no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv install 3.6)")
    text = qstat_f("7.pbs", {**OLIVIA, "Job_Name": "caf\u00e9 $(x)"})
    for question in (RESUBMIT, ["pbs-timer", "--job-id=7.pbs", "--margin-s=90", "--elapsed-s=3"]):
        assert ask(question, text, tmp_path, python=old)[1] == ask(question, text, tmp_path)[1] != []


def lib_pbs(snippet: str, qstat_text: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """SNIPPET after `source jobscripts/lib.sh`, with a `qstat` that prints QSTAT_TEXT for `qstat -f 7.pbs`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (tmp_path / "qstat-f.txt").write_text(qstat_text)
    (bin_dir / "qstat").write_text(f'#!/bin/sh\n[ "$1 $2" = "-f 7.pbs" ] && cat "{tmp_path}/qstat-f.txt"\n')
    (bin_dir / "qstat").chmod(0o755)
    full_env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "PBS_JOBID": "7.pbs",
                "DDP_SCRIPT": "gh200-pbs.sh", "DDP_SCHEDULER": "pbs", **env}
    return subprocess.run(["bash", "-c", f'source "{REPO}/jobscripts/lib.sh"\n{snippet}'], env=full_env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def resubmit(qstat_text: str, tmp_path: Path, qsub_exit: int = 0) -> tuple[subprocess.CompletedProcess, list[str]]:
    """lib.sh's ddp_finish after a snapshot USR1 asked for (exit 75) on PBS, with a `qsub` that records its arguments
    one a line and exits QSUB_EXIT; the run and qsub's arguments (none: it did not run)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "qsub").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >"{tmp_path}/qsub-args"\nexit {qsub_exit}\n')
    (bin_dir / "qsub").chmod(0o755)
    result = lib_pbs('DDP_JOB_ID=7.pbs RUN_DIR="$HOME/run" REQUEUE=1 DDP_PREEMPTED=USR1 '
                     'DDP_JOBSCRIPT=/jobs/gh200-pbs.sh; ddp_finish 75', qstat_text, tmp_path)
    calls = tmp_path / "qsub-args"
    return result, calls.read_text().splitlines() if calls.exists() else []


def test_the_job_script_resubmits_with_what_qstat_shows_and_runs_none_of_it(tmp_path):
    name = f"ddp$(touch {tmp_path}/pwned)"
    result, qsub_args = resubmit(qstat_f("7.pbs", {**OLIVIA, "Job_Name": name}), tmp_path)
    assert result.returncode == 75, result.stderr  # requeued (EX_TEMPFAIL)
    assert qsub_args == [
        "-A", "ehpc00", "-q", "blanca", "-N", name, "-l", "place=scatter:excl",
        "-l", "select=16:ncpus=72:ngpus=4:mpiprocs=4:sales_op=blanca", "-l", "walltime=72:00:00",
        "-V", "-W", "depend=afterany:7.pbs", "/jobs/gh200-pbs.sh"]
    assert not (tmp_path / "pwned").exists()


def test_the_job_script_resubmits_with_its_defaults_when_qstat_prints_what_is_not_qstat_f(tmp_path):
    result, qsub_args = resubmit("Job Id: 7.pbs\nwarning: license server slow\n", tmp_path)
    assert result.returncode == 75, result.stderr
    assert qsub_args == ["-V", "-W", "depend=afterany:7.pbs", "/jobs/gh200-pbs.sh"]
    assert "error: qstat -f line 2 is not 'Job Id: ID'" in result.stderr
    assert "resubmitting with the script's #PBS defaults only" in result.stdout


def test_a_failed_resubmission_stops_in_one_line_that_says_how_to_resume(tmp_path):
    result, qsub_args = resubmit(qstat_f("7.pbs", OLIVIA), tmp_path, qsub_exit=1)
    assert result.returncode == 2 and qsub_args[-1] == "/jobs/gh200-pbs.sh"
    assert result.stderr.splitlines() == [
        f"gh200-pbs.sh: error: resubmission failed (qsub above); resubmit by hand with qsub and "
        f"RUN_DIR={tmp_path}/run to resume"]


def test_the_job_scripts_timer_takes_the_walltime_from_qstat(tmp_path):
    result = lib_pbs('DRY_RUN=0; ddp_pbs_timer timer; kill "$timer"',
                     qstat_f("7.pbs", {"Resource_List.walltime": "00:10:00"}), tmp_path, PREEMPT_MARGIN_S="60")
    assert result.returncode == 0, result.stderr
    assert "USR1 in 540s (walltime 600s minus 60s margin)" in result.stdout or \
        "USR1 in 539s (walltime 600s minus 60s margin)" in result.stdout, result.stdout


def test_the_job_scripts_timer_stops_the_job_on_a_walltime_s_that_is_no_number(tmp_path):
    result = lib_pbs('DRY_RUN=0; ddp_pbs_timer timer; echo "still running"', "", tmp_path, WALLTIME_S="1h")
    assert result.returncode == 2 and "still running" not in result.stdout
    assert result.stderr.splitlines() == [
        "gh200-pbs.sh: error: WALLTIME_S=1h must be whole seconds; example: WALLTIME_S=3600 PREEMPT_MARGIN_S=90"]
