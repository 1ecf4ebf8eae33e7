"""What the scheduler and the MPI launchers tell a process in its environment: every Slurm, PBS, PALS and MPI
variable the project reads, in one table, read into typed records (standard library only, Python 3.6: the
launcher imports it on the batch host's python3, the trainer in the image).

Each record's FACTS names, field by field, the variable and where its meaning is documented. A field is None
where the variable is unset and its text where set ('' included): whether a launcher set a variable at all is
itself a fact (a rank without a world size is an error the readers report, not a default). Nothing else reads
these variables (tests/common/test_scheduler_env.py fails when a module does, and lists the shell that still
must, with why); the readers interpret the records.
"""

from typing import Mapping, NamedTuple, Optional


class Fact(NamedTuple):
    """One variable: the record's field that holds it, its name, and where its meaning is documented."""

    field: str
    variable: str
    source: str


# Slurm's man pages of the version the tests run (SchedMD slurm-25-11-7-1, doc/man/man1)
SBATCH = 'sbatch(1) "OUTPUT ENVIRONMENT VARIABLES" (set in the batch script)'
SRUN = 'srun(1) "OUTPUT ENVIRONMENT VARIABLES" (set in each task of a step)'
BOTH = 'sbatch(1) and srun(1) "OUTPUT ENVIRONMENT VARIABLES"'
# Altair PBS Professional Reference Guide, "PBS Environment Variables" (OpenPBS sets the same in every job)
PBS_GUIDE = 'PBS Professional Reference Guide, "PBS Environment Variables"'
# Open MPI 5.0 docs, tuning-apps/environment-var: "Environment variables set for MPI applications"
OPEN_MPI = 'Open MPI docs, "Environment variables set for MPI applications"'
# HPE Cray PALS mpiexec(1) "ENVIRONMENT" (each rank's PALS_* and, with --pmi=cray, PMI_*); MPICH's Hydra sets
# PMI_RANK/PMI_SIZE and MPI_LOCALRANKID/MPI_LOCALNRANKS (mpiexec.hydra, src/pm/hydra); PMIx: every client
FROM_PALS = "HPE Cray PALS mpiexec(1), ENVIRONMENT"
FROM_CRAY_PMI = "HPE Cray PALS mpiexec(1) --pmi=cray, and MPICH's Hydra mpiexec (PMI_RANK, PMI_SIZE)"
FROM_HYDRA = "MPICH's Hydra mpiexec (mpiexec.hydra sets it in each rank's environment)"
FROM_PMIX = "the PMIx standard (v4, Appendix: PMIX_RANK in each client a PMIx server starts)"


class Slurm(NamedTuple):
    """A Slurm job (sbatch) and, inside a step, one task of it (srun)."""

    job_id: Optional[str]
    job_nodelist: Optional[str]
    submit_dir: Optional[str]
    gpus_on_node: Optional[str]
    cpus_on_node: Optional[str]
    cpus_per_task: Optional[str]
    tasks_per_node: Optional[str]
    gpus_per_task: Optional[str]
    tres_per_task: Optional[str]
    procid: Optional[str]
    localid: Optional[str]
    nodeid: Optional[str]
    step_num_tasks: Optional[str]
    step_tasks_per_node: Optional[str]
    step_nodelist: Optional[str]
    cpus_per_gpu: Optional[str]
    restart_count: Optional[str]

    FACTS = (
        Fact("job_id", "SLURM_JOB_ID", BOTH),
        Fact("job_nodelist", "SLURM_JOB_NODELIST", BOTH + " (a hostlist: node[01-04,07])"),
        Fact("submit_dir", "SLURM_SUBMIT_DIR", BOTH),
        Fact("gpus_on_node", "SLURM_GPUS_ON_NODE", BOTH),
        Fact("cpus_on_node", "SLURM_CPUS_ON_NODE", BOTH),
        Fact("cpus_per_task", "SLURM_CPUS_PER_TASK", BOTH + " (only with --cpus-per-task)"),
        Fact("tasks_per_node", "SLURM_TASKS_PER_NODE", BOTH + " (4(x2),2: the compressed form)"),
        # sbatch exported it up to 23.05; 25.11 documents it only among srun's INPUT variables
        Fact("gpus_per_task", "SLURM_GPUS_PER_TASK", 'srun(1) "INPUT ENVIRONMENT VARIABLES"; sbatch <= 23.05'),
        Fact("tres_per_task", "SLURM_TRES_PER_TASK", BOTH + " (cpu=4,gres/gpu:h100=2; from 23.11)"),
        Fact("procid", "SLURM_PROCID", SRUN),
        Fact("localid", "SLURM_LOCALID", SRUN),
        Fact("nodeid", "SLURM_NODEID", SRUN),
        Fact("step_num_tasks", "SLURM_STEP_NUM_TASKS", SRUN),
        Fact("step_tasks_per_node", "SLURM_STEP_TASKS_PER_NODE", SRUN),
        Fact("step_nodelist", "SLURM_STEP_NODELIST", SRUN),
        Fact("cpus_per_gpu", "SLURM_CPUS_PER_GPU", BOTH + " (only with --cpus-per-gpu)"),
        Fact("restart_count", "SLURM_RESTART_COUNT", SBATCH + " (how often the job was requeued; unset before)"),
    )


class Pbs(NamedTuple):
    """A PBS Pro (or OpenPBS) job."""

    job_id: Optional[str]
    nodefile: Optional[str]
    submit_dir: Optional[str]

    FACTS = (
        Fact("job_id", "PBS_JOBID", PBS_GUIDE),
        Fact("nodefile", "PBS_NODEFILE", PBS_GUIDE + " (one line per MPI slot, the mother superior first)"),
        Fact("submit_dir", "PBS_O_WORKDIR", PBS_GUIDE + " (qsub's working directory)"),
    )


class OpenMpiRanks(NamedTuple):
    """One rank that Open MPI's mpirun/mpiexec started."""

    rank: Optional[str]
    size: Optional[str]
    local_rank: Optional[str]
    local_size: Optional[str]

    FACTS = (
        Fact("rank", "OMPI_COMM_WORLD_RANK", OPEN_MPI),
        Fact("size", "OMPI_COMM_WORLD_SIZE", OPEN_MPI),
        Fact("local_rank", "OMPI_COMM_WORLD_LOCAL_RANK", OPEN_MPI),
        Fact("local_size", "OMPI_COMM_WORLD_LOCAL_SIZE", OPEN_MPI),
    )


class PmiRanks(NamedTuple):
    """One rank that a PMI launcher started: Cray PALS mpiexec (PBS on HPE systems), MPICH's Hydra, PMIx."""

    rank: Optional[str]
    size: Optional[str]
    local_rank: Optional[str]
    local_size: Optional[str]
    pals_rank: Optional[str]
    pals_local_rank: Optional[str]
    pals_local_size: Optional[str]
    hydra_local_rank: Optional[str]
    hydra_local_size: Optional[str]
    pmix_rank: Optional[str]

    FACTS = (
        Fact("rank", "PMI_RANK", FROM_CRAY_PMI),
        Fact("size", "PMI_SIZE", FROM_CRAY_PMI),
        Fact("local_rank", "PMI_LOCAL_RANK", FROM_PALS + " --pmi=cray"),
        Fact("local_size", "PMI_LOCAL_SIZE", FROM_PALS + " --pmi=cray"),
        Fact("pals_rank", "PALS_RANKID", FROM_PALS),
        Fact("pals_local_rank", "PALS_LOCAL_RANKID", FROM_PALS),
        Fact("pals_local_size", "PALS_LOCAL_SIZE", FROM_PALS),
        Fact("hydra_local_rank", "MPI_LOCALRANKID", FROM_HYDRA),
        Fact("hydra_local_size", "MPI_LOCALNRANKS", FROM_HYDRA),
        Fact("pmix_rank", "PMIX_RANK", FROM_PMIX),
    )


def read(record_type, env: Mapping[str, str]):
    """`record_type` (Slurm, Pbs, OpenMpiRanks, PmiRanks) from `env`."""
    return record_type(**{fact.field: env.get(fact.variable) for fact in record_type.FACTS})


def read_slurm(env: Mapping[str, str]) -> Slurm:
    return read(Slurm, env)


def read_pbs(env: Mapping[str, str]) -> Pbs:
    return read(Pbs, env)


def read_open_mpi(env: Mapping[str, str]) -> OpenMpiRanks:
    return read(OpenMpiRanks, env)


def read_pmi(env: Mapping[str, str]) -> PmiRanks:
    return read(PmiRanks, env)


def variable_of(record_type, field: str) -> str:
    """The variable behind `field` of a record type, for messages: variable_of(Slurm, "procid") = SLURM_PROCID."""
    return next(fact.variable for fact in record_type.FACTS if fact.field == field)


def job_id_variable(scheduler: str) -> str:
    """The variable that holds the job's id under `scheduler` ("pbs"; Slurm's otherwise), for messages."""
    return variable_of(Pbs if scheduler == "pbs" else Slurm, "job_id")


def job_id(env: Mapping[str, str]) -> Optional[str]:
    """The job's id: Slurm's, else PBS's (an empty one counts as unset), None outside a job."""
    return read_slurm(env).job_id or read_pbs(env).job_id or None


def under_pbs(env: Mapping[str, str]) -> bool:
    """A PBS job: PBS sets PBS_JOBID in every task of a job; a Slurm job that also carries one (a PBS job's
    environment passed on by hand) is Slurm's."""
    return read_pbs(env).job_id is not None and read_slurm(env).job_id is None


def _whole(text: str) -> bool:
    """ASCII digits only: what int() reads alike in bash and Python (isdigit alone takes '١' or '²')."""
    return bool(text) and all("0" <= char <= "9" for char in text)


def gpus_per_task(env: Mapping[str, str]) -> str:
    """The N of `srun --gpus-per-task=N` (sbatch's or the environment's), or ''. Slurm up to 23.05 exports
    SLURM_GPUS_PER_TASK=N; from 23.11 only SLURM_TRES_PER_TASK, a list such as `cpu=4,gres/gpu=1` or
    `gres/gpu:h100=2` (srun(1) of slurm-25-11-7-1: "If --cpus-per-task or --gpus-per-task is specified, it is
    also set in SLURM_TRES_PER_TASK"). Anything but a whole number reads as ''."""
    slurm = read_slurm(env)
    found = slurm.gpus_per_task or ""
    if not found:
        for item in (slurm.tres_per_task or "").split(","):
            name, _, count = item.partition("=")
            if (name == "gres/gpu" or (name.startswith("gres/gpu:") and len(name) > len("gres/gpu:"))) and \
                    _whole(count):
                found = count
    return found if _whole(found) else ""

