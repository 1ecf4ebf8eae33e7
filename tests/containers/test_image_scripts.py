"""shellcheck over every script the images and their builds run."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.apptainer import missing_tool

REPO = Path(__file__).resolve().parents[2]
BASH_SCRIPTS = sorted([*REPO.glob("containers/*.sh"), *REPO.glob("containers/scripts/*.sh"),
                       REPO / "tests/provision/provision-apptainer.sh"])


@pytest.mark.parametrize("script", BASH_SCRIPTS, ids=lambda p: str(p.relative_to(REPO)))
def test_bash_script_passes_shellcheck(script):
    if shutil.which("shellcheck") is None:
        missing_tool("shellcheck is not installed")
    result = subprocess.run(["shellcheck", "--severity=style", "-x", str(script.relative_to(REPO))], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_fabric_policy_passes_shellcheck_as_posix_sh():
    """Apptainer sources it with its built-in POSIX shell interpreter: no bash-isms."""
    if shutil.which("shellcheck") is None:
        missing_tool("shellcheck is not installed")
    result = subprocess.run(["shellcheck", "--severity=style", "--shell=sh", "app/host/common/fabric_policy.env"],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def _shell_scripts() -> list[Path]:
    """Every tracked script and definition: one without pipefail of its own may be sourced by one with it."""
    listed = subprocess.run(["git", "ls-files", "*.sh", "*.def"], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.split()
    return [REPO / name for name in listed]


#: A pipe into a reader that may leave before the writer is done: grep -q or -m, head, awk's exit.
EARLY_READER = re.compile(r"\|\s*(grep\s+-[A-Za-z]*[qm]|head\b|awk\b.*\bexit\b)")


def test_a_pipe_into_grep_q_fails_under_pipefail_when_the_writer_is_not_done():
    """Why the rule below exists: grep -q leaves at its first match, the writer gets SIGPIPE, the pipeline fails."""
    result = subprocess.run(["bash", "-c", "set -o pipefail; seq 1000000 | grep -q 1"], timeout=60)
    assert result.returncode == 141


@pytest.mark.parametrize("script", _shell_scripts(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_script_pipes_into_a_reader_that_leaves_early(script):
    """`cmd | grep -q x` (or -m1, head, awk '{...; exit}') fails at random under pipefail: the image build's MPI
    check did, in CI. A line that ends the pipeline with `|| true` says its failure does not matter."""
    offending = [f"{script.relative_to(REPO)}:{number}: {line.strip()}"
                 for number, line in enumerate(script.read_text().splitlines(), start=1)
                 if EARLY_READER.search(line) and "|| true" not in line and not line.lstrip().startswith("#")]
    assert not offending, ("read the whole output instead ([[ $(cmd) == *x* ]], sed -n 1p, awk without exit):\n"
                           + "\n".join(offending))
