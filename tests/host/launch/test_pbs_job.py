"""The PBS job as one program (app/host/launch/job.py with app/host/launch/pbs_job.py's side): its records one by one,
then the whole job started the way qsub starts it, `bash jobscripts/gh200-pbs.sh` inside a job's environment with
stand-ins for PALS' mpiexec, qstat and qsub (the emulated PBS on the Slurm test cluster:
tests/jobscripts/test_jobscripts_pbs.py)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch import pbs_job
from app.host.launch.job import Allocated, Job
from app.host.launch.pbs_job import PBS, first_line, usr1_timer, workload_arguments
from tests.fixtures.qstat import OLIVIA, qstat_f

REPO = Path(__file__).resolve().parents[3]


# ------------------------------------------------------------------------ the records


@pytest.mark.parametrize(("args", "env", "words"), [
    ([], {"WORKLOAD": "my_train.py --name 'a b' '*.txt' \"$HOME\""}, ["my_train.py", "--name", "a b", "*.txt",
                                                                      "$HOME"]),
    ([], {"WORKLOAD": "check\n--node-only"}, ["check", "--node-only"]),
    ([], {"WORKLOAD": ""}, []),
    ([], {}, []),
    # A direct run's arguments (bash gh200-pbs.sh ARGS, a dry run) win over WORKLOAD
    (["train", "train.max_steps=5"], {"WORKLOAD": "check"}, ["train", "train.max_steps=5"]),
])
def test_the_workload_is_the_arguments_or_workloads_words_unexpanded(args, env, words) -> None:
    assert workload_arguments(args, env) == words


def test_unbalanced_quotes_in_workload_stop_with_an_example() -> None:
    with pytest.raises(UsageError) as raised:
        workload_arguments([], {"WORKLOAD": "train.py 'a"})
    assert str(raised.value) == ("WORKLOAD=train.py 'a: no closing quotation; quote each argument once, example: "
                                 "WORKLOAD=\"train.py --name 'a b'\"")


@pytest.mark.parametrize(("count", "shown"), [
    (2, "job 7.pbs on 2 node(s): n0 n1, run directory /r"),
    (4, "job 7.pbs on 4 node(s): n0 n1 n2 n3, run directory /r"),
    (40, "job 7.pbs on 40 node(s): n0 n1 n2 n3 ... (40 in all), run directory /r"),
])
def test_the_first_line_names_the_first_four_nodes_and_the_count(count, shown) -> None:
    assert first_line("7.pbs", [f"n{i}" for i in range(count)], "/r") == shown


def wait_for(flag: list, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not flag and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(flag)


@pytest.fixture
def usr1_caught():
    """SIGUSR1 recorded (into the list) instead of ending pytest; the handler before it put back after."""
    caught: list[int] = []
    before = signal.signal(signal.SIGUSR1, lambda number, frame: caught.append(number))
    yield caught
    signal.signal(signal.SIGUSR1, before)


def test_the_timer_sends_this_process_usr1_after_its_delay(usr1_caught) -> None:
    started = time.monotonic()
    usr1_timer(0.3, os.getpid())
    assert wait_for(usr1_caught, 10) and time.monotonic() - started >= 0.3


def test_a_cancelled_timer_sends_nothing_and_leaves_no_thread(usr1_caught) -> None:
    timer = usr1_timer(0.3, os.getpid())
    timer.cancel()
    timer.join(5)
    assert not timer.is_alive() and not wait_for(usr1_caught, 0.6)


def pbs_job_facts(tmp_path: Path, monkeypatch, **knobs: str) -> Job:
    """A PBS Job whose knobs are resolved (DRY_RUN=0 unless KNOBS say otherwise), its lines captured by capsys."""
    job = Job("gh200-pbs.sh", PBS)
    job.knobs = {"DRY_RUN": "0", "RUN_DIR": str(tmp_path / "run"), "RUN_DIR_MODE": "700", **knobs}
    monkeypatch.chdir(tmp_path)
    return job


def stand_in(bin_dir: Path, name: str, text: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / name).write_text(text)
    (bin_dir / name).chmod(0o755)


def with_qstat(tmp_path: Path, monkeypatch, text: str) -> None:
    """A `qstat` first in PATH that prints TEXT for `qstat -f 7.pbs`."""
    (tmp_path / "qstat-f.txt").write_text(text)
    stand_in(tmp_path / "bin", "qstat", f'#!/bin/sh\n[ "$1 $2" = "-f 7.pbs" ] && cat "{tmp_path}/qstat-f.txt"\n')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")


def test_the_jobs_timer_takes_the_walltime_from_qstat_less_the_margin(tmp_path, monkeypatch, capsys) -> None:
    with_qstat(tmp_path, monkeypatch, qstat_f("7.pbs", {"Resource_List.walltime": "00:10:00"}))
    monkeypatch.delenv("WALLTIME_S", raising=False)
    monkeypatch.setenv("PREEMPT_MARGIN_S", "60")
    timer = PBS.arm_timer(pbs_job_facts(tmp_path, monkeypatch), "7.pbs")
    try:
        assert timer is not None and timer.is_alive()
    finally:
        timer.cancel()
    out = capsys.readouterr().out
    assert "] USR1 in 540s (walltime 600s minus 60s margin) for a snapshot before the limit\n" in out, out


def test_without_a_walltime_the_job_arms_no_timer_and_says_how_to_set_one(tmp_path, monkeypatch, capsys) -> None:
    with_qstat(tmp_path, monkeypatch, "")
    monkeypatch.delenv("WALLTIME_S", raising=False)
    assert PBS.arm_timer(pbs_job_facts(tmp_path, monkeypatch), "7.pbs") is None
    assert "no snapshot before the limit; WALLTIME_S=SECONDS sets it" in capsys.readouterr().out


def test_a_dry_run_arms_no_walltime_timer(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("WALLTIME_S", "3600")
    assert PBS.arm_timer(pbs_job_facts(tmp_path, monkeypatch, DRY_RUN="1"), "7.pbs") is None
    assert "] DRY_RUN=1: no walltime timer\n" in capsys.readouterr().out


def test_a_walltime_s_that_is_no_number_stops_the_job_in_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WALLTIME_S", "1h")
    with pytest.raises(UsageError) as raised:
        PBS.arm_timer(pbs_job_facts(tmp_path, monkeypatch), "7.pbs")
    assert str(raised.value) == "WALLTIME_S=1h must be whole seconds; example: WALLTIME_S=3600 PREEMPT_MARGIN_S=90"


@pytest.mark.parametrize("knob, value", [("PREEMPT_MARGIN_S", "abc"), ("WALLTIME_S", "2h"), ("WALLTIME_S", "-5")])
def test_a_dry_run_refuses_a_timer_knob_that_is_not_whole_seconds(tmp_path, knob, value) -> None:
    """The real job reads them only when its timer is armed, before the launch check; its dry run refuses them."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DRY_RUN": "1", "IMAGE": "none", knob: value}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (2, f"gh200-pbs.sh: error: {knob}={value} must be whole seconds; "
                                                     "example: WALLTIME_S=3600 PREEMPT_MARGIN_S=90\n")
    assert "step:" not in result.stdout


def test_the_timer_counts_the_seconds_the_job_has_run(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("WALLTIME_S", "600")
    monkeypatch.setenv("PREEMPT_MARGIN_S", "90")
    job = pbs_job_facts(tmp_path, monkeypatch)
    job.started_at -= 30  # the job program started 30 s ago
    PBS.arm_timer(job, "7.pbs").cancel()
    assert "] USR1 in 480s (walltime 600s minus 90s margin)" in capsys.readouterr().out


ALLOC = Allocated("7.pbs", "/submit", "", ("node1.example.org", "node2.example.org"))


@pytest.mark.parametrize("launcher", ["", "mpiexec"])
def test_pals_mpiexec_starts_one_torchrun_per_node_that_meets_on_the_head(tmp_path, monkeypatch, launcher) -> None:
    monkeypatch.setenv("LAUNCHER", launcher)
    job = pbs_job_facts(tmp_path, monkeypatch, RDZV_PORT="29555", RDZV_HOST="127.0.0.1", RDZV_IFACES="hsn0")
    launch = PBS.launch(job, ALLOC, "train", 4)
    per_node = ["mpiexec", "-n", "2", "--ppn", "1", "--cpu-bind", "none"]
    assert (launch.step, launch.per_node, launch.launcher, launch.rdzv_host) == ("torchrun", per_node, per_node,
                                                                                 "127.0.0.1")


def test_the_pbsdsh_launcher_is_this_checkouts_pbsdsh_run_with_the_jobs_facts(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LAUNCHER", "pbsdsh")
    monkeypatch.setenv("PBS_NODEFILE", "/var/spool/pbs/aux/7.pbs")
    job = pbs_job_facts(tmp_path, monkeypatch, RDZV_PORT="29555", RDZV_HOST="127.0.0.1", RDZV_IFACES="hsn0",
                        RUN_DIR_MODE="750")
    launch = PBS.launch(job, ALLOC, "train", 4)
    assert launch.per_node == launch.launcher
    assert launch.per_node[:4] == [sys.executable, "-I", "-S", "-c"] and launch.per_node[5:] == [
        str(REPO), "app.host.launch", "--script=gh200-pbs.sh", "pbsdsh-run", f"--run-dir={tmp_path}/run",
        "--run-dir-mode=750", "--job-id=7.pbs", "--nodefile=/var/spool/pbs/aux/7.pbs", "--"]
    # Nothing is made before the launcher runs: pbsdsh-run makes RUN_DIR private itself
    assert not (tmp_path / "run").exists()


def test_an_mpi_setting_you_made_is_kept_and_said_so(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("LAUNCHER", "mpiexec")
    monkeypatch.setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "cma")
    PBS.launch(pbs_job_facts(tmp_path, monkeypatch, RDZV_PORT="29555"), ALLOC, "nccl-tests", 4)
    assert os.environ["OMPI_MCA_btl_vader_single_copy_mechanism"] == "cma"  # noqa: SIM112 (Open MPI's name)
    assert "keeping OMPI_MCA_btl_vader_single_copy_mechanism=cma (set by you)" in capsys.readouterr().out


def test_nccl_tests_are_one_mpi_rank_per_gpu_through_pals_and_need_no_rendezvous(tmp_path, monkeypatch,
                                                                                capsys) -> None:
    monkeypatch.setenv("LAUNCHER", "mpiexec")
    # Set, then unset: monkeypatch then takes back what the launch exports
    monkeypatch.setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "")
    monkeypatch.delenv("OMPI_MCA_btl_vader_single_copy_mechanism")
    launch = PBS.launch(pbs_job_facts(tmp_path, monkeypatch, RDZV_PORT="29555"), ALLOC, "nccl-tests", 4)
    assert (launch.step, launch.rdzv_host) == ("mpi", "")
    assert launch.launcher == ["mpiexec", "-n", "8", "--ppn", "4", "--pmi=pmix", "--cpu-bind", "none"]
    assert os.environ["OMPI_MCA_btl_vader_single_copy_mechanism"] == "none"  # noqa: SIM112 (Open MPI's name)
    out = capsys.readouterr().out
    assert "setting OMPI_MCA_btl_vader_single_copy_mechanism=none (no CMA across" in out and "rendezvous" not in out


def test_the_pbs_side_starts_nothing_at_import() -> None:
    """A module of the job host: importing it arms no timer and reads no variable (the 3.6 rules: test_import_rules)."""
    assert pbs_job.PBS.name == "pbs"


# ------------------------------------------------------------------------ the whole job, as qsub starts it


#: PALS mpiexec's stand-in: records its words (and beside them the store's secret the nodes get), then acts as a
#: node whose wrapper saw the stop file (STOP_WAIT=1: it waits for it and records 75, the snapshot's code, and
#: mpiexec reports 143 over it) or a node that ends at once with MPIEXEC_RC
MPIEXEC = """#!/bin/bash
printf '%s\\0' "$@" >"$MPIEXEC_CALLS"
printf '%s' "${DDP_STORE_SECRET-}" >"$MPIEXEC_CALLS.secret"
while [[ $1 != ddp-node ]]; do shift; done
stop=$2
if [[ ${STOP_WAIT:-0} == 1 ]]; then
    until [[ -e $stop ]]; do sleep 0.05; done
    printf '75\\n' >"$stop.codes/node1.1"
    exit 143
fi
exit "${MPIEXEC_RC:-0}"
"""


def fake_pbs_job(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A two-node PBS job (id 7.pbs) of stand-ins: mpiexec, qstat (-f 7.pbs shows the OLIVIA submission), qsub
    (records its words and the environment it runs in, which -V hands to the next job), getent (every name
    resolves), torchrun; the environment PBS starts gh200-pbs.sh in (qsub passes no arguments: WORKLOAD), plus
    EXTRA."""
    bin_dir = tmp_path / "bin"
    (tmp_path / "qstat-f.txt").write_text(qstat_f("7.pbs", OLIVIA))
    for name, text in (("mpiexec", MPIEXEC), ("getent", "#!/bin/sh\nexit 0\n"),
                       ("torchrun", "#!/bin/sh\nexit 0\n"),
                       ("qstat", f'#!/bin/sh\n[ "$1 $2" = "-f 7.pbs" ] && cat "{tmp_path}/qstat-f.txt"\n'),
                       ("qsub", f'#!/bin/sh\nprintf "%s\\n" "$@" >"{tmp_path}/qsub.calls"\n'
                                f'env -0 >"{tmp_path}/qsub.env"\n')):
        stand_in(bin_dir, name, text)
    (tmp_path / "nodefile").write_text("node1\nnode1\nnode2\nnode2\n")
    (tmp_path / "my_script.py").write_text("print('mine')\n")
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "PBS_JOBID": "7.pbs",
            "PBS_NODEFILE": str(tmp_path / "nodefile"), "PBS_O_WORKDIR": str(tmp_path),
            "DDP_JOBSCRIPTS": str(REPO / "jobscripts"), "IMAGE": "none", "PREFLIGHT": "0", "LAUNCH_CHECK": "0",
            "FABRIC": "none", "GPUS_PER_NODE": "1", "RDZV_HOST": "127.0.0.1",
            "MPIEXEC_CALLS": str(tmp_path / "mpiexec.calls"), "WORKLOAD": "my_script.py --name 'a b'", **extra}


def test_the_walltime_timer_stops_the_workload_and_the_job_resubmits_itself_with_75(tmp_path: Path) -> None:
    """PBS has no sbatch --signal: the job's own timer sends it USR1 PREEMPT_MARGIN_S before the walltime (92 s
    with a 90 s margin: 2 s in), the node's 75 wins over mpiexec's 143, and qsub submits the job again as it was."""
    env = fake_pbs_job(tmp_path, WALLTIME_S="92", PREEMPT_MARGIN_S="90", STOP_WAIT="1")
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    out = result.stdout
    assert result.returncode == 75, out[-3000:] + result.stderr[-3000:]
    assert "] job 7.pbs on 2 node(s): node1 node2, run directory" in out
    assert re.search(r"\] USR1 in [12]s \(walltime 92s minus 90s margin\) for a snapshot before the limit\n", out)
    assert "] got SIGUSR1: asking the training processes on every node to snapshot and stop" in out
    assert "] step finished with exit code 75 after SIGUSR1" in out
    assert "] requeueing job 7.pbs; it resumes from the newest snapshot in" in out
    assert (tmp_path / "qsub.calls").read_text().splitlines() == [
        "-A", "ehpc00", "-q", "blanca", "-N", "ddp", "-l", "place=scatter:excl",
        "-l", "select=16:ncpus=72:ngpus=4:mpiprocs=4:sales_op=blanca", "-l", "walltime=72:00:00",
        "-V", "-W", "depend=afterany:7.pbs", f"{REPO}/jobscripts/gh200-pbs.sh"]
    words = (tmp_path / "mpiexec.calls").read_text().split("\0")[:-1]
    assert words[:6] == ["-n", "2", "--ppn", "1", "--cpu-bind", "none"]
    assert words[-3:] == ["my_script.py", "--name", "a b"]


def passed_on_by_qsub(tmp_path: Path) -> dict[str, str]:
    """The environment the stand-in qsub ran in: with -V, the next job's Variable_List (qsub.1B)."""
    pairs = (tmp_path / "qsub.env").read_text().split("\0")[:-1]
    return dict(pair.split("=", 1) for pair in pairs)


def test_a_resubmitted_job_gets_no_store_secret_and_makes_its_own(tmp_path: Path) -> None:
    """qsub -V writes the environment qsub runs in into the next job's Variable_List, which `qstat -f` shows to other
    users where the server lets them, and the next job would keep a secret found there as set by you: a value sealed
    in this job's store would open in the next one's. The resubmission leaves it behind; the next job, started as
    PBS starts it (that environment, its own PBS_JOBID), makes a fresh one and resumes in the same run directory."""
    env = fake_pbs_job(tmp_path, WALLTIME_S="92", PREEMPT_MARGIN_S="90", STOP_WAIT="1")
    first = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 75, first.stdout[-3000:] + first.stderr[-3000:]
    first_secret = (tmp_path / "mpiexec.calls.secret").read_text()
    passed_on = passed_on_by_qsub(tmp_path)
    assert "DDP_STORE_SECRET" not in passed_on
    assert not [name for name, value in passed_on.items() if first_secret in value]
    assert passed_on["RUN_DIR"] == f"{tmp_path}/runs/7.pbs"
    second = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")],
                            env={**passed_on, "PBS_JOBID": "8.pbs"}, cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert second.returncode == 75, second.stdout[-3000:] + second.stderr[-3000:]
    assert f"] job 8.pbs on 2 node(s): node1 node2, run directory {tmp_path}/runs/7.pbs\n" in second.stdout
    assert "DDP_STORE_SECRET" not in second.stdout
    second_secret = (tmp_path / "mpiexec.calls.secret").read_text()
    assert len(second_secret) == 32 and second_secret != first_secret
    assert "DDP_STORE_SECRET" not in passed_on_by_qsub(tmp_path)


def test_a_step_that_ends_first_cancels_the_timer_and_the_job_ends_at_once(tmp_path: Path) -> None:
    """An hour's walltime, a step that ends at once: the job ends with the step's code, not an hour later."""
    env = fake_pbs_job(tmp_path, WALLTIME_S="3600", MPIEXEC_RC="3")
    started = time.monotonic()
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]
    assert "] USR1 in 3" in result.stdout and "] step finished with exit code 3\n" in result.stdout
    assert time.monotonic() - started < 60 and not (tmp_path / "qsub.calls").exists()


def test_a_bad_workload_stops_the_job_in_one_line_with_the_scripts_name(tmp_path: Path) -> None:
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")],
                            env=fake_pbs_job(tmp_path, WORKLOAD="train.py 'a"), cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("gh200-pbs.sh: error: WORKLOAD=train.py 'a: no closing quotation;")
    assert "Traceback" not in result.stderr and "step:" not in result.stdout


def test_the_whole_job_runs_on_the_batch_hosts_python_3_6_under_a_c_locale(tmp_path: Path) -> None:
    """SLES 15's python3 (3.6) is the one `exec python3` finds there, and a batch job may have no LANG: the timer,
    the stop, the resubmission and a workload word with an é all the same."""
    from tests.test_login_tools import login_python

    old = login_python()
    if old is None:
        pytest.skip("no Python 3.6 here: set LOGIN_PYTHON to one (e.g. pyenv install 3.6)")
    env = fake_pbs_job(tmp_path, WALLTIME_S="92", PREEMPT_MARGIN_S="90", STOP_WAIT="1",
                       WORKLOAD="my_script.py --name 'caf\u00e9 b'")
    (tmp_path / "bin" / "python3").symlink_to(old)
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 75, result.stdout[-3000:] + result.stderr[-3000:]
    assert "] step finished with exit code 75 after SIGUSR1" in result.stdout
    assert (tmp_path / "mpiexec.calls").read_text().split("\0")[-2] == "caf\u00e9 b"
    assert (tmp_path / "qsub.calls").read_text().splitlines()[-1] == f"{REPO}/jobscripts/gh200-pbs.sh"
