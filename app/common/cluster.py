"""Who started this process, and what are its rank, world size and rendezvous address?

One small class per launcher, each with a static `detect()` and short accessors. Accessors only read
the environment mapping they were given (never write `os.environ`), so they are trivial to test with
a dict. Precedence, first match wins:

1. `Torchrun`: `torchrun` (or a user who exported RANK/WORLD_SIZE/MASTER_ADDR by hand).
2. `OpenMpi`: OpenMPI's `mpirun`/`mpiexec` (OMPI_COMM_WORLD_*).
3. `Slurm`: `srun` started one process per GPU (SLURM_PROCID inside a job step), `--mpi=pmix` included.
4. `Pbs`: PBS Pro / Cray PALS `mpiexec` started one process per GPU (PMI_RANK/PMI_SIZE, PALS_*).
5. `SingleProcess`: a plain `python -m app.train`, world size 1.

Torchrun comes first because the job scripts run torchrun *inside* an srun/mpiexec task: its workers
see both SLURM_PROCID (the node's task) and RANK (their own), and RANK is the one that counts. OpenMPI
comes before Slurm because `mpirun` in a Slurm job starts its daemons with srun: the ranks inherit the
daemon's SLURM_PROCID (the node's index), and OMPI_COMM_WORLD_RANK is the one that counts.
A launcher whose variables are only half there (a rank without a world size) is an error, not a
single process: N copies of a world-size-1 run would share one GPU and one run directory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from app.host.common import scheduler_env
from app.host.common.errors import UsageError
from app.host.common.rendezvous_port import DEFAULT_PORT, launcher_port
from app.host.common.scheduler_env import OpenMpiRanks, PmiRanks, variable_of
from app.host.common.scheduler_env import Slurm as SlurmFacts


def parse_hostlist(hostlist: str) -> list[str]:
    """Expand a Slurm hostlist: `node[01-03,7],gpu5` -> node01 node02 node03 node7 gpu5.

    Handles zero padding (taken from the range's start), several bracket groups in one name
    (`r[1-2]n[1-2]`, expanded in order) and commas inside brackets. Pure function, no `scontrol`.
    """
    hosts: list[str] = []
    for item in _split_top_level(hostlist.strip()):
        hosts.extend(_expand_one(item, hostlist))
    return hosts


def _split_top_level(text: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item for item in items if item]


def _expand_one(item: str, whole: str) -> list[str]:
    match = re.search(r"\[([^\]]*)\]", item)
    if match is None:
        if "[" in item or "]" in item:
            raise UsageError(f"hostlist {whole!r} has unbalanced brackets; example: node[01-04,07]")
        return [item]
    prefix, suffix = item[: match.start()], item[match.end() :]
    expanded = []
    for part in match.group(1).split(","):
        bounds = part.split("-")
        if len(bounds) == 1:
            bounds = [bounds[0], bounds[0]]
        if len(bounds) != 2 or not all(b.isdigit() for b in bounds) or int(bounds[0]) > int(bounds[1]):
            raise UsageError(f"hostlist {whole!r} has a bad range {part!r}; example: node[01-04,07]")
        width = len(bounds[0])
        for n in range(int(bounds[0]), int(bounds[1]) + 1):
            expanded.extend(f"{prefix}{n:0{width}d}{s}" for s in _expand_one(suffix, whole))
    return expanded


class ClusterEnvironment:
    """Base class: rank information read from one launcher's environment variables."""

    name = "base"

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    @staticmethod
    def detect(env: Mapping[str, str]) -> bool:
        """True when this launcher started the process; each subclass says how it knows."""
        return False

    def rank(self) -> int:
        return 0

    def local_rank(self) -> int:
        return 0

    def world_size(self) -> int:
        return 1

    def local_world_size(self) -> int:
        """Processes of this job on this node."""
        return 1

    def main_address(self) -> str:
        """MASTER_ADDR when the user (or torchrun) set it, else where this launcher says rank 0 is."""
        return self.env["MASTER_ADDR"] if "MASTER_ADDR" in self.env else self._default_address()

    def main_port(self) -> int:
        """MASTER_PORT when set, else this launcher's default (derived from the job id where it has one)."""
        return self._int("MASTER_PORT", "29500") if "MASTER_PORT" in self.env else self._default_port()

    def store_secret(self) -> str:
        """The job's secret that seals every value of the store (DDP_STORE_SECRET, which the job scripts make at
        job start and pass to every node in the environment); '' when the launch gave none."""
        return self.env.get("DDP_STORE_SECRET", "")

    def store_scope(self) -> str:
        """What tells this step's store values from another step's of the same job (both sealed with one secret,
        app/common/signed_store.py): '' where the launch names no step."""
        return ""

    def _default_address(self) -> str:
        return "127.0.0.1"

    def _default_port(self) -> int:
        return DEFAULT_PORT

    def _first_host(self, *fields: str) -> str:
        """The first host of the first Slurm hostlist among `fields` (of the Slurm record) that is set."""
        slurm = scheduler_env.read_slurm(self.env)
        nodelist = next((getattr(slurm, field) for field in fields if getattr(slurm, field)), "")
        if not nodelist:
            unset = variable_of(SlurmFacts, fields[0])
            raise UsageError(f"{self.name}: {unset} is not set; example: MASTER_ADDR=node01")
        return parse_hostlist(nodelist)[0]

    def _fact(self, record_type: type, field: str, example: str, default: str | None = None) -> int:
        """The scheduler's variable behind `field` of `record_type` (read by scheduler_env) as a whole number."""
        value = getattr(scheduler_env.read(record_type, self.env), field)
        return self._whole(variable_of(record_type, field), default if value is None else value, example)

    def _int(self, key: str, example: str, default: str | None = None) -> int:
        return self._whole(key, self.env.get(key, default), example)

    def _whole(self, key: str, raw: str | None, example: str) -> int:
        if raw is None:
            raise UsageError(f"{self.name}: {key} is not set; example: {key}={example}")
        try:
            value = int(raw)
        except ValueError:
            raise UsageError(f"{self.name}: {key}={raw!r} is not an integer; example: {key}={example}") from None
        if value < 0:
            raise UsageError(f"{self.name}: {key}={raw!r} is negative; example: {key}={example}")
        return value

    def validate(self) -> None:
        """Raise `UsageError` naming the variable when the values cannot describe a real launch."""
        rank, world_size, local_rank = self.rank(), self.world_size(), self.local_rank()
        if world_size < 1:
            raise UsageError(f"{self.name}: world size is {world_size}; it must be at least 1")
        if rank >= world_size:
            raise UsageError(
                f"{self.name}: rank {rank} is not below world size {world_size}; "
                f"ranks run from 0 to {world_size - 1}"
            )
        if local_rank > rank:
            raise UsageError(f"{self.name}: local rank {local_rank} is above global rank {rank}")
        if world_size > 1:
            self.main_address()
            port = self.main_port()
            if not 0 < port < 65536:
                raise UsageError(f"{self.name}: port {port} is out of range; example: MASTER_PORT=29500")
        local_world_size = self.local_world_size()
        if not local_rank < local_world_size <= world_size:
            raise UsageError(f"{self.name}: local rank {local_rank} of {local_world_size} process(es) on this node "
                             f"does not fit world size {world_size}")

    def describe(self) -> str:
        return (f"{self.name}: rank {self.rank()}/{self.world_size()}, local rank "
                f"{self.local_rank()}/{self.local_world_size()}")


class Torchrun(ClusterEnvironment):
    """`torchrun` (or hand-exported RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT/LOCAL_RANK)."""

    name = "torchrun"

    @staticmethod
    def detect(env: Mapping[str, str]) -> bool:
        return any(key in env for key in ("TORCHELASTIC_RUN_ID", "RANK", "WORLD_SIZE"))

    def rank(self) -> int:
        return self._int("RANK", "0")

    def world_size(self) -> int:
        return self._int("WORLD_SIZE", "2")

    def local_rank(self) -> int:
        default = "0" if self.world_size() == 1 else None
        return self._int("LOCAL_RANK", "0", default)

    def local_world_size(self) -> int:
        # Exported by torchrun; by hand, assume every process of the job is on this node.
        return self._int("LOCAL_WORLD_SIZE", "4", str(self.world_size()))

    def _default_address(self) -> str:
        raise UsageError(f"{self.name}: MASTER_ADDR is not set; example: MASTER_ADDR=node01")

    def _default_port(self) -> int:
        return self._int("MASTER_PORT", "29500")  # raises: torchrun always sets it

    def is_elastic(self) -> bool:
        """torchrun's agent hosts the store; init must use env:// to reuse it."""
        return "TORCHELASTIC_RUN_ID" in self.env

    def store_scope(self) -> str:
        """The step's rendezvous id (--rdzv-id, which the job scripts make distinct per step: the preflight's ends
        in -preflight), alike on every rank of the step."""
        return self.env.get("TORCHELASTIC_RUN_ID", "")

    def uses_agent_store(self) -> bool:
        """The agent's store at MASTER_ADDR:MASTER_PORT is the one workers join (torch's own env:// handler
        then connects as a client: torch/distributed/rendezvous.py, `_create_c10d_store`)."""
        return self.env.get("TORCHELASTIC_USE_AGENT_STORE") == "True"


class OpenMpi(ClusterEnvironment):
    """OpenMPI's `mpirun -np N ... python -m app.train`: one process per GPU, OMPI_COMM_WORLD_* set.

    OpenMPI gives no rendezvous address: MASTER_ADDR, else the first node of the Slurm allocation
    it runs in; the port from MASTER_PORT, else derived from the Slurm job id, else 29500.
    """

    name = "openmpi"

    @staticmethod
    def detect(env: Mapping[str, str]) -> bool:
        return scheduler_env.read_open_mpi(env).rank is not None

    def rank(self) -> int:
        return self._fact(OpenMpiRanks, "rank", "0")

    def local_rank(self) -> int:
        return self._fact(OpenMpiRanks, "local_rank", "0")

    def world_size(self) -> int:
        return self._fact(OpenMpiRanks, "size", "8")

    def local_world_size(self) -> int:
        return self._fact(OpenMpiRanks, "local_size", "4")

    def _default_address(self) -> str:
        if not scheduler_env.read_slurm(self.env).job_nodelist:
            raise UsageError(f"{self.name}: mpirun gives no rendezvous address; export MASTER_ADDR=<first node> "
                             "before mpirun (and pass it on: mpirun -x MASTER_ADDR ...)")
        return self._first_host("job_nodelist")

    def _default_port(self) -> int:
        return launcher_port(scheduler_env.read_slurm(self.env).job_id)


class Slurm(ClusterEnvironment):
    """`srun` started one task per GPU: SLURM_PROCID is this task's rank within the job step."""

    name = "slurm"

    @staticmethod
    def detect(env: Mapping[str, str]) -> bool:
        slurm = scheduler_env.read_slurm(env)
        return slurm.procid is not None and slurm.step_num_tasks is not None

    def rank(self) -> int:
        return self._fact(SlurmFacts, "procid", "0")

    def local_rank(self) -> int:
        return self._fact(SlurmFacts, "localid", "0")

    def world_size(self) -> int:
        return self._fact(SlurmFacts, "step_num_tasks", "8")

    def local_world_size(self) -> int:
        """This node's entry of SLURM_STEP_TASKS_PER_NODE ('4(x2),2' = 4, 4, 2), by SLURM_NODEID."""
        slurm = scheduler_env.read_slurm(self.env)
        spec = slurm.step_tasks_per_node or slurm.tasks_per_node
        if not spec:
            raise UsageError(f"{self.name}: SLURM_STEP_TASKS_PER_NODE is not set (srun sets it); example: "
                             "SLURM_STEP_TASKS_PER_NODE=4(x2)")
        counts = parse_tasks_per_node(spec)
        node = self._fact(SlurmFacts, "nodeid", "0", "0")
        if node >= len(counts):
            raise UsageError(f"{self.name}: SLURM_NODEID={node} but SLURM_STEP_TASKS_PER_NODE={spec!r} lists "
                             f"{len(counts)} node(s)")
        return counts[node]

    def _default_address(self) -> str:
        return self._first_host("step_nodelist", "job_nodelist")

    def _default_port(self) -> int:
        return launcher_port(scheduler_env.read_slurm(self.env).job_id)


class Pbs(ClusterEnvironment):
    """PBS Pro with Cray PALS (or MPICH) `mpiexec` starting one process per GPU: PMI_RANK/PMI_SIZE."""

    name = "pbs"

    @staticmethod
    def detect(env: Mapping[str, str]) -> bool:
        ranks = scheduler_env.read_pmi(env)
        return ranks.rank is not None and ranks.size is not None

    def rank(self) -> int:
        return self._fact(PmiRanks, "rank", "0")

    def local_rank(self) -> int:
        ranks = scheduler_env.read_pmi(self.env)
        for field in ("local_rank", "pals_local_rank", "hydra_local_rank"):
            if getattr(ranks, field) is not None:
                return self._fact(PmiRanks, field, "0")
        return 0 if self.world_size() == 1 else self._fact(PmiRanks, "local_rank", "0")

    def world_size(self) -> int:
        return self._fact(PmiRanks, "size", "8")

    def local_world_size(self) -> int:
        ranks = scheduler_env.read_pmi(self.env)
        for field in ("local_size", "pals_local_size", "hydra_local_size"):
            if getattr(ranks, field) is not None:
                return self._fact(PmiRanks, field, "4")
        return self.world_size() if self.world_size() == 1 else self._fact(PmiRanks, "local_size", "4")

    def _default_address(self) -> str:
        nodefile = scheduler_env.read_pbs(self.env).nodefile
        if not nodefile:
            raise UsageError(
                f"{self.name}: neither MASTER_ADDR nor PBS_NODEFILE is set; example: MASTER_ADDR=x1000c0s0b0n0"
            )
        try:
            first = Path(nodefile).read_text().split()
        except OSError as err:
            raise UsageError(f"{self.name}: PBS_NODEFILE={nodefile!r} cannot be read ({err.strerror})") from None
        if not first:
            raise UsageError(f"{self.name}: PBS_NODEFILE={nodefile!r} is empty")
        return first[0]

    def _default_port(self) -> int:
        return launcher_port(scheduler_env.read_pbs(self.env).job_id)


class SingleProcess(ClusterEnvironment):
    """A plain `python -m ...`: world size 1."""

    name = "single process"

    @staticmethod
    def detect(env: Mapping[str, str]) -> bool:
        return True

    # One process meets no one: MASTER_ADDR/MASTER_PORT left over in the environment are not read.
    def main_address(self) -> str:
        return self._default_address()

    def main_port(self) -> int:
        return self._default_port()


#: Launchers in detection order; SingleProcess when none matches.
ENVIRONMENTS: tuple[type[ClusterEnvironment], ...] = (Torchrun, OpenMpi, Slurm, Pbs)

#: A rank from a launcher without the world size that must come with it: (PmiRanks field, launcher, remedy).
_HALF_SET = (
    ("rank", "an MPICH/Cray PMI mpiexec", "PMI_SIZE is missing"),
    ("pals_rank", "Cray PALS mpiexec", "PMI_SIZE is missing (PALS sets it with Cray PMI: mpiexec --pmi=cray)"),
    ("pmix_rank", "a PMIx launcher", "PMIx gives no world size in the environment"),
)


def parse_tasks_per_node(spec: str) -> list[int]:
    """Slurm's compressed task counts: '4(x2),2' -> [4, 4, 2]."""
    counts: list[int] = []
    for item in spec.split(","):
        match = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", item.strip())
        if match is None:
            raise UsageError(f"tasks per node {spec!r} is not Slurm's form; example: 4(x2),2")
        counts += [int(match.group(1))] * int(match.group(2) or 1)
    return counts


def detect_environment(env: Mapping[str, str]) -> ClusterEnvironment:
    """The first launcher whose variables are present, validated (raises `UsageError` when inconsistent)."""
    for environment_class in ENVIRONMENTS:
        if environment_class.detect(env):
            environment = environment_class(env)
            environment.validate()
            return environment
    ranks = scheduler_env.read_pmi(env)
    for field, launcher, missing in _HALF_SET:
        if getattr(ranks, field) is not None:
            raise UsageError(
                f"{variable_of(PmiRanks, field)}={getattr(ranks, field)} says {launcher} started this process, but "
                f"{missing}: each process would train alone; start one torchrun per node instead (jobscripts/, or "
                "torchrun --nnodes=N --nproc-per-node=G ...), or with srun --ntasks-per-node=G"
            )
    return SingleProcess(env)
