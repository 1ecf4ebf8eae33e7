"""Slurm's launchers for a step (standard library only): one srun task per node, or one per GPU.

LAUNCH=torchrun: one srun task per node runs torchrun, which starts the per-GPU workers itself. LAUNCH=srun: one
srun task per GPU runs python itself (as the users' Slurm multi-GPU guide does). nccl-tests: one srun task per GPU,
each an MPI rank of the image's Open MPI, which learns its peers from Slurm's PMIx server.
"""

from typing import List, Mapping, NamedTuple

from app.host.common.errors import UsageError
from app.host.common.scheduler_env import read_slurm
from app.host.launch.numbers import is_whole


class SlurmLaunch(NamedTuple):
    """STEP: how a step runs its program (torchrun, task, mpi); PER_NODE: one task per node (the launch check's
    launcher, and torchrun's); LAUNCHER: the step's own."""

    step: str
    per_node: List[str]
    launcher: List[str]


def slurm_launch(launch: str, workload_kind: str, nnodes: int, nproc: int, env: Mapping[str, str]) -> SlurmLaunch:
    """The srun command lines for LAUNCH and the workload, from the job's CPUs (SLURM_CPUS_PER_TASK,
    SLURM_CPUS_ON_NODE)."""
    slurm = read_slurm(env)
    cpus_per_task, cpus_on_node = slurm.cpus_per_task or "", slurm.cpus_on_node or ""
    if cpus_per_task and not is_whole(cpus_per_task):
        raise UsageError(f"SLURM_CPUS_PER_TASK={cpus_per_task} is not a whole number; unset it or give one, "
                         "example: sbatch --cpus-per-task=8")
    # --kill-on-bad-exit: one failed node ends the step instead of a hang. One task per node whatever
    # --ntasks-per-node the job was submitted with.
    per_node = ["srun", "--kill-on-bad-exit=1", f"--nodes={nnodes}", f"--ntasks={nnodes}", "--ntasks-per-node=1"]
    # Slurm 22.05+ no longer hands sbatch's --cpus-per-task to srun: without this, torchrun and all its workers
    # would share one CPU on clusters that bind tasks to cores.
    if cpus_per_task:
        per_node.append(f"--cpus-per-task={cpus_per_task}")
    mpi = []  # type: List[str]
    if workload_kind == "nccl-tests":
        # An MPI program: srun starts every rank (Slurm built --with-pmix: srun --mpi=list names pmix)
        launch, mpi = "srun", ["--mpi=pmix"]
    if launch == "torchrun":
        return SlurmLaunch("torchrun", per_node, per_node)
    if launch != "srun":
        raise UsageError(f"LAUNCH={launch} is not torchrun or srun; example: LAUNCH=srun (one srun task per GPU)")
    launcher = ["srun", "--kill-on-bad-exit=1", *mpi, f"--nodes={nnodes}", f"--ntasks={nnodes * nproc}",
                f"--ntasks-per-node={nproc}"]
    # The node's CPUs shared out among its tasks: all the job has there (SLURM_CPUS_ON_NODE), not one task's share,
    # which is a quarter of it when the job asked for --ntasks-per-node=4 --cpus-per-task=20
    # (SLURM_TASKS_PER_NODE=4(x1024)): 20 / 4 would leave 60 of 80 CPUs idle.
    if cpus_per_task:
        node_cpus = int(cpus_on_node) if is_whole(cpus_on_node) else int(cpus_per_task)
        launcher.append(f"--cpus-per-task={max(node_cpus // nproc, 1)}")
    # Fewer CPUs than tasks (no CPU request: one per node): srun would refuse the step ("More processors requested
    # than permitted"); --overcommit lets the tasks share them, as torchrun's workers do.
    if is_whole(cpus_on_node) and int(cpus_on_node) < nproc:
        launcher.append("--overcommit")
    return SlurmLaunch("mpi" if mpi else "task", per_node, launcher)


def cpus_warning(nproc: int, env: Mapping[str, str]) -> str:
    """Workers that share one CPU run many times slower, and nothing says so. Slurm gives a job one CPU per task
    unless it asks (sbatch --cpus-per-gpu, --cpus-per-task, --exclusive) or the site sets DefCpuPerGPU."""
    cpus = read_slurm(env).cpus_on_node or ""
    if not is_whole(cpus) or int(cpus) >= nproc:
        return ""
    return (f"warning: {nproc} process(es) per node share {cpus} CPU(s) of this allocation; ask for CPUs: "
            "sbatch --cpus-per-gpu=8 (with GPUs), or --exclusive / --cpus-per-task=N (CPU-only)")
