"""app/host/common/scheduler_env.py: every Slurm, PBS, PALS and MPI variable the project reads, in one table, and
nothing else reading them (checked on the source with `ast`), with the shell that must stay shell named here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app.host.common import scheduler_env
from app.host.common.scheduler_env import (
    OpenMpiRanks,
    Pbs,
    PmiRanks,
    Slurm,
    gpus_per_task,
    job_id,
    job_id_variable,
    read_open_mpi,
    read_pbs,
    read_pmi,
    read_slurm,
    under_pbs,
    variable_of,
)
from tests.trainer_runs import REPO

#: A scheduler's or MPI launcher's variable: what nothing but scheduler_env may read
SCHEDULER_VARIABLE = re.compile(r"(?:SLURM|SLURMD|PBS|PALS|PMI|PMIX|OMPI|MPI)_[A-Z0-9_]*")
#: Calls whose first argument is a variable's name: os.environ.get, os.getenv, env.pop, env.setdefault
READING_CALLS = {"get", "getenv", "pop", "setdefault", "putenv", "unsetenv"}

#: What still reads them outside Python, and why each cannot go through scheduler_env. Every file named here
#: must still read one (a stale entry fails), and no other shell file under app/ or jobscripts/ may.
SHELL_READERS = {
    # The submitted copy finds its checkout (app/host/launch) through these: before them
    # there is no Python of this project to ask (sbatch runs a spool copy of the script; qsub runs it in $HOME).
    "jobscripts/slurm.sh": "finds the checkout from the submitted script (SLURM_JOB_ID, scontrol show job)",
    "jobscripts/mn5.sh": "finds the checkout from the submitted script (SLURM_JOB_ID, scontrol show job)",
    "jobscripts/gh200-pbs.sh": "finds the checkout in the submit directory (PBS_O_WORKDIR)",
    "jobscripts/build-image.sh": "finds the checkout in the submit directory (PBS_O_WORKDIR, SLURM_SUBMIT_DIR)",
    # On each node, in the task, before any Python of the job starts
    "app/common/node_wrapper.sh": "the node's index for torchrun's --node-rank, in the container before torchrun",
    "app/host/launch/pmix_binds.sh": "the step's PMIx directories, in each srun task before the container starts",
    "app/host/launch/srun_task_env.sh": "a task's rank as torch's RANK/LOCAL_RANK, before a user's own script starts",
}
#: Python modules that hand shell text to each node's task (run there by sh, not read here)
SHELL_TEXT_IN_PYTHON = {
    "app/host/launch/launch_check.py": "each node's task prints its name and PALS_NODEID / PBS_NODENUM",
    "app/host/launch/pbsdsh.py":
        "each pbsdsh task keeps its own PBS_NODENUM / PBS_TASKNUM across the job's environment",
    "app/host/launch/deepspeed_hostfile.py":
        "the DeepSpeed launch line a user runs: each task's SLURM_NODEID / PALS_NODEID",
}


#: The one reader; the stand-in world, which writes a scheduler's environment for the jobs it runs; and the test
#: cluster's driver, whose SLURM_TEST_*, SLURM_CURRENT_* and PBS_EMULATION_* names are its own settings
NOT_READERS = (REPO / "app" / "host" / "common" / "scheduler_env.py", REPO / "bench" / "job_world.py",
               REPO / "bench" / "slurm_cluster.py")


def python_files() -> list[Path]:
    return sorted(path for top in ("app", "bench") for path in (REPO / top).rglob("*.py") if path not in NOT_READERS)


def is_variable_key(node: ast.AST) -> bool:
    """A literal that names a scheduler variable, or starts one (`"SLURM_" + name`, f"PMI_{x}")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return SCHEDULER_VARIABLE.match(node.value) is not None
    if isinstance(node, ast.JoinedStr) and node.values:
        return is_variable_key(node.values[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return is_variable_key(node.left)
    return False


def scheduler_reads(source: str, name: str = "<test>") -> list[str]:
    """Each place `source` reads a scheduler variable: a literal that is exactly one's name anywhere (a mapping
    subscripted, .get, getenv, `in env`, a tuple of names iterated later), or one that starts one used as a key.
    A name inside longer text (a message, a shell line) and argparse's help= text are words, not reads."""
    tree = ast.parse(source, name)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                SCHEDULER_VARIABLE.fullmatch(node.value):
            parent = parents.get(node)
            if isinstance(parent, ast.keyword) and parent.arg in ("help", "metavar"):
                continue
            found.append(f"{name}:{node.lineno}: {node.value!r}")
        elif isinstance(node, ast.Subscript) and is_variable_key(getattr(node.slice, "value", node.slice)):
            found.append(f"{name}:{node.lineno}: subscript")
        elif isinstance(node, ast.Call) and node.args and is_variable_key(node.args[0]) and \
                getattr(node.func, "attr", getattr(node.func, "id", "")) in READING_CALLS:
            found.append(f"{name}:{node.lineno}: call")
        elif isinstance(node, ast.Compare) and is_variable_key(node.left) and \
                any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            found.append(f"{name}:{node.lineno}: in")
    return sorted(set(found))


def shell_reads(text: str) -> list[str]:
    """The scheduler variables a shell text expands ($NAME, ${NAME...}), comments left out."""
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return sorted(set(re.findall(r"\$\{?(" + SCHEDULER_VARIABLE.pattern + ")", code)))


def test_no_python_module_but_scheduler_env_reads_a_scheduler_variable():
    # Only files that name one at all are parsed: a read needs the name's text (a tenth of the files)
    texts = {path: path.read_text() for path in python_files()}
    reads = [read for path, text in texts.items() if SCHEDULER_VARIABLE.search(text)
             for read in scheduler_reads(text, str(path.relative_to(REPO)))]
    assert reads == [], ("read these through app/host/common/scheduler_env.py (add the variable to its table, with its "
                         f"source): {reads}")


@pytest.mark.parametrize("source", [
    'os.environ["SLURM_JOB_ID"]',
    'os.environ.get("PBS_JOBID", "")',
    'os.getenv("PMI_RANK")',
    '"OMPI_COMM_WORLD_RANK" in env',
    'JOB_IDS = ("SLURM_JOB_ID", "PBS_JOBID")',
    'env.get("SLURM_" + name)',
    'env[f"PALS_{name}"]',
    'def f(environ):\n    return environ["PMIX_RANK"]',
])
def test_the_rule_finds_every_way_of_reading_one(source):
    assert scheduler_reads(source) != []


@pytest.mark.parametrize("source", [
    'raise UsageError(f"PBS_NODEFILE={path} is empty; is this a PBS job?")',
    'TASK = "node=${PBS_NODENUM:-}"',
    'parser.add_argument("--job-id", help="PBS_JOBID")',
    'os.environ.get("DDP_PMIX_TMPFS")',
    '"run.dir=$SCRATCH/runs/$SLURM_JOB_ID"',
])
def test_messages_shell_text_and_the_projects_own_names_are_not_reads(source):
    assert scheduler_reads(source) == []


def test_the_shell_that_reads_them_is_listed_with_its_reason():
    shell_files = sorted(path for top in ("app", "jobscripts") for path in (REPO / top).rglob("*.sh"))
    readers = {str(path.relative_to(REPO)) for path in shell_files if shell_reads(path.read_text())}
    assert readers == set(SHELL_READERS), (
        f"unlisted: {sorted(readers - set(SHELL_READERS))}, listed but no longer reading: "
        f"{sorted(set(SHELL_READERS) - readers)}; read it in Python through app/host/common/scheduler_env.py, or add "
        "the file to SHELL_READERS with why it cannot")
    for path in SHELL_TEXT_IN_PYTHON:
        texts = [node.value for node in ast.walk(ast.parse((REPO / path).read_text()))
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)]
        assert any(shell_reads(text) for text in texts), f"{path} hands no shell text that reads one: unlist it"


def test_each_record_names_every_field_with_its_variable_and_source():
    for record in (Slurm, Pbs, OpenMpiRanks, PmiRanks):
        assert [fact.field for fact in record.FACTS] == list(record._fields), record
        for fact in record.FACTS:
            assert SCHEDULER_VARIABLE.fullmatch(fact.variable), fact
            assert fact.source.strip(), fact
    variables = [fact.variable for record in (Slurm, Pbs, OpenMpiRanks, PmiRanks) for fact in record.FACTS]
    assert len(variables) == len(set(variables)), "a variable in two records"


def test_records_hold_none_for_unset_and_the_text_for_set_variables():
    env = {"SLURM_JOB_ID": "42", "SLURM_PROCID": "", "PBS_NODEFILE": "/var/spool/pbs/aux/7",
           "OMPI_COMM_WORLD_RANK": "3", "PALS_LOCAL_RANKID": "1"}
    slurm, pbs = read_slurm(env), read_pbs(env)
    assert (slurm.job_id, slurm.procid, slurm.nodeid) == ("42", "", None)
    assert (pbs.nodefile, pbs.job_id) == ("/var/spool/pbs/aux/7", None)
    assert read_open_mpi(env).rank == "3" and read_open_mpi(env).size is None
    assert read_pmi(env).pals_local_rank == "1" and read_pmi(env).rank is None
    assert variable_of(Slurm, "step_num_tasks") == "SLURM_STEP_NUM_TASKS"
    assert variable_of(PmiRanks, "hydra_local_size") == "MPI_LOCALNRANKS"


@pytest.mark.parametrize(("env", "expected"), [
    ({"SLURM_JOB_ID": "42", "PBS_JOBID": "7.pbs"}, "42"),
    ({"SLURM_JOB_ID": "", "PBS_JOBID": "7.pbs"}, "7.pbs"),
    ({"PBS_JOBID": "7.pbs"}, "7.pbs"),
    ({}, None),
])
def test_the_job_id_is_slurms_else_pbss(env, expected):
    assert job_id(env) == expected


@pytest.mark.parametrize(("env", "expected"), [
    ({"PBS_JOBID": "7.pbs"}, True),
    ({"PBS_JOBID": "7.pbs", "SLURM_JOB_ID": "42"}, False),
    ({"SLURM_JOB_ID": "42"}, False),
    ({}, False),
])
def test_a_job_is_pbss_only_without_slurms_id(env, expected):
    assert under_pbs(env) is expected


def test_each_scheduler_names_its_job_id_variable():
    assert (job_id_variable("slurm"), job_id_variable("pbs")) == ("SLURM_JOB_ID", "PBS_JOBID")


@pytest.mark.parametrize(("env", "expected"), [
    ({}, ""),
    ({"SLURM_GPUS_PER_TASK": "2"}, "2"),  # Slurm up to 23.05
    ({"SLURM_TRES_PER_TASK": "cpu=4,gres/gpu=1"}, "1"),  # from 23.11 only this
    ({"SLURM_TRES_PER_TASK": "cpu=8,gres/gpu:h100=2"}, "2"),
    ({"SLURM_TRES_PER_TASK": "cpu=8"}, ""),
    ({"SLURM_TRES_PER_TASK": "gres/gpu:=2"}, ""),  # no type after the colon
    ({"SLURM_GPUS_PER_TASK": "a100:1"}, ""),  # not a whole number
    ({"SLURM_TRES_PER_TASK": "gres/gpu=١"}, ""),  # a digit, but not an ASCII one
])
def test_gpus_per_task_reads_either_slurm_variable(env, expected):
    assert gpus_per_task(env) == expected


def test_the_module_is_the_standard_library_alone():
    tree = ast.parse(Path(scheduler_env.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"typing"}, imported
