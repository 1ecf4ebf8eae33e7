"""A user's own script, unchanged, through the job scripts on the Slurm test cluster (tests/slurm/up.sh).

examples/ddp_checkpoint.py is what docs/your-script.md asks of such a script: it reads torchrun's rank
variables and RUN_DIR, saves its checkpoint there, resumes from it, and on SIGTERM saves and exits 75. Each job
runs it on 2 nodes x 2 CPU ranks (gloo) in the smoke image, as `sbatch -N2 slurm.sh SCRIPT.py ARGS`. The
preflight (app.check) is off: it is the job scripts' own, tested elsewhere, and not part of the contract.
What the tests hold: a second submission with RUN_DIR=<the first's> goes on from its checkpoint; USR1 (what
`#SBATCH --signal=B:USR1@90` sends before the time limit) reaches the script as SIGTERM and the job requeues
itself when the script exits non-zero, to the same parameters as the resumed submission; a script that exits
0 after the SIGTERM ends the job instead. An Accelerate script (examples/accelerate_checkpoint.py) runs the same
way in the smoke image extended with Accelerate's wheels (`make image-extend`, docs/packages.md).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.fixtures.extended_image import ExtendedImage
from tests.fixtures.slurm import REPO, Job, SlurmCluster
from tests.jobscripts.test_jobscripts_slurm import (  # image_env: the module's fixture, found here by name
    JOBSCRIPTS,
    assert_completed,
    image_env,  # noqa: F401
)

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

EXAMPLE = REPO / "examples" / "ddp_checkpoint.py"
ACCELERATE_EXAMPLE = REPO / "examples" / "accelerate_checkpoint.py"
#: 2 nodes x 2 CPU ranks; the preflight is the job scripts' concern, not the script's
JOB_ENV = {"GPUS_PER_NODE": "2", "PREFLIGHT": "0"}
DONE = re.compile(r"^done: (\d+) steps on (\d+) ranks, params (\w+)$", re.M)


def submit_script(slurm_cluster: SlurmCluster, workdir: Path, env: dict[str, str], *args: str,
                  script: Path = EXAMPLE) -> str:
    shutil.copy(script, workdir / "my_script.py")
    return slurm_cluster.submit(workdir, "-N2", str(JOBSCRIPTS / "slurm.sh"), "my_script.py", *args,
                                env={**JOB_ENV, **env})


def done(job: Job) -> tuple[int, int, str]:
    """(steps, ranks, parameter hash) from the script's last line."""
    match = DONE.search(job.output)
    assert match, job.output[-4000:]
    return int(match.group(1)), int(match.group(2)), match.group(3)


def signal_when(slurm_cluster: SlurmCluster, workdir: Path, job_id: str, line: str) -> None:
    """USR1 to the batch script, as `--signal=B:USR1@90` sends it, once the script has logged `line`."""
    log = workdir / f"ddp-{job_id}.out"
    slurm_cluster.wait_for(lambda: log.exists() and line in log.read_text(errors="replace"), timeout_s=180,
                           what=f"'{line}' in {log}")
    assert slurm_cluster.run("scancel", "--batch", "--signal=USR1", job_id).returncode == 0


@pytest.fixture(scope="module")
def first(slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> Job:  # noqa: F811 (the imported fixture)
    """40 steps, then the job ends; the checkpoint stays in its RUN_DIR."""
    workdir = slurm_cluster.workdir()
    job_id = submit_script(slurm_cluster, workdir, image_env, "--steps", "40")
    return slurm_cluster.wait(job_id, workdir)


@pytest.fixture(scope="module")
def resumed(slurm_cluster: SlurmCluster, image_env: dict[str, str], first: Job) -> Job:  # noqa: F811
    """A new submission with RUN_DIR=<first's>: on to step 80."""
    workdir = first.log.parent
    job_id = submit_script(slurm_cluster, workdir, {**image_env, "RUN_DIR": str(first.run_dir)}, "--steps", "80")
    return slurm_cluster.wait(job_id, workdir)


def test_a_plain_ddp_script_runs_on_both_nodes_and_saves_into_run_dir(first: Job) -> None:
    assert_completed(first)
    assert done(first)[:2] == (40, 4)
    assert (first.run_dir / "checkpoint.pt").is_file()
    assert "step: srun --kill-on-bad-exit=1" in first.output and "my_script.py --steps 40" in first.output


def test_a_second_submission_with_the_old_run_dir_resumes_from_its_checkpoint(first: Job, resumed: Job) -> None:
    assert_completed(resumed)
    assert "resumed from step 40 " in resumed.output, resumed.output[-4000:]
    assert done(resumed)[:2] == (80, 4)
    assert not resumed.run_dir.exists(), "the second job wrote into a run directory of its own"


def test_usr1_stops_the_script_with_sigterm_and_the_job_requeues_and_resumes_to_the_same_result(
        slurm_cluster: SlurmCluster, image_env: dict[str, str], resumed: Job) -> None:  # noqa: F811
    workdir = slurm_cluster.workdir()
    job_id = submit_script(slurm_cluster, workdir, image_env, "--steps", "80", "--step-delay", "0.2")
    signal_when(slurm_cluster, workdir, job_id, "step 20 loss")
    job = slurm_cluster.wait(job_id, workdir, timeout_s=300)

    assert_completed(job)
    log = job.output
    stopped = re.search(r"stopped at step (\d+) by SIGTERM: checkpoint saved, exit 75", log)
    assert stopped, log[-6000:]
    assert "got SIGUSR1" in log and f"requeueing job {job_id}" in log and "run #2" in log, log[-6000:]
    assert "Restarts=1" in slurm_cluster.run("scontrol", "show", "job", job_id).stdout
    assert f"resumed from step {stopped.group(1)} " in log
    # Stopped at another step than the resubmission above, and the same parameters at step 80
    assert done(job) == done(resumed)


def test_a_script_that_exits_0_after_sigterm_ends_the_job_without_a_requeue(
        slurm_cluster: SlurmCluster, image_env: dict[str, str]) -> None:  # noqa: F811
    workdir = slurm_cluster.workdir()
    job_id = submit_script(slurm_cluster, workdir, image_env, "--steps", "400", "--step-delay", "0.2",
                           "--exit-code-on-stop", "0")
    signal_when(slurm_cluster, workdir, job_id, "step 10 loss")
    job = slurm_cluster.wait(job_id, workdir, timeout_s=300)

    assert_completed(job)
    log = job.output
    assert re.search(r"stopped at step \d+ by SIGTERM: checkpoint saved, exit 0", log), log[-6000:]
    assert "got SIGUSR1" in log and "requeueing" not in log and "run #2" not in log, log[-6000:]
    assert "Restarts=0" in slurm_cluster.run("scontrol", "show", "job", job_id).stdout
    assert not DONE.search(log), "the script ran on to its end instead of stopping"


#: Rank 0 fails at once with its own code; every other rank would sleep until its node is killed
FIRST_RANK_FAILS = """import os, sys, time
if os.environ["RANK"] == "0":
    sys.exit(3)
time.sleep(300)
"""


def test_the_job_ends_with_the_code_of_the_node_that_failed_first_not_the_signal_that_ended_the_others(
        slurm_cluster: SlurmCluster, image_env: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    """srun's --kill-on-bad-exit ends node 1 with SIGTERM once node 0 fails, and srun reports a signalled task over
    any exit code (src/srun/launch.c, _task_finish): the job must still end with node 0's code, 3, not 143."""
    script = tmp_path / "first_rank_fails.py"
    script.write_text(FIRST_RANK_FAILS)
    workdir = slurm_cluster.workdir()
    job = slurm_cluster.wait(submit_script(slurm_cluster, workdir, image_env, script=script), workdir)

    assert job.exit_code == "3:0", f"{job.state} {job.exit_code}\n{job.output[-4000:]}"
    assert "step finished with exit code 3" in job.output, job.output[-4000:]
    assert "Restarts=0" in slurm_cluster.run("scontrol", "show", "job", job.job_id).stdout


def test_an_accelerate_script_runs_unchanged_in_the_extended_image_and_resumes_from_run_dir(
        slurm_cluster: SlurmCluster, image_env: dict[str, str], request: pytest.FixtureRequest) -> None:  # noqa: F811
    """The session's extended image (tests/fixtures/extended_image.py): the smoke image plus Accelerate, as
    docs/packages.md says (containers/gather-wheels.py, then make image-extend), and a wheel of another test's."""
    if image_env["IMAGE"] == "none":
        pytest.skip("DDP_SLURM_TEST_IMAGE=none: no image to extend")
    extended_image: ExtendedImage = request.getfixturevalue("extended_image")
    if extended_image.without_accelerate:
        pytest.skip(extended_image.without_accelerate)
    workdir = slurm_cluster.workdir()
    env = {"IMAGE": str(extended_image.path)}
    first_id = submit_script(slurm_cluster, workdir, env, "--steps", "20", script=ACCELERATE_EXAMPLE)
    first_job = slurm_cluster.wait(first_id, workdir, timeout_s=300)
    assert_completed(first_job)
    assert "done: 20 steps on 4 processes (DistributedType.MULTI_CPU)" in first_job.output, first_job.output[-4000:]

    second_id = submit_script(slurm_cluster, workdir, {**env, "RUN_DIR": str(first_job.run_dir)}, "--steps", "40",
                              script=ACCELERATE_EXAMPLE)
    second = slurm_cluster.wait(second_id, workdir, timeout_s=300)
    assert_completed(second)
    assert f"resumed from step 20 ({first_job.run_dir}/accelerate/step-20)" in second.output, second.output[-4000:]
    assert "done: 40 steps on 4 processes" in second.output
