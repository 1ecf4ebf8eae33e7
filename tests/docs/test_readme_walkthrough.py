"""The README's walkthrough against what the job scripts write: the log and the run directory it names."""

from __future__ import annotations

from pathlib import Path

from tests.docs.markdown import README
from tests.fixtures.slurm import REPO


def walkthrough_section(title: str) -> str:
    text = README.read_text()
    return text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_the_walkthrough_names_the_log_and_run_directory_the_job_writes() -> None:
    section = walkthrough_section("Watch it")
    assert "ddp-<jobid>.out" in section and "runs/<jobid>" in section
    assert Path(REPO / "jobscripts" / "mn5.sh").read_text().count("#SBATCH --output=%x-%j.out") == 1
