"""How values travel in the job scripts (jobscripts/lib.sh's header): a function returns what it computes
through the variable its caller names; only the mains assign the job's facts (DDP_*), and from
ddp_freeze_job_facts on nothing may. A function writing a DDP_* global of its own choosing, the pattern
that made the preflight swap the workload out and back, fails here."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIBRARY = sorted((REPO / "jobscripts").glob("lib*.sh"))

#: The functions that may assign a job fact: the mains, the planning allocation, the defaults, and the
#: signal trap's DDP_PREEMPTED.
WRITERS = {"ddp_slurm_main", "ddp_pbs_main", "ddp_dry_run_allocation", "ddp_defaults", "ddp_on_signal"}

FUNCTION = re.compile(r"^(\w+)\(\) \{\n(.*?)^\}", re.MULTILINE | re.DOTALL)
#: A double-quoted string on one line (messages name settings: "set DDP_JOBSCRIPTS=/path")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
ASSIGNMENT = re.compile(r"(?<![\w$\{!#-])(DDP_[A-Z_]+)(\[[^]\n]*\])?\+?=|\b(?:read -r?a|mapfile -t) (DDP_[A-Z_]+)")


def assignments_outside_the_writers(library: list[Path] = LIBRARY) -> list[str]:
    found = []
    for path in library:
        for name, body in FUNCTION.findall(path.read_text()):
            if name in WRITERS:
                continue
            code = "\n".join(STRING.sub('""', line.split(" #")[0]) for line in body.splitlines()
                             if not line.lstrip().startswith("#"))
            found += [f"{path.name}: {name} assigns {m.group(1) or m.group(3)}" for m in ASSIGNMENT.finditer(code)]
    return found


def test_only_the_mains_assign_the_jobs_facts() -> None:
    assert assignments_outside_the_writers() == []


def test_the_contract_check_sees_a_function_that_writes_a_global(tmp_path: Path) -> None:
    """The check itself: the old ddp_nproc_per_node (DDP_NPROC=$n) is caught."""
    body = "ddp_nproc_per_node() {\n    local n=4\n    DDP_NPROC=$n\n    DDP_BINDS+=(--bind x)\n}\n"
    assert [f"{n}: {m.group(1)}" for n, b in FUNCTION.findall(body) for m in ASSIGNMENT.finditer(b)] == [
        "ddp_nproc_per_node: DDP_NPROC", "ddp_nproc_per_node: DDP_BINDS"]


def test_a_frozen_fact_cannot_change_under_a_later_step() -> None:
    snippet = (f'source "{REPO}/jobscripts/lib.sh"\nDDP_NPROC=4; DDP_LAUNCHER=(srun); ddp_freeze_job_facts\n'
               'DDP_NPROC=8\necho "still running"')
    result = subprocess.run(["bash", "-c", snippet], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "still running" not in result.stdout
    assert "DDP_NPROC: readonly variable" in result.stderr
