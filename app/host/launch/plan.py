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
    #: torchrun's --numa-binding, or nothing (app/host/launch/numa.py)
    numa: Sequence[str] = ()

    def torchrun_argv(self, rdzv_id: str, program: Sequence[str]) -> List[str]:
        """One torchrun per node; they meet at the head node (static rendezvous, run id RDZV_ID, public) and start
        `nproc` workers of python PROGRAM each (torchrun's trailing arguments: SCRIPT.py ARGS or -m MODULE ARGS).

        Why static, not c10d: the c10d rendezvous keeps its state in the store as a pickle that every agent loads
        at each sync (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py), and TCPStore lets anyone who
        reaches the port list and rewrite keys: a crafted pickle there ran another user's code as the job's user.
        The static rendezvous keeps no state in the store: the node rank comes from the scheduler (the node
        wrapper's PET_NODE_RANK), node 0 serves the store, and each worker's rank is computed from the node rank
        (TORCH_ELASTIC_WORKER_IDENTICAL=1, set by the wrapper). What c10d adds is elasticity: nodes joining or
        leaving a running job and torchrun's in-place restarts (--max-restarts). The project uses neither: the
        node count is fixed for a job, a failed node is left out by requeueing the job
        (app/host/launch/bad_node_requeue.py), and torchrun runs with no restarts. The workers' own keys are sealed
        with the job's secret (app/common/signed_store.py)."""
        return [
            "torchrun",
            f"--nnodes={self.nnodes}",
            f"--nproc-per-node={self.nproc}",
            *self.numa,
            "--rdzv-backend=static",
            f"--rdzv-endpoint={self.rdzv_host}:{self.rdzv_port}",
            f"--rdzv-id={rdzv_id}",
            # A node that never joins (its launcher did not start) fails the job after this many seconds: node 0's
            # store waits this long for every node (torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py)
            f"--rdzv-conf=timeout={self.join_timeout_s}",
            *program,
        ]
