"""The Slurm job as one program (app/launch/job.py), started the way sbatch starts it: `bash jobscripts/slurm.sh`
inside a job's environment, with stand-ins for Slurm's commands (the real cluster's tests:
tests/jobscripts/test_jobscripts_slurm.py and test_jobscripts_user_script.py)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

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


def test_usr1_during_the_workload_stops_it_requeues_the_job_and_ends_with_75(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    for name, text in (("srun", SRUN), ("scontrol", SCONTROL), ("torchrun", "#!/bin/sh\nexit 0\n")):
        stub(bin_dir, name, text)
    (tmp_path / "my_script.py").write_text("print('mine')\n")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "SLURM_JOB_ID": "42",
           "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_SUBMIT_DIR": str(tmp_path), "SLURM_GPUS_ON_NODE": "1",
           "DDP_JOBSCRIPTS": str(REPO / "jobscripts"), "IMAGE": "none", "PREFLIGHT": "0", "LAUNCH_CHECK": "0",
           "FABRIC": "none", "SRUN_CALLS": str(tmp_path / "srun.calls"),
           "SCONTROL_CALLS": str(tmp_path / "scontrol.calls")}
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
