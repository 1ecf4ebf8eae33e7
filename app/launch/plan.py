"""The job's plan: what every node runs, as argv lists, from facts the scheduler and the knobs gave (standard
library only). Frozen: a NamedTuple, built once and read by each step."""

from typing import List, NamedTuple, Sequence


class Plan(NamedTuple):
    """The facts a step's command is built from."""

    #: Nodes of the job, and processes (workers, one a GPU) on each
    nnodes: int
    nproc: int
    #: Where every torchrun meets: the head node's address and the rendezvous port
    rdzv_host: str
    rdzv_port: int
    #: Seconds torchrun waits for every node to join (torch's default: 600)
    join_timeout_s: int
    #: torchrun's --numa-binding, or nothing (app/launch/numa.py)
    numa: Sequence[str] = ()

    def torchrun_argv(self, rdzv_id: str, program: Sequence[str]) -> List[str]:
        """One torchrun per node; they meet at the head node (c10d, rendezvous RDZV_ID) and start `nproc` workers
        of python PROGRAM each (torchrun's trailing arguments: SCRIPT.py ARGS or -m MODULE ARGS)."""
        return [
            "torchrun",
            f"--nnodes={self.nnodes}",
            f"--nproc-per-node={self.nproc}",
            *self.numa,
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={self.rdzv_host}:{self.rdzv_port}",
            f"--rdzv-id={rdzv_id}",
            # A node that never joins (its launcher did not start) fails the job after this many seconds
            f"--rdzv-conf=join_timeout={self.join_timeout_s}",
            *program,
        ]
