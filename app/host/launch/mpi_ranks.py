"""nccl-tests' MPI ranks, each started in its own container by the scheduler's launcher (standard library only):
what their environment needs, and Slurm's PMIx plugin that wires them up."""

import re
import subprocess
from typing import List, Tuple

from app.host.common.errors import UsageError
from app.host.launch.workload import nccl_tests_one_node


def mpi_rank_defaults(workload_kind: str, gpus_per_task: str) -> List[Tuple[str, str, str]]:
    """(NAME, VALUE, WHY) for the ranks of nccl-tests; nothing for any other workload."""
    if workload_kind != "nccl-tests":
        return []
    # Each rank's `apptainer exec` has a user namespace of its own, so a single-copy transfer between ranks of a
    # node (CMA, process_vm_readv) is refused. Open MPI's own shared-memory transport (pml ob1 with btl vader,
    # named sm in Open MPI 5, which still reads the vader_ names: docs.open-mpi.org v5.0, "Shared Memory") then
    # warns on every rank ("CMA is not available", seen with the twin's Open MPI 4.1): copy in/out instead. HPC-X's
    # Open MPI in the NGC images carries point-to-point over UCX (pml ucx), which does not read this; UCX's own
    # posix and cma transports check the user namespace themselves (openucx/ucx PR #9213). Only MPI's bootstrap
    # traffic goes this way either way: NCCL carries the measured data.
    defaults = [("OMPI_MCA_btl_vader_single_copy_mechanism", "none",
                 "no CMA across the containers' user namespaces, for Open MPI's own shared memory (ob1); UCX does not "
                 "read it")]
    # --gpus-per-task (sbatch's, which srun reads back from SLURM_*) implies --gpu-bind=per_task (srun(1)): each
    # task sees its own GPUs from index 0. nccl-tests picks GPU localRank * nGpus + i unless NCCL_TESTS_DEVICE names
    # the first (src/common.cu, nccl-tests v2.17.6, the image's): every rank but a node's first would ask for a GPU
    # its task cannot see.
    if gpus_per_task:
        defaults.append(("NCCL_TESTS_DEVICE", "0",
                         f"--gpus-per-task={gpus_per_task}: each task's own GPUs start at index 0, not at its local "
                         "rank"))
    return defaults


def require_pmix(nproc: int) -> None:
    """nccl-tests' ranks learn their peers from Slurm's PMIx server (Slurm built --with-pmix: `srun --mpi=list`
    names pmix); UsageError with a one-node command that runs where it has none."""
    try:
        # Slurm writes the list on stderr
        listed = subprocess.run(["srun", "--mpi=list"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=60, check=False).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired):
        listed = ""
    if not re.search(r"(?<!\w)pmix(?!\w)", listed):
        raise UsageError("nccl-tests needs Slurm's PMIx plugin (srun --mpi=pmix) for the image's OpenMPI, and srun "
                         "--mpi=list does not list pmix here; ask your site for it, or run on one node: "
                         + nccl_tests_one_node(nproc))
