"""app.host.launch.pbs: `qstat -f` as PBS Pro prints it, the walltime, the options of a resubmission, the timer's delay.

The samples are folded the way OpenPBS's qstat folds them (tests/fixtures/qstat.py). This directory has
no __init__.py: tests/trainer_runs.py, the trainer's launch helpers, already holds the name `tests.launch`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch import pbs
from app.host.launch.requeue import pbs_submission_options
from tests.fixtures.qstat import CHAR_LINE_LIMIT, OLIVIA, qstat_f

REPO = Path(__file__).resolve().parents[3]

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


def with_qstat(tmp_path: Path, qstat_text: str | None, monkeypatch) -> Path:
    """PATH with a `qstat` that prints QSTAT_TEXT for `qstat -f 7.pbs` (None: no qstat at all); its directory."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if qstat_text is not None:
        (tmp_path / "qstat-f.txt").write_text(qstat_text)
        (bin_dir / "qstat").write_text(f'#!/bin/sh\n[ "$1 $2" = "-f 7.pbs" ] && cat "{tmp_path}/qstat-f.txt"\n')
        (bin_dir / "qstat").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return bin_dir


def submission_options(qstat_text: str | None, tmp_path: Path, monkeypatch) -> tuple[list[str], list[str]]:
    """The options the PBS job resubmits itself with (requeue.pbs_submission_options, as its finish and its bad-node
    requeue ask), and its log lines."""
    with_qstat(tmp_path, qstat_text, monkeypatch)
    said: list[str] = []
    return pbs_submission_options(said.append, "gh200-pbs.sh", "7.pbs"), said


def test_the_resubmission_options_are_data_whatever_qstat_shows(tmp_path, monkeypatch):
    hostile = {"Job_Name": f"x$(touch {tmp_path}/pwned)`touch {tmp_path}/also`'\"; echo no", "queue": "work q",
               "Account_Name": "caf\u00e9", "Resource_List.walltime": "01:00:00"}
    words, said = submission_options(qstat_f("7.pbs", hostile), tmp_path, monkeypatch)
    assert words == ["-A", "caf\u00e9", "-q", "work q", "-N", hostile["Job_Name"], "-l", "walltime=01:00:00"]
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "also").exists()
    assert said == [f"resubmitting with this job's options: {shlex.join(words)}"]


@pytest.mark.parametrize("qstat_text", ["", None])
def test_without_a_word_from_qstat_the_resubmission_keeps_the_scripts_defaults_and_says_so(tmp_path, monkeypatch,
                                                                                          qstat_text):
    words, said = submission_options(qstat_text, tmp_path, monkeypatch)
    assert words == [] and said == [
        "warning: qstat -f 7.pbs said nothing: resubmitting with the script's #PBS defaults only"]


def test_qstat_output_that_is_not_qstat_f_is_named_in_one_line_and_the_job_still_resubmits(tmp_path, monkeypatch,
                                                                                          capsys):
    words, said = submission_options("Job Id: 7.pbs\ngarbage\n", tmp_path, monkeypatch)
    assert words == []
    assert capsys.readouterr().err.splitlines() == [
        "gh200-pbs.sh: error: qstat -f line 2 is not 'Job Id: ID', '    Name = value' or a continuation (a tab "
        "first): 'garbage'; run qstat -f yourself to see what prints it (a site wrapper?)"]
    assert "resubmitting with the script's #PBS defaults only" in said[-1]


#: The PBS job's end after a snapshot USR1 asked for (JobRun.finish, app/host/launch/job.py): argv[1] the run directory
FINISH = """import sys
from app.host.launch.job import Allocated, Job, JobRun, Launch, Running, job_code
from app.host.launch.pbs_job import PBS
job = Job("gh200-pbs.sh", PBS)
job.knobs, job.preempted = {"RUN_DIR": sys.argv[1], "REQUEUE": "1"}, "USR1"
alloc = Allocated("7.pbs", sys.argv[1], "", ("node1", "node2"))
run = JobRun(job, Running(alloc, "train", [], 4, [], "", Launch("torchrun", [], [], "node1", "node1")))
sys.exit(job_code(job.script, lambda: run.finish(75)))
"""


def resubmit(qstat_text: str, tmp_path: Path, monkeypatch, qsub_exit: int = 0,
             python: str = sys.executable) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The PBS job's finish after a snapshot USR1 asked for (exit 75), with a `qsub` that records its arguments one
    a line and exits QSUB_EXIT; the run and qsub's arguments (none: it did not run)."""
    bin_dir = with_qstat(tmp_path, qstat_text, monkeypatch)
    (bin_dir / "qsub").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >"{tmp_path}/qsub-args"\nexit {qsub_exit}\n')
    (bin_dir / "qsub").chmod(0o755)
    result = subprocess.run([python, "-c", FINISH, str(tmp_path / "run")], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60, env={"PATH": os.environ["PATH"], "HOME": str(tmp_path),
                                                        "PYTHONPATH": str(REPO),
                                                        "DDP_JOBSCRIPT": "/jobs/gh200-pbs.sh"})
    calls = tmp_path / "qsub-args"
    return result, calls.read_text().splitlines() if calls.exists() else []


def test_the_job_resubmits_with_what_qstat_shows_and_runs_none_of_it(tmp_path, monkeypatch):
    name = f"ddp$(touch {tmp_path}/pwned)"
    result, qsub_args = resubmit(qstat_f("7.pbs", {**OLIVIA, "Job_Name": name}), tmp_path, monkeypatch)
    assert result.returncode == 75, result.stderr  # requeued (EX_TEMPFAIL)
    assert qsub_args == [
        "-A", "ehpc00", "-q", "blanca", "-N", name, "-l", "place=scatter:excl",
        "-l", "select=16:ncpus=72:ngpus=4:mpiprocs=4:sales_op=blanca", "-l", "walltime=72:00:00",
        "-V", "-W", "depend=afterany:7.pbs", "/jobs/gh200-pbs.sh"]
    assert not (tmp_path / "pwned").exists()
    assert f"] requeueing job 7.pbs; it resumes from the newest snapshot in {tmp_path}/run\n" in result.stdout


def test_the_job_resubmits_with_its_defaults_when_qstat_prints_what_is_not_qstat_f(tmp_path, monkeypatch):
    result, qsub_args = resubmit("Job Id: 7.pbs\nwarning: license server slow\n", tmp_path, monkeypatch)
    assert result.returncode == 75, result.stderr
    assert qsub_args == ["-V", "-W", "depend=afterany:7.pbs", "/jobs/gh200-pbs.sh"]
    assert "error: qstat -f line 2 is not 'Job Id: ID'" in result.stderr
    assert "resubmitting with the script's #PBS defaults only" in result.stdout


def test_a_failed_resubmission_stops_in_one_line_that_says_how_to_resume(tmp_path, monkeypatch):
    result, qsub_args = resubmit(qstat_f("7.pbs", OLIVIA), tmp_path, monkeypatch, qsub_exit=1)
    assert result.returncode == 2 and qsub_args[-1] == "/jobs/gh200-pbs.sh"
    assert result.stderr.splitlines() == [
        f"gh200-pbs.sh: error: resubmission failed (qsub above); resubmit by hand with qsub and "
        f"RUN_DIR={tmp_path}/run to resume"]


def test_the_resubmission_runs_under_the_login_nodes_python_3_6(tmp_path, monkeypatch):
    """SLES 15's python3 runs the PBS job: the same resubmission as the newest."""
    from tests.test_login_tools import login_python

    old = login_python()
    if old is None:
        pytest.skip("no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv install 3.6)")
    text = qstat_f("7.pbs", {**OLIVIA, "Job_Name": "caf\u00e9 $(x)"})
    old_run, old_args = resubmit(text, tmp_path, monkeypatch, python=old)
    new_run, new_args = resubmit(text, tmp_path, monkeypatch)
    assert old_run.returncode == new_run.returncode == 75 and old_args == new_args != [], old_run.stderr
