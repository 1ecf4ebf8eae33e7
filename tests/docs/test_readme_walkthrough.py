"""The README's MareNostrum 5 walkthrough, in its own words, on the three-node Slurm test cluster.

The first job's `sbatch` line is taken from the README and submitted unchanged but for its placeholders, from a
directory laid out as the walkthrough says (the checkout's `jobscripts/` and `app.sif` beside it), and the job's log
is held to the healthy lines the README shows. What the test cluster cannot be is stood in for, as
tests/jobscripts/test_jobscripts_slurm.py does: an ACC node's sysfs (`DDP_PROBE_ROOT`), the smoke image for the
CUDA one, and the regression workload for speed; the preflight reads the real node, which has no HCA, so it is off.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from tests.docs.markdown import README, fenced_commands, quotes
from tests.fixtures.slurm import JOB_USER, REPO, SlurmCluster

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

#: The README's placeholders, as a MareNostrum user fills them in; the test cluster accepts any account and QOS
PLACEHOLDERS = {"<account>": "ehpc00"}


def walkthrough_section(title: str) -> str:
    text = README.read_text()
    return text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def _quoted_block(section: str) -> list[str]:
    """The lines of the section's first ```text block: a log as the README shows it."""
    block = section.split("```text", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def first_job_line() -> str:
    [line] = [c for c in fenced_commands(walkthrough_section("MareNostrum 5"))
              if c.startswith("sbatch") and c.rstrip().endswith("jobscripts/mn5.sh")]
    for placeholder, value in PLACEHOLDERS.items():
        line = line.replace(placeholder, value)
    assert "<" not in line, f"a placeholder the test does not fill: {line}"
    return line


@pytest.fixture
def image(request: pytest.FixtureRequest) -> str:
    """The image the job runs: the smoke image, or the host's torchrun with DDP_SLURM_TEST_IMAGE=none."""
    if os.environ.get("DDP_SLURM_TEST_IMAGE") == "none":
        return "none"
    return str(request.getfixturevalue("smoke_image"))


def test_the_mn5_first_job_runs_as_the_readme_says_and_its_log_shows_the_healthy_lines(
        slurm_cluster: SlurmCluster, image: str) -> None:
    checkout = slurm_cluster.workdir()
    (checkout / "jobscripts").symlink_to(REPO / "jobscripts")
    if image != "none":
        (checkout / "app.sif").symlink_to(image)
    probe_root = checkout / "fake-node"
    for directory in ("sys/class/infiniband/mlx5_0/ports/1", "sys/class/net/ib0"):
        (probe_root / directory).mkdir(parents=True)
    shutil.chown(checkout / "fake-node", JOB_USER, JOB_USER)
    words = shlex.split(first_job_line())
    assert words[0] == "sbatch"
    env = {"CONFIG": "regression", "DDP_PROBE_ROOT": str(probe_root), "PREFLIGHT": "0"}
    if image == "none":
        env["IMAGE"] = "none"
    job_id = slurm_cluster.submit(checkout, *words[1:], env=env)
    job = slurm_cluster.wait(job_id, checkout)
    assert job.state == "COMPLETED" and job.exit_code == "0:0", job.output[-6000:]
    assert (checkout / f"ddp-{job_id}.out").exists(), "the log is not where the README says"
    assert (checkout / "runs" / job_id / "summary.json").exists(), "the run directory is not where the README says"
    healthy = [line for line in _quoted_block(walkthrough_section("Watch it")) if "mn5.sh]" in line]
    assert healthy, "the README shows no healthy mn5.sh line"
    printed = job.output.splitlines()
    for line in healthy:
        assert quotes(line, printed), f"the job never printed the README's line {line!r}"


def test_the_walkthrough_names_the_log_and_run_directory_the_job_writes() -> None:
    section = walkthrough_section("Watch it")
    assert "ddp-<jobid>.out" in section and "runs/<jobid>" in section
    assert Path(REPO / "jobscripts" / "mn5.sh").read_text().count("#SBATCH --output=%x-%j.out") == 1
