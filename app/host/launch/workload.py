"""What runs on every node, from the job's arguments (standard library only).

    (none) | train [key=value ...]  ->  -m app.train --config CONFIG run.dir=RUN_DIR [key=value ...]
    check [ARGS]                    ->  -m app.check [--site CHECK_SITE] [ARGS]
    nccl-tests [ARGS]               ->  all_reduce_perf -b 8 -e 4G -f 2 -g 1 [ARGS]   (an MPI program)
    -m MODULE [ARGS]                ->  -m MODULE [ARGS]
    SCRIPT.py [ARGS]                ->  SCRIPT.py [ARGS]   (a torchrun-compatible script of your own)
"""

import os
import re
from typing import List, NamedTuple, Sequence

from app.host.common.errors import UsageError

#: NVIDIA's reference all-reduce over every GPU of the job, one MPI rank per GPU (the image's MPI build of
#: nccl-tests): 8 B to 4 GiB, doubling, one GPU a rank
NCCL_TESTS = ["all_reduce_perf", "-b", "8", "-e", "4G", "-f", "2", "-g", "1"]


def nccl_tests_one_node(nproc: int) -> str:
    """The nccl-tests command for one node, for the messages of a job that cannot start the MPI ranks itself: the
    image's own mpirun, NPROC ranks on this node. Pasted inside a job of one task per node (as these scripts
    submit), Open MPI takes its slots from the scheduler and `mpirun -np NPROC` stops with "There are not enough
    slots available" (open-mpi/ompi#6020): --oversubscribe lifts that (Open MPI 5 still takes it, as --map-by
    :OVERSUBSCRIBE: docs.open-mpi.org, mpirun "Deprecated options"). In a job of several nodes the extra ranks would
    go to the others, through an srun the image lacks: --host localhost keeps them here (a slot count, localhost:N,
    is ignored under a scheduler's allocation). Both checked with Open MPI 4.1 under a two-node Slurm allocation
    (tests/jobscripts/test_jobscripts_nccl_tests.py)."""
    mpirun = ["mpirun", "--oversubscribe", "--host", "localhost", "-np", str(nproc)]
    return " ".join(["apptainer", "exec", "--nv", "app.sif", *mpirun, *NCCL_TESTS])


class Workload(NamedTuple):
    """KIND (train, check, nccl-tests, module, script) and ARGV: torchrun's trailing arguments, or the MPI program."""

    kind: str
    argv: List[str]


def submit_command(scheduler: str, script: str, workload: Sequence[str]) -> str:
    """How to submit SCRIPT with WORKLOAD, for messages. qsub gives a batch script no arguments (qsub.1B: arguments
    follow only `-- executable`), so under PBS the workload goes in the WORKLOAD variable."""
    if scheduler == "pbs":
        return 'qsub -v WORKLOAD="{}" {}'.format(" ".join(workload), script)
    return " ".join(["sbatch", script, *workload])


def workload(args: Sequence[str], config: str, run_dir: str, check_site: str, scheduler: str, script: str,
             cwd: str) -> Workload:
    """The job's arguments ARGS as a Workload; a SCRIPT.py must be a file (relative to CWD, the job's directory)."""
    what, rest = (args[0], list(args[1:])) if args else ("train", [])
    if what == "train":
        return Workload("train", ["-m", "app.train", "--config", config, "run.dir=" + run_dir, *rest])
    if what == "check":
        # The site's expectations (bandwidth thresholds, message sizes) unless you name a profile yourself
        site = ["--site", check_site] if check_site and not re.search(r" --site[ =]", " {} ".format(" ".join(rest))) \
            else []
        return Workload("check", ["-m", "app.check", *site, *rest])
    if what == "nccl-tests":
        return Workload("nccl-tests", NCCL_TESTS + rest)
    if what == "-m":
        if not rest:
            raise UsageError("-m needs a module name; example: " + submit_command(
                scheduler, script, ["-m", "my_pkg.train", "--epochs", "5"]))
        return Workload("module", ["-m", *rest])
    if not os.path.isfile(os.path.join(cwd, what)):
        # nccl-tests under both schedulers (PBS: through PALS' mpiexec, app/host/launch/pbs_launch.py)
        usage = submit_command(scheduler, script, ["[train [key=value ...] | check | nccl-tests [ARGS] | SCRIPT.py",
                                                   "[ARGS] | -m MODULE [ARGS]]"])
        raise UsageError(f"'{what}' is neither train, check, nccl-tests nor a script file (looked in {cwd}); "
                         f"usage: {usage}")
    return Workload("script", [what, *rest])
