"""The batch host's steps of a job that app.launch runs itself: the allocation (allocation.py), the requeue
(requeue.py), the host's checks of your python and the image (host_checks.py), the trainer's config check
(config_check.py), the settings exported only where you set none (env_defaults.py) and nccl-tests' MPI ranks
(mpi_ranks.py). The scheduler's commands are stand-ins on PATH that record their arguments."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from app.host.common.errors import UsageError
from app.host.launch import allocation, config_check, host_checks, mpi_ranks, requeue
from app.host.launch.checkout import REPO
from app.host.launch.cli import main
from app.host.launch.env_defaults import env_defaults
from tests.host.launch.job_parts import job_parts


@pytest.fixture
def bin_dir(tmp_path, monkeypatch) -> Path:
    """A directory first on PATH for stand-in commands."""
    found = tmp_path / "bin"
    found.mkdir()
    monkeypatch.setenv("PATH", f"{found}:/usr/bin:/bin")
    return found


def stand_in(bin_dir: Path, name: str, body: str) -> Path:
    """An executable NAME in BIN_DIR: a sh script that appends `NAME ARGS` to bin_dir/calls, then runs BODY."""
    path = bin_dir / name
    path.write_text(f'#!/bin/sh\necho "{name} $*" >>"{bin_dir}/calls"\n{body}\n')
    path.chmod(0o755)
    return path


def calls(bin_dir: Path) -> list[str]:
    return (bin_dir / "calls").read_text().splitlines() if (bin_dir / "calls").exists() else []


@pytest.fixture
def signals_restored():
    """The requeue ignores TERM and USR1 in its own process: this one's handlers come back afterwards."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGUSR1)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


# allocation.py

def test_dry_run_outside_a_job_plans_for_the_nodes_and_gpus_you_name():
    found = allocation.allocation("slurm", "slurm.sh", {"DRY_RUN": "1", "DRY_RUN_NODES": "gpu01 gpu02,gpu03",
                                                        "GPUS_PER_NODE": "8"}, "/home/me")
    assert found == allocation.Allocation(
        "dry-run", "/home/me", "8", ["gpu01", "gpu02", "gpu03"],
        "DRY_RUN=1 outside a job: planning for 3 node(s) (gpu01 gpu02 gpu03; DRY_RUN_NODES) with 8 GPU(s) each "
        "(GPUS_PER_NODE); nothing runs")
    assert allocation.allocation("pbs", "gh200-pbs.sh", {"DRY_RUN": "1"}, "/w")[2:4] == ("4", ["node1", "node2"])


def test_dry_run_nodes_that_name_no_node_get_an_example():
    with pytest.raises(UsageError) as raised:
        allocation.allocation("slurm", "slurm.sh", {"DRY_RUN": "1", "DRY_RUN_NODES": " , "}, "/w")
    assert str(raised.value) == "DRY_RUN_NODES is empty; example: DRY_RUN_NODES=gpu01,gpu02"


@pytest.mark.parametrize(("scheduler", "script", "env", "line"), [
    ("slurm", "slurm.sh", {}, "slurm.sh: error: not inside a Slurm job; submit it: sbatch [site flags] "
     "jobscripts/slurm.sh [train [key=value ...] | check | SCRIPT.py ARGS] (or see what it would run: DRY_RUN=1 "
     "DRY_RUN_NODES=node1,node2 bash jobscripts/slurm.sh)"),
    ("pbs", "gh200-pbs.sh", {"PBS_JOBID": "7.pbs"}, "gh200-pbs.sh: error: not inside a PBS job (PBS_JOBID/"
     "PBS_NODEFILE unset); submit it: qsub -A PROJECT -q QUEUE [-v WORKLOAD=check] jobscripts/gh200-pbs.sh (or see "
     "what it would run: DRY_RUN=1 DRY_RUN_NODES=node1,node2 bash jobscripts/gh200-pbs.sh)"),
])
def test_outside_a_job_the_job_says_how_to_submit_in_one_line_exit_2(monkeypatch, capsys, scheduler, script, env,
                                                                      line):
    for name in ("SLURM_JOB_ID", "PBS_JOBID", "PBS_NODEFILE", "DRY_RUN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["--script", script, "job", f"--scheduler={scheduler}"]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [line] and captured.out == ""


def test_a_slurm_job_s_nodes_come_from_scontrol_show_hostnames_head_first(bin_dir):
    stand_in(bin_dir, "scontrol", 'printf "gpu07\\ngpu03\\n"')
    found = allocation.allocation("slurm", "slurm.sh", {"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": "gpu[07,03]",
                                                        "SLURM_SUBMIT_DIR": "/home/me", "SLURM_GPUS_ON_NODE": "4"},
                                  "/elsewhere")
    assert found == allocation.Allocation("42", "/home/me", "4", ["gpu07", "gpu03"], "")
    assert calls(bin_dir) == ["scontrol show hostnames gpu[07,03]"]


def test_scontrol_that_fails_or_is_missing_is_named_with_its_own_words(bin_dir, monkeypatch):
    env = {"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": "gpu[1-2]"}
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(UsageError) as missing:
        allocation.allocation("slurm", "slurm.sh", env, "/w")
    assert str(missing.value) == ("scontrol cannot run (No such file or directory); the job scripts need Slurm's "
                                  "commands in PATH on the batch host")
    stand_in(bin_dir, "scontrol", 'echo "scontrol: error: Invalid node name specified" >&2; exit 1')
    with pytest.raises(UsageError) as failed:
        allocation.allocation("slurm", "slurm.sh", env, "/w")
    assert str(failed.value) == ("scontrol show hostnames gpu[1-2] failed (exit 1): scontrol: error: Invalid node "
                                 "name specified")


def test_scontrol_s_several_error_lines_become_one_line(bin_dir):
    """scontrol that cannot reach slurmctld says so in several lines (seen: res_nsearch, fetch_config, fatal)."""
    stand_in(bin_dir, "scontrol", 'printf "scontrol: error: fetch_config: DNS SRV lookup failed\\nscontrol: fatal: '
             'Could not establish a configuration source\\n" >&2; exit 1')
    with pytest.raises(UsageError) as failed:
        allocation.allocation("slurm", "slurm.sh", {"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": "gpu[1-2]"}, "/w")
    assert "\n" not in str(failed.value), str(failed.value)
    assert "scontrol: fatal: Could not establish a configuration source" in str(failed.value)


def test_a_pbs_job_s_nodes_come_from_its_node_file_once_each_in_order(bin_dir, tmp_path):
    stand_in(bin_dir, "getent", "exit 0")
    (tmp_path / "nodefile").write_text("x1000c0s0b0n0\n" * 4 + "x1000c0s1b0n0\n" * 4)
    found = allocation.allocation("pbs", "gh200-pbs.sh", {"PBS_JOBID": "7.pbs", "PBS_NODEFILE": str(tmp_path /
                                                                                                  "nodefile"),
                                                          "PBS_O_WORKDIR": "/home/me"}, "/elsewhere")
    assert found == allocation.Allocation("7.pbs", "/home/me", "", ["x1000c0s0b0n0", "x1000c0s1b0n0"], "")


# requeue.py

def test_a_slurm_requeue_without_nodes_to_leave_out_only_requeues(bin_dir, signals_restored):
    stand_in(bin_dir, "scontrol", "")
    said = []
    requeue.requeue(said.append, "t.sh", "slurm", "42", [], "/runs/42", "/jobs/slurm.sh", {})
    assert calls(bin_dir) == ["scontrol requeue 42"] and said == []


def test_a_slurm_requeue_adds_the_nodes_to_the_exclude_list_the_job_had(bin_dir, signals_restored):
    stand_in(bin_dir, "scontrol", 'case "$1 $2" in "show job") echo "JobId=42 ExcNodeList=(null) Partition=gpu";; '
             "esac")
    said = []
    requeue.requeue(said.append, "t.sh", "slurm", "42", ["node2", "node7"], "/runs/42", "/jobs/slurm.sh", {})
    assert calls(bin_dir) == ["scontrol show job -o 42", "scontrol requeue 42",
                              "scontrol update JobId=42 ExcNodeList=node2,node7"]
    assert said == ["requeued job 42 without node2,node7; it resumes from the newest snapshot in /runs/42"]


def test_an_exclude_list_slurm_refuses_is_a_warning_the_requeue_stands(bin_dir, signals_restored):
    stand_in(bin_dir, "scontrol", '[ "$1" = update ] && exit 1; [ "$1" = show ] && echo "JobId=42 ExcNodeList=(null)"; '
             'exit 0')
    said = []
    requeue.requeue(said.append, "t.sh", "slurm", "42", ["node2"], "/runs/42", "/jobs/slurm.sh", {})
    assert said[0] == ("warning: could not leave out node2 (scontrol update ExcNodeList); the job may land on them "
                       "again")


def test_an_exclude_list_slurm_does_not_show_is_left_alone_and_the_log_says_how_to_extend_it(bin_dir,
                                                                                           signals_restored):
    """slurmctld busy: an update from what is known would drop the nodes the job excluded before."""
    stand_in(bin_dir, "scontrol", '[ "$1" = show ] && { echo "Socket timed out on send/recv operation" >&2; exit 1; }; '
             'exit 0')
    said = []
    requeue.requeue(said.append, "t.sh", "slurm", "42", ["node2"], "/runs/42", "/jobs/slurm.sh", {})
    assert calls(bin_dir) == ["scontrol show job -o 42", "scontrol requeue 42"]
    assert said == ["warning: could not read job 42's exclude list (scontrol show job failed), so it is left as it "
                    "was: the job may land on node2 again; to leave them out: scontrol update JobId=42 "
                    "ExcNodeList=<the list it has>,node2"]


def test_a_refused_requeue_says_how_to_resubmit_by_hand_without_the_nodes(bin_dir, signals_restored):
    stand_in(bin_dir, "scontrol", 'case "$1 $2" in "show job") echo "ExcNodeList=node[9-10]";; '
             '"show hostnames") printf "node9\\nnode10\\n";; requeue*) exit 1;; esac')
    with pytest.raises(UsageError) as raised:
        requeue.requeue(print, "t.sh", "slurm", "42", ["node2"], "/runs/42", "/jobs/slurm.sh", {})
    assert str(raised.value) == (
        "scontrol requeue 42 failed (submitted with --no-requeue?); resubmit by hand: sbatch "
        "--exclude=node9,node10,node2 --export=ALL,RUN_DIR=/runs/42 ... to resume from the newest snapshot")
    assert "scontrol update" not in " ".join(calls(bin_dir))


def test_the_requeue_s_own_signals_do_not_stop_the_exclude_list_that_follows(bin_dir, tmp_path):
    """`scontrol requeue` signals the batch script and its children (TERM, USR1): the bad-node requeue ignores both."""
    stand_in(bin_dir, "scontrol", '[ "$1" = requeue ] && kill -TERM $PPID && kill -USR1 $PPID; '
             '[ "$1" = show ] && echo "JobId=42 ExcNodeList=(null)"; exit 0')
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "nodes-to-exclude.txt").write_text("node2\n")
    result = job_parts(["bad-node-requeue"], {"RUN_DIR": f"{tmp_path}/run", "MAX_REQUEUES": "3"}, script="t.sh",
                       reason="hang")
    assert result.returncode == 75, result.stderr
    assert calls(bin_dir)[-2:] == ["scontrol requeue 42", "scontrol update JobId=42 ExcNodeList=node2"]


# host_checks.py

def python_stand_ins(bin_dir: Path) -> tuple[Path, Path]:
    """A python that imports this project and one that does not (their `-c 'import app.train'` exits 0 or 1)."""
    return stand_in(bin_dir, "good-python", "exit 0"), stand_in(bin_dir, "bad-python", "exit 1")


def torchrun_under(bin_dir: Path, python: Path) -> None:
    (bin_dir / "torchrun").write_text(f"#!{python}\nimport sys\n")
    (bin_dir / "torchrun").chmod(0o755)


def test_torchrun_s_workers_run_under_its_interpreter_line(bin_dir):
    good, _ = python_stand_ins(bin_dir)
    torchrun_under(bin_dir, good)
    assert host_checks.program_python("torchrun") == str(good)
    assert host_checks.program_python("good-python") == str(good)


def test_image_none_with_a_python_that_lacks_the_project_stops_train_with_the_install_line(bin_dir):
    _, bad = python_stand_ins(bin_dir)
    torchrun_under(bin_dir, bad)
    with pytest.raises(UsageError) as raised:
        host_checks.host_python_preflight("torchrun", "train", "1")
    assert str(raised.value) == (
        f"IMAGE=none runs {bad} from your environment, which cannot import this project and its packages "
        "(app, torch, yaml, numpy); "
        f"install it there ({bad} -m pip install -e {REPO}) or run in the image (IMAGE=/path/to/app.sif)")


def test_image_none_runs_your_own_script_without_the_preflight_it_cannot_run_and_says_so(bin_dir):
    good, bad = python_stand_ins(bin_dir)
    torchrun_under(bin_dir, bad)
    assert host_checks.host_python_preflight("torchrun", "script", "1") == (
        "0", f"no preflight: your environment's {bad} cannot import this project (app.check); your script runs "
        f"without it (to have it: {bad} -m pip install -e {REPO})")
    assert host_checks.host_python_preflight("torchrun", "script", "0") == ("0", "")
    torchrun_under(bin_dir, good)
    assert host_checks.host_python_preflight("torchrun", "train", "1") == ("1", "")


@pytest.mark.parametrize(("labels", "node_arch", "stopped"), [
    ("app.arch: x86_64\napp.version: 1\n", "aarch64", True),
    ("app.arch: aarch64\n", "aarch64", False),
    ("org.label-schema.build-date: today\n", "aarch64", False),  # an image of your own: no label, no check
])
def test_an_image_built_for_another_architecture_stops_before_any_rank(bin_dir, labels, node_arch, stopped):
    (bin_dir / "labels").write_text(labels)
    runtime = stand_in(bin_dir, "apptainer", f'cat "{bin_dir}/labels"')
    if not stopped:
        host_checks.check_image_arch(str(runtime), "/images/app.sif", {"DDP_NODE_ARCH": node_arch})
        return
    with pytest.raises(UsageError) as raised:
        host_checks.check_image_arch(str(runtime), "/images/app.sif", {"DDP_NODE_ARCH": node_arch})
    assert str(raised.value) == ("image /images/app.sif is built for x86_64 but this node is aarch64; build it with "
                                 "'make image ARCH=aarch64' and set IMAGE to it")
    assert calls(bin_dir) == ["apptainer inspect --labels /images/app.sif"]


def test_pmix_s_tmpfs_is_slurm_s_or_yours(bin_dir):
    stand_in(bin_dir, "scontrol", 'printf "SwitchType = (null)\\nTmpFS                   = /local/tmp\\n"')
    assert host_checks.slurm_tmpfs("slurm", {}) == "/local/tmp"
    assert host_checks.slurm_tmpfs("slurm", {"DDP_PMIX_TMPFS": "/dev/shm"}) == "/dev/shm"
    assert host_checks.slurm_tmpfs("pbs", {}) == ""
    (bin_dir / "scontrol").unlink()
    assert host_checks.slurm_tmpfs("slurm", {}) == ""


def test_mpi_confs_pmix_client_base_comes_before_tmpfs(bin_dir):
    """mpi/pmix makes the client directory under PMIxCliTmpDirBase (mpi.conf) where set, else TmpFS
    (src/plugins/mpi/pmix/pmixp_info.c); `scontrol show config` shows both, an unset one as (null)."""
    stand_in(bin_dir, "scontrol", 'printf "TmpFS                   = /local/tmp\\nMPI Plugins Configuration:\\n'
             'PMIxCliTmpDirBase       = /scratch/pmix\\n"')
    assert host_checks.slurm_tmpfs("slurm", {}) == "/scratch/pmix"
    stand_in(bin_dir, "scontrol", 'printf "TmpFS                   = /local/tmp\\nPMIxCliTmpDirBase       = (null)\\n"')
    assert host_checks.slurm_tmpfs("slurm", {}) == "/local/tmp"


# config_check.py

def config_checked(container: list[str], workload: list[str]) -> tuple[int, list[str]]:
    """The job's config check of train (two nodes of 4 processes, /images/app.sif) in CONTAINER; its code and lines."""
    said: list[str] = []
    return config_check.config_check(said.append, "train", "/images/app.sif", "apptainer", False, container, workload,
                                     2, 4), said


def test_train_s_config_is_checked_once_for_the_whole_world_and_its_failure_is_the_job_s_exit(bin_dir):
    runtime = stand_in(bin_dir, "apptainer", "exit 2")
    rc, said = config_checked([str(runtime), "exec", "/images/app.sif"], ["-m", "app.train", "run.steps=5"])
    assert rc == 2
    assert calls(bin_dir) == ["apptainer exec /images/app.sif python -m app.train run.steps=5 --dry-run --world-size "
                              "8 --nodes 2"]
    out = "\n".join(said)
    assert "config check: python -m app.train run.steps=5 --dry-run for 8 ranks" in out
    assert "the config check failed (exit 2; its line above says how to fix it): nothing was started" in out


def test_a_passing_config_check_lets_the_job_go_on(bin_dir):
    runtime = stand_in(bin_dir, "apptainer", "exit 0")
    assert config_checked([str(runtime)], ["-m", "app.train"])[0] == 0
    assert len(calls(bin_dir)) == 1


@pytest.mark.parametrize("kind", ["check", "nccl-tests", "script", "module"])
def test_only_train_has_a_config_to_check(bin_dir, kind):
    runtime = stand_in(bin_dir, "apptainer", "exit 2")
    assert config_check.config_check(print, kind, "/images/app.sif", str(runtime), False, [str(runtime)],
                                     ["x.py"], 2, 4) == 0
    assert calls(bin_dir) == []


def test_a_dry_run_without_the_image_here_skips_the_check_and_says_why(bin_dir, tmp_path):
    said = []
    assert config_check.config_check(said.append, "train", str(tmp_path / "no.sif"), "apptainer", True, [],
                                     ["-m", "app.train"], 2, 4) == 0
    assert said == [f"DRY_RUN=1: no config check here (no image {tmp_path}/no.sif or no apptainer)"]


def test_image_none_with_a_python_that_lacks_the_project_skips_the_check(bin_dir):
    stand_in(bin_dir, "python", "exit 1")
    said = []
    assert config_check.config_check(said.append, "train", "none", "apptainer", False, [], ["-m", "app.train"], 2,
                                     4) == 0
    assert said == ["no config check: the python in PATH cannot import this project"]
    assert calls(bin_dir) == [f"python -c {host_checks.HAS_THE_PROJECT}"]


# env_defaults.py

def test_a_default_is_exported_only_where_you_set_none_and_the_log_says_which():
    said = []
    exports = env_defaults(said.append, {"NCCL_DEBUG": "", "MASTER_PORT": "29500"}, [
        ("NCCL_DEBUG", "WARN", "why not"), ("MASTER_ADDR", "node1", "rank 0's address"),
        ("MASTER_PORT", "29400", "rank 0's port")])
    assert exports == ["MASTER_ADDR=node1"]
    assert said == ["keeping NCCL_DEBUG= (set by you)", "setting MASTER_ADDR=node1 (rank 0's address)",
                    "keeping MASTER_PORT=29500 (set by you)"]


# mpi_ranks.py

@pytest.mark.parametrize(("kind", "gpus_per_task", "names"), [
    ("train", "1", []),
    ("nccl-tests", "", ["OMPI_MCA_btl_vader_single_copy_mechanism"]),
    ("nccl-tests", "1", ["OMPI_MCA_btl_vader_single_copy_mechanism", "NCCL_TESTS_DEVICE"]),
])
def test_nccl_tests_ranks_get_copy_in_out_and_under_gpus_per_task_their_first_gpu(kind, gpus_per_task, names):
    defaults = mpi_ranks.mpi_rank_defaults(kind, gpus_per_task)
    assert [name for name, _, _ in defaults] == names
    assert all(value in ("none", "0") and why for _, value, why in defaults)


def test_srun_with_pmix_lets_nccl_tests_start(bin_dir):
    stand_in(bin_dir, "srun", 'printf "MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n\\tpmix\\nspecific pmix plugin '
             'versions available: pmix_v4\\n" >&2')
    mpi_ranks.require_pmix(4)
    assert calls(bin_dir) == ["srun --mpi=list"]


@pytest.mark.parametrize("listing", ['printf "MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n" >&2', None])
def test_without_slurm_s_pmix_nccl_tests_get_the_one_node_command(bin_dir, listing):
    if listing is not None:
        stand_in(bin_dir, "srun", listing)
    with pytest.raises(UsageError) as raised:
        mpi_ranks.require_pmix(4)
    message = str(raised.value)
    assert message.startswith("nccl-tests needs Slurm's PMIx plugin (srun --mpi=pmix) for the image's OpenMPI, and "
                              "srun --mpi=list does not list pmix here; ask your site for it, or run on one node: ")
    assert "-np 4" in message and "\n" not in message
