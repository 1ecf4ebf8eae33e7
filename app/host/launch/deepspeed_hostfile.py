"""RUN_DIR/hostfile for users of DeepSpeed's own launcher (standard library only).

`deepspeed --hostfile RUN_DIR/hostfile train.py` reaches every node over ssh/pdsh; the file has one `NODE slots=N`
line per node of the job, in the scheduler's names, the format its runner parses (`^(\\S+)\\s+slots=(\\d+)`,
deepspeed/launcher/runner.py _parse_hostfile). MareNostrum 5's guide writes `scontrol show hostnames` alone, which
that parser refuses ("Hostfile contains a bad entry"). The job scripts themselves start torchrun on every node and
do not read it. Rewritten on every run: a requeued job may have other nodes.
"""

import os
from typing import Sequence


def hostfile_text(nodes: Sequence[str], nproc: int) -> str:
    return "".join(f"{node} slots={nproc}\n" for node in nodes)


def write_hostfile(path: str, text: str, group_readable: bool) -> None:
    """PATH with TEXT, replaced whole (a reader never sees half a file); only the owner reads it (the group too
    with RUN_DIR_MODE=750), whatever the umask."""
    mode = 0o640 if group_readable else 0o600
    partial = path + ".tmp"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(descriptor, mode)
        os.write(descriptor, text.encode())
    finally:
        os.close(descriptor)
    os.replace(partial, path)


def launch_line(hostfile: str, scheduler: str, nnodes: int, head: str, port: str) -> str:
    """How to start DeepSpeed's own launcher from HOSTFILE without SSH, one per node. `--no_ssh` alone still asks
    the first node for its address over SSH (`ssh NODE hostname -I`) unless `--master_addr` is given, and
    `--launcher slurm` needs `sinfo`, which the image lacks (deepspeed/launcher/runner.py main,
    multinode_runner.py SlurmRunner.backend_exists, v0.19.8). A node's rank is its line in HOSTFILE (Slurm's
    SLURM_NODEID, Cray PALS' PALS_NODEID: one task per node, in the job's node order); the master, node 0, is the
    first line."""
    node_rank, launcher = "$SLURM_NODEID", "srun --ntasks-per-node=1"
    if scheduler == "pbs":
        node_rank, launcher = "$PALS_NODEID", f"mpiexec -n {nnodes} --ppn 1"
    return (f"deepspeed's launcher without SSH: one per node ({launcher}), each in the image running: deepspeed "
            f"--hostfile {hostfile} --no_ssh --node_rank={node_rank} --master_addr={head} --master_port={port} "
            "SCRIPT.py")
