"""The job scripts read words from settings and files without letting bash expand them: no file name globbing
(a `*` in a setting stays a `*` whatever files the submit directory holds), no arithmetic on a file's content
(bash evaluates `a[$(cmd)]` inside `(( ))`), quotes in WORKLOAD kept, paths with spaces kept whole."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.host.launch.job_parts import REPO, job_parts
from tests.host.launch.test_job_parts import NODE_WRAPPER, head_node_bin, rdzv  # noqa: F401  (a fixture)
from tests.jobscripts.test_jobscripts_pbs import PBSDSH, node_file, pbsdsh_launcher, stub, through_pbsdsh


def test_extra_env_values_are_not_globbed(tmp_path: Path) -> None:
    (tmp_path / "NCCL_DEBUG_SUBSYS=planted").touch()
    result = job_parts([], {"EXTRA_ENV": "NCCL_DEBUG_SUBSYS=*"}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.env["NCCL_DEBUG_SUBSYS"] == "*"


def test_rdzv_ifaces_are_not_globbed(head_node_bin: Path, tmp_path: Path) -> None:  # noqa: F811
    """A file named ib0 in the submit directory must not turn RDZV_IFACES='i?0' into the interface ib0."""
    (tmp_path / "ib0").touch()
    result = rdzv(head_node_bin, cwd=tmp_path, HOME=str(tmp_path), RDZV_IFACES="i?0")
    assert result.returncode == 0, result.stderr
    assert "host=node1 " in result.stdout, result.stdout


def test_a_tasks_exit_code_file_is_never_evaluated_as_code(tmp_path: Path) -> None:
    """pbsdsh's launcher reads each node's exit code from a file: `((status > rc))` would run a command
    written there as an array subscript. A code that is not a number counts as a failed node."""
    marker = tmp_path / "ran"
    pbsdsh = PBSDSH.replace('index=$2\n', f'index=$2\necho \'PATH[$(touch {marker})]\' >"${{10}}.rc"; exit 0\n')
    stub(tmp_path / "bin", "pbsdsh", pbsdsh)
    job = {"PBS_NODEFILE": str(node_file(tmp_path / "nodefile", "node1.example.org", "node2.example.org")),
           "PBS_JOBID": "7.pbs", "RUN_DIR": str(tmp_path / "run"), "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
           "PBSDSH_CALLS": str(tmp_path / "calls"), "JOB_OUTPUT": str(tmp_path / "job.out"), "LAUNCHER": "pbsdsh",
           "FABRIC": "none"}
    result = through_pbsdsh(pbsdsh_launcher(job, tmp_path), "true", tmp_path)
    assert not marker.exists(), "an exit-code file's content ran as a command"
    assert result.returncode == 1, result.stdout + result.stderr


def test_workload_keeps_quoted_arguments_whole(tmp_path: Path) -> None:
    """qsub -v WORKLOAD="train.py --name 'a b'": the quotes group, as on a command line."""
    (tmp_path / "train.py").write_text("print('hello')\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "DRY_RUN_NODES": "gpu01,gpu02",
           "WORKLOAD": "train.py --name 'a b' *"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    # the workload's step: the preflight's comes first (tests/jobscripts/test_dry_run_plan.py)
    step = next(line for line in result.stdout.splitlines() if "] step: " in line and "--preflight" not in line)
    assert r"train.py --name a\ b \*" in step, step


def test_a_submitted_script_path_with_spaces_finds_its_checkout(tmp_path: Path) -> None:
    """sbatch runs a spool copy of the script; it finds its checkout above the submitted file, which `scontrol
    show job` names on its `Command=` line, spaces and all."""
    project = tmp_path / "my project"
    shutil.copytree(REPO / "jobscripts", project / "jobscripts")
    for package in ("common", "host"):  # the node wrapper; the job's plan and the fabric policy
        shutil.copytree(REPO / "app" / package, project / "app" / package, ignore=shutil.ignore_patterns("__pycache__"))
    spool = tmp_path / "spool"
    spool.mkdir()
    shutil.copy(REPO / "jobscripts" / "slurm.sh", spool / "slurm_script")
    submitted = project / "jobscripts" / "slurm.sh"
    # scontrol show job as Slurm prints it: one field a line, `-o` puts them on one line, space-separated
    stub(tmp_path / "bin", "scontrol",
         "#!/bin/bash\n"
         f'fields=("JobId=42 JobName=ddp" "Command={submitted}" "WorkDir={project}")\n'
         'if [[ $1 == show && $2 == hostnames ]]; then echo node1; exit 0; fi\n'
         'if [[ " $* " == *" -o "* ]]; then echo "${fields[*]}"; else printf "   %s\\n" "${fields[@]}"; fi\n')
    env = {"PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "HOME": str(tmp_path), "SLURM_JOB_ID": "42",
           "SLURM_JOB_NODELIST": "node1", "SLURM_JOB_NUM_NODES": "1", "DRY_RUN": "1"}
    result = subprocess.run(["bash", str(spool / "slurm_script")], env=env, cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert "job 42 on node1" in result.stdout, result.stdout + result.stderr


def test_the_node_wrappers_policy_list_is_not_globbed(tmp_path: Path) -> None:
    """The wrapper sources the first readable file of a colon-separated list: a `*` in it matches nothing."""
    (tmp_path / "policy-planted.env").write_text("export PLANTED=1\n")
    result = subprocess.run(["sh", "-c", NODE_WRAPPER, "ddp-node", f"{tmp_path}/no-stop", "",
                             f"{tmp_path}/pol*:/nonexistent", "env"], env={"PATH": os.environ["PATH"]}, cwd=tmp_path,
                            capture_output=True, text=True, timeout=30)
    assert "PLANTED=1" not in result.stdout
    assert "no fabric policy readable" in result.stderr


def test_a_workload_with_an_unbalanced_quote_stops_in_one_line(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DRY_RUN": "1", "WORKLOAD": "train.py --name 'a b"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "gh200-pbs.sh")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "quote" in result.stderr and "example: WORKLOAD=" in result.stderr
