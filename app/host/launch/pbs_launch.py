"""PBS's launchers for a step (standard library only): one process per node through Cray PALS' mpiexec or
OpenPBS' pbsdsh, or one MPI rank per GPU through PALS for nccl-tests.

LAUNCHER=mpiexec: `mpiexec -n NNODES --ppn 1`, Cray PALS' placement (one process on each node of the job);
--cpu-bind none leaves every core to torchrun's workers.
LAUNCHER=pbsdsh: `python3 -m app.launch pbsdsh-run` of this checkout (app/host/launch/pbsdsh.py), one `pbsdsh -n LINE`
per node.
nccl-tests: each rank an MPI rank of the image's Open MPI, which wires up through the PMIx server of Cray PALS.
What is documented of it: Open MPI's "Launching with HPE PALS" (docs/launching-apps/pals.rst) shows PALS' direct
launch with `aprun --pmi=pmix` (or ALPS_PMI=pmix), not `mpiexec`, and recommends Open MPI's own mpirun for "the
limitations in the PMIx server provided in PALS"; this `mpiexec --pmi=pmix` is PALS' mpiexec with the same option,
which no PALS document we could read shows. It runs only under the emulated PBS here, whose PALS stand-in serves no
PMIx (docs/development.md): untested on a real PALS. pbsdsh's TM tasks get no PMIx server: no way to wire the
ranks up there.
"""

from typing import List, NamedTuple, Sequence

from app.host.common.errors import UsageError
from app.host.launch.workload import nccl_tests_one_node


class PbsLaunch(NamedTuple):
    """STEP: how a step runs its program (torchrun: one torchrun per node; mpi: the program is every rank);
    PER_NODE: one process per node (the launch check's launcher, and torchrun's); LAUNCHER: the step's own."""

    step: str
    per_node: List[str]
    launcher: List[str]


def pbs_launch(launcher: str, workload_kind: str, nnodes: int, nproc: int, pbsdsh: Sequence[str] = ()) -> PbsLaunch:
    """The command lines for LAUNCHER (mpiexec, pbsdsh; empty: mpiexec) and the workload's kind; PBSDSH: the
    command that runs a command once on every node through pbsdsh."""
    launcher = launcher or "mpiexec"
    if launcher == "mpiexec":
        per_node = ["mpiexec", "-n", str(nnodes), "--ppn", "1", "--cpu-bind", "none"]
    elif launcher == "pbsdsh":
        per_node = list(pbsdsh)
    else:
        raise UsageError(f"LAUNCHER={launcher} is not mpiexec or pbsdsh; example: LAUNCHER=mpiexec")
    if workload_kind != "nccl-tests":
        return PbsLaunch("torchrun", per_node, per_node)
    if launcher != "mpiexec":
        raise UsageError("nccl-tests needs a launcher that serves PMIx to the image's Open MPI, and "
                         f"LAUNCHER={launcher} (TM tasks) serves none; use LAUNCHER=mpiexec (Cray PALS: mpiexec "
                         f"--pmi=pmix), or run it on one node: {nccl_tests_one_node(nproc)} (docs/images.md)")
    return PbsLaunch("mpi", per_node, ["mpiexec", "-n", str(nnodes * nproc), "--ppn", str(nproc), "--pmi=pmix",
                                       "--cpu-bind", "none"])
