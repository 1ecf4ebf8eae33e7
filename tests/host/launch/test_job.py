"""The Slurm job as one program (app/host/launch/job.py), started the way sbatch starts it: `bash jobscripts/slurm.sh`
inside a job's environment, with stand-ins for Slurm's commands (the real cluster's tests:
tests/jobscripts/test_jobscripts_slurm.py and test_jobscripts_user_script.py)."""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.fixtures.other_user import needs_other_user_and_python, needs_shared_group, writable_by_a_group

REPO = Path(__file__).resolve().parents[3]

#: srun's stand-in: records its words, then acts as a node whose wrapper saw the stop file: it records 75 (the
#: snapshot's code) for its node and srun reports 143 over it, as --kill-on-bad-exit does
SRUN = """#!/bin/bash
printf '%s\\0' "$@" >"$SRUN_CALLS"
while [[ $1 != ddp-node ]]; do shift; done
stop=$2
until [[ -e $stop ]]; do sleep 0.05; done
printf '75\\n' >"$stop.codes/node1.1"
exit 143
"""
SCONTROL = """#!/bin/bash
echo "$*" >>"$SCONTROL_CALLS"
if [[ $1 == show && $2 == hostnames ]]; then printf 'node1\\nnode2\\n'; fi
"""


def stub(directory: Path, name: str, text: str) -> None:
    directory.mkdir(exist_ok=True)
    (directory / name).write_text(text)
    (directory / name).chmod(0o755)


def fake_slurm_job(tmp_path: Path, srun: str, **extra: str) -> dict[str, str]:
    """A two-node Slurm job (id 42) of stand-ins: SRUN as srun, scontrol and torchrun stubs, my_script.py in the
    submit directory; the environment slurm.sh starts in, plus EXTRA."""
    bin_dir = tmp_path / "bin"
    for name, text in (("srun", srun), ("scontrol", SCONTROL), ("torchrun", "#!/bin/sh\nexit 0\n")):
        stub(bin_dir, name, text)
    (tmp_path / "my_script.py").write_text("print('mine')\n")
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "SLURM_JOB_ID": "42",
            "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_SUBMIT_DIR": str(tmp_path), "SLURM_GPUS_ON_NODE": "1",
            "DDP_JOBSCRIPTS": str(REPO / "jobscripts"), "IMAGE": "none", "PREFLIGHT": "0", "LAUNCH_CHECK": "0",
            "FABRIC": "none", "SCONTROL_CALLS": str(tmp_path / "scontrol.calls"), **extra}


def test_usr1_during_the_workload_stops_it_requeues_the_job_and_ends_with_75(tmp_path: Path) -> None:
    env = fake_slurm_job(tmp_path, SRUN, SRUN_CALLS=str(tmp_path / "srun.calls"))
    job = subprocess.Popen(["bash", str(REPO / "jobscripts" / "slurm.sh"), "my_script.py", "--name", "a b"],
                           env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (tmp_path / "srun.calls").exists() and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    # sbatch --signal=B:USR1 signals the batch script's process: bash exec'd the job program in its place
    job.send_signal(signal.SIGUSR1)
    out, err = job.communicate(timeout=120)
    assert job.returncode == 75, out[-3000:] + err[-3000:]
    assert "] got SIGUSR1: asking the training processes on every node to snapshot and stop" in out
    assert "] step finished with exit code 75 after SIGUSR1" in out
    assert "] requeueing job 42; it resumes from the newest snapshot in" in out
    assert "requeue 42" in (tmp_path / "scontrol.calls").read_text()
    words = (tmp_path / "srun.calls").read_text().split("\0")[:-1]
    # srun's options, then on each node the CUDA check and the node wrapper (stop file, store's node, policy)
    assert words[:4] == ["--kill-on-bad-exit=1", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1"]
    assert words[4:6] == ["/bin/sh", "-c"] and words[7:10] == ["cuda-compat", "/bin/sh", "-c"]
    assert words[11:13] == ["ddp-node", f"{tmp_path}/runs/42/.stop-requested"]
    assert words[15:17] == ["torchrun", "--nnodes=2"] and words[-3:] == ["my_script.py", "--name", "a b"]
    step = next(line for line in out.splitlines() if "] step: " in line)
    assert step.endswith(r" my_script.py --name a\ b "), step


def test_outside_a_job_the_program_says_how_to_submit_it_in_one_line(tmp_path: Path) -> None:
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "mn5.sh")], env={"PATH": "/usr/bin:/bin",
                            "HOME": str(tmp_path)}, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("mn5.sh: error: not inside a Slurm job; submit it: sbatch")


@pytest.mark.parametrize("value", ["true", "yes", " 1"])
def test_a_dry_run_that_is_not_0_or_1_stops_a_job_before_any_step(tmp_path: Path, value: str) -> None:
    """DRY_RUN=true read as 0 inside an allocation (or through sbatch --export) would run the job for real."""
    calls = tmp_path / "srun.calls"
    env = fake_slurm_job(tmp_path, '#!/bin/sh\necho "$*" >>"$SRUN_CALLS"\n', SRUN_CALLS=str(calls), DRY_RUN=value)
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "my_script.py"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (
        2, f"slurm.sh: error: DRY_RUN={value} is not 0 or 1; example: DRY_RUN=1 (print the plan, run nothing)\n")
    assert not calls.exists() and not (tmp_path / "runs").exists() and "step:" not in result.stdout


def test_outside_a_job_a_dry_run_that_is_not_0_or_1_is_named_as_the_cause(tmp_path: Path) -> None:
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "mn5.sh")], env={"PATH": "/usr/bin:/bin",
                            "HOME": str(tmp_path), "DRY_RUN": "true"}, cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stderr) == (
        2, "mn5.sh: error: DRY_RUN=true is not 0 or 1; example: DRY_RUN=1 (print the plan, run nothing)\n")


def test_a_dry_run_refuses_a_check_site_the_nodes_would_refuse(tmp_path: Path) -> None:
    """A typo in CHECK_SITE stops app.check on every node of the real job: the head node names it, a dry run too."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DRY_RUN": "1", "IMAGE": "none", "CHECK_SITE": "mn55"}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "mn5.sh"), "check"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("mn5.sh: error: CHECK_SITE=mn55 is not one of app.check's profiles (mn5, ")
    assert "did you mean CHECK_SITE=mn5?" in result.stderr and "step:" not in result.stdout


def unsafe_run_dir(tmp_path: Path, case: str) -> Path:
    """A submit directory (tmp_path/proj) and the run directory the case gives it: one the job refuses."""
    proj = tmp_path / "proj"
    proj.mkdir()
    if case == "group-writable submit directory":
        writable_by_a_group(proj, 0o775)
        return proj / "runs" / "1"
    if case == "a parent others can write":
        (tmp_path / "shared").mkdir(mode=0o777)
        (tmp_path / "shared").chmod(0o777)
        return tmp_path / "shared" / "runs" / "1"
    (proj / "mine").mkdir()
    (proj / "mine").chmod(0o777)
    return proj / "mine"


@pytest.mark.parametrize("case", [pytest.param("group-writable submit directory", marks=needs_shared_group),
                                  "a parent others can write", "a run directory others can write"])
def test_a_dry_run_refuses_a_run_directory_the_job_would_refuse_and_makes_nothing(tmp_path: Path, case: str) -> None:
    """The real job refuses it only after waiting for its allocation: the dry run says the same line first."""
    from tests.host.launch.job_parts import job_parts

    run_dir = unsafe_run_dir(tmp_path, case)
    before = sorted(tmp_path.rglob("*"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DRY_RUN": "1", "IMAGE": "none", "RUN_DIR": str(run_dir)}
    planned = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh")], env=env, cwd=tmp_path / "proj",
                             capture_output=True, text=True, timeout=120)
    assert sorted(tmp_path.rglob("*")) == before, "the dry run made something"
    real = job_parts(["run-dir"], {"RUN_DIR": str(run_dir)}, cwd=tmp_path / "proj", script="slurm.sh")
    assert real.returncode == 2 and real.stderr.startswith(f"slurm.sh: error: RUN_DIR='{run_dir}' "), real.stderr
    assert (planned.returncode, planned.stderr) == (2, real.stderr)


@needs_other_user_and_python
def test_a_dry_run_refuses_a_run_directory_you_may_not_make() -> None:
    """A submit directory you may read but not write: the dry run passed, and the job stopped after its wait."""
    from tests.fixtures.other_user import OTHER_USER, SYSTEM_PYTHON, reachable_tmp, visible_repo

    theirs = reachable_tmp()  # root's, 0755: the other user may walk it, not write in it
    try:
        run_dir = theirs / "runs" / "1"
        command = ["env", "-i", "PATH=/usr/bin:/bin", f"PYTHONPATH={visible_repo(OTHER_USER)}",
                   "PYTHONDONTWRITEBYTECODE=1", "DRY_RUN=1",
                   "DRY_RUN_NODES=gpu01,gpu02", "GPUS_PER_NODE=4", "IMAGE=none", f"RUN_DIR={run_dir}",
                   str(SYSTEM_PYTHON), "-m", "app.launch", "--script=slurm.sh", "job", "--", "train"]
        planned = subprocess.run(["runuser", "-u", OTHER_USER, "--", *command], cwd=str(theirs), capture_output=True,
                                 text=True, timeout=120)
    finally:
        subprocess.run(["rm", "-rf", str(theirs)], check=True)
    assert planned.returncode == 2, planned.stdout[-2000:] + planned.stderr
    assert planned.stderr == (f"slurm.sh: error: RUN_DIR='{run_dir}' is not writable (you may not write in {theirs}); "
                              "example: RUN_DIR=$HOME/runs/exp1 (a directory an experiment: a job resumes from what "
                              "it finds there)\n")


def test_a_script_with_no_checkout_above_it_says_which_variable_finds_it(tmp_path: Path) -> None:
    (tmp_path / "jobscripts").mkdir()
    (tmp_path / "jobscripts" / "slurm.sh").write_text((REPO / "jobscripts" / "slurm.sh").read_text())
    result = subprocess.run(["bash", str(tmp_path / "jobscripts" / "slurm.sh")], env={"PATH": "/usr/bin:/bin",
                            "HOME": str(tmp_path)}, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert "set DDP_JOBSCRIPTS=/path/to/jobscripts" in result.stderr


def test_jobscripts_linked_into_your_project_start_the_job_of_their_checkout(tmp_path: Path) -> None:
    (tmp_path / "jobscripts").symlink_to(REPO / "jobscripts")
    (tmp_path / "my_train.py").write_text("print('mine')\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DRY_RUN": "1", "IMAGE": "none"}
    result = subprocess.run(["bash", "jobscripts/slurm.sh", "train"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"] PYTHONPATH: {REPO} first (the workers import this checkout's app)" in result.stdout, result.stdout


def planned_step(tmp_path: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """`DRY_RUN=1 bash jobscripts/slurm.sh ARGS` inside a job of two nodes with 4 GPUs each (id 42): the run, and the
    words of the last step it shows (the workload's) from its program on (torchrun, or python for LAUNCH=srun)."""
    job_dir = tmp_path / "job"
    job_dir.mkdir(exist_ok=True)
    stub(job_dir / "bin", "scontrol", SCONTROL)
    job = {"PATH": f"{job_dir / 'bin'}:/usr/bin:/bin", "HOME": str(job_dir), "SLURM_JOB_ID": "42",
           "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_SUBMIT_DIR": str(job_dir), "SLURM_GPUS_ON_NODE": "4",
           "DDP_JOBSCRIPTS": str(REPO / "jobscripts"), "DRY_RUN": "1", "FABRIC": "none", "RDZV_HOST": "127.0.0.1",
           "IMAGE": "/images/app.sif", "SCONTROL_CALLS": str(job_dir / "scontrol.calls"), **env}
    result = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), *args], env=job, cwd=job_dir,
                            capture_output=True, text=True, timeout=120)
    steps = [line.split("] step: ", 1)[1] for line in result.stdout.splitlines() if "] step: " in line]
    words = shlex.split(steps[-1]) if steps else []
    program = next((i for i, word in enumerate(words) if word in ("torchrun", "python")), len(words))
    return result, words[program:]


def test_torchrun_meets_on_the_head_node_with_the_job_id(tmp_path: Path) -> None:
    result, torchrun = planned_step(tmp_path, "check", RDZV_JOIN_TIMEOUT_S="60", RDZV_PORT="20042")
    assert result.returncode == 0, result.stderr
    assert torchrun == [
        "torchrun", "--nnodes=2", "--nproc-per-node=4", "--rdzv-backend=static", "--rdzv-endpoint=127.0.0.1:20042",
        "--rdzv-id=42", "--rdzv-conf=timeout=60", "-m", "app.check",
    ]


def gpu_node(root: Path, cpus_per_numa_node: list[str], gpu_numa_nodes: list[int]) -> Path:
    """A node's sysfs as torch's NUMA binding reads it (torch/numa/binding.py): each NUMA node's cpulist, and
    each NVIDIA GPU's PCI numa_node. A GH200 node: four NUMA nodes with 72 CPUs each, GPU i on node i, and
    the GPUs' memory as NUMA nodes without CPUs."""
    for index, cpus in enumerate(cpus_per_numa_node):
        node = root / f"sys/devices/system/node/node{index}"
        node.mkdir(parents=True)
        (node / "cpulist").write_text(cpus + "\n")
    for index, numa_node in enumerate(gpu_numa_nodes):
        device = root / f"sys/bus/pci/devices/0009:0{index}:00.0"
        device.mkdir(parents=True)
        for name, value in (("vendor", "0x10de"), ("class", "0x030200"), ("numa_node", str(numa_node))):
            (device / name).write_text(value + "\n")
    return root


GH200_CPUS = ["0-71", "72-143", "144-215", "216-287"] + [""] * 4


def torchrun_args(tmp_path: Path, cpus: list[str], gpus: list[int],
                  **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The training step's words on a node (DDP_PROBE_ROOT) of CPUS a NUMA node and GPUs on GPUS's NUMA nodes."""
    return planned_step(tmp_path, "train", DDP_PROBE_ROOT=str(gpu_node(tmp_path / "node", cpus, gpus)), **env)


def test_gh200_workers_are_bound_to_their_gpus_numa_node(tmp_path: Path) -> None:
    result, torchrun = torchrun_args(tmp_path, GH200_CPUS, [0, 1, 2, 3])
    assert result.returncode == 0, result.stderr
    assert "--numa-binding=node" in torchrun
    assert "(auto: 4 NUMA nodes with CPUs, 4 GPUs;" in result.stdout


@pytest.mark.parametrize(("cpus", "gpus", "env", "said"), [
    (["0-31"], [0, 0], {}, None),  # one NUMA node: nothing to choose
    (["0-31", "32-63"], [], {}, None),  # no GPU: the CPU-only workers are not tied to one
    (["0-31", "32-63"], [-1, -1], {}, "the GPUs' NUMA node is unknown (numa_node -1 in sysfs)"),
    (GH200_CPUS, [0, 1, 2, 3], {"NUMA_BINDING": "none"}, None),
    (GH200_CPUS, [0, 1, 2, 3], {"LAUNCH": "srun", "SLURM_NTASKS_PER_NODE": "4"}, None),
])
def test_no_numa_binding_where_it_cannot_help_or_is_not_wanted(tmp_path: Path, cpus, gpus, env, said) -> None:
    result, step = torchrun_args(tmp_path, cpus, gpus, **env)
    assert result.returncode == 0, result.stderr
    assert step[:1] == (["python"] if env.get("LAUNCH") == "srun" else ["torchrun"])
    assert "numa-binding" not in result.stdout.replace("no --numa-binding", "")
    if said:
        assert said in result.stdout


def test_a_numa_binding_you_name_is_passed_on_and_said_as_yours(tmp_path: Path) -> None:
    result, torchrun = torchrun_args(tmp_path, ["0-31"], [0], NUMA_BINDING="socket")
    assert result.returncode == 0, result.stderr
    assert "--numa-binding=socket" in torchrun
    assert "(NUMA_BINDING=socket; NUMA_BINDING=none turns it off)" in result.stdout


def test_a_numa_binding_mode_torch_does_not_know_is_refused_with_the_choices(tmp_path: Path) -> None:
    result, _ = torchrun_args(tmp_path, GH200_CPUS, [0, 1, 2, 3], NUMA_BINDING="grace")
    assert result.returncode == 2
    assert result.stderr.strip() == ("slurm.sh: error: NUMA_BINDING=grace is not one of auto, none, node, socket, "
                                     "exclusive, core-complex; example: NUMA_BINDING=node")


#: srun's stand-in for a step that only shows what reached the nodes: the store's secret, from the environment
SRUN_SECRET = '#!/bin/sh\nprintf "%s\\n" "$DDP_STORE_SECRET" >>"$SECRETS"\n'


def test_each_job_start_makes_a_secret_for_the_store_exported_to_the_nodes_and_never_printed(tmp_path: Path) -> None:
    """The rendezvous id and the project's store keys derive from a secret only this job's processes hold (the
    job id, its nodes and its port are public); it travels in the environment, which `ps` does not show."""
    secrets = tmp_path / "secrets"
    env = fake_slurm_job(tmp_path, SRUN_SECRET, RDZV_HOST="127.0.0.1", SECRETS=str(secrets))
    said = []
    for _ in range(2):
        result = subprocess.run(["bash", str(REPO / "jobscripts" / "slurm.sh"), "my_script.py"], env=env,
                                cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        assert "--rdzv-id=42 " in result.stdout  # the step's own name, public
        said.append(result.stdout + result.stderr)
    first, second = secrets.read_text().splitlines()
    assert re.fullmatch(r"[0-9a-f]{32}", first) and re.fullmatch(r"[0-9a-f]{32}", second)
    assert first != second
    assert not [text for text in said for secret in (first, second) if secret in text]
