"""The job's allocation from the scheduler's environment (standard library only): its id, submit directory, GPUs
a node and nodes, the head first. DRY_RUN=1 outside a job (a login node, a laptop) plans for DRY_RUN_NODES
(comma- or space-separated, default node1,node2) with GPUS_PER_NODE GPUs each (default 4)."""

import re
import subprocess
from typing import List, Mapping, NamedTuple

from app.host.common.errors import UsageError
from app.host.common.scheduler_env import read_pbs, read_slurm
from app.host.launch.knobs import switch
from app.host.launch.pbs_nodes import job_nodes


class Allocation(NamedTuple):
    job_id: str
    submit_dir: str
    #: GPUs a node as the scheduler gave them ('' where it does not say)
    gpus_per_node: str
    nodes: List[str]
    said: str


def dry_run_allocation(env: Mapping[str, str], cwd: str) -> Allocation:
    nodes = [name for name in re.split(r"[ ,\t\n]+", env.get("DRY_RUN_NODES", "node1,node2")) if name]
    if not nodes:
        raise UsageError("DRY_RUN_NODES is empty; example: DRY_RUN_NODES=gpu01,gpu02")
    gpus = env.get("GPUS_PER_NODE") or "4"
    return Allocation("dry-run", cwd, gpus, nodes,
                      f"DRY_RUN=1 outside a job: planning for {len(nodes)} node(s) ({' '.join(nodes)}; DRY_RUN_NODES) "
                      f"with {gpus} GPU(s) each (GPUS_PER_NODE); nothing runs")


def slurm_hostnames(node_list: str) -> List[str]:
    """The job's nodes (`scontrol show hostnames`, read whole: 4096 of them are a long list)."""
    try:
        # Python 3.6 has neither text= nor capture_output=
        done = subprocess.run(  # noqa: UP022
            ["scontrol", "show", "hostnames", node_list], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, check=False)  # noqa: UP021
    except OSError as cause:
        raise UsageError(f"scontrol cannot run ({cause.strerror}); the job scripts need Slurm's commands in PATH on "
                         "the batch host") from None
    nodes = done.stdout.split()
    if done.returncode or not nodes:
        said = "; ".join(line.strip() for line in done.stderr.splitlines() if line.strip())
        raise UsageError(f"scontrol show hostnames {node_list} failed (exit {done.returncode}): {said or 'no nodes'}")
    return nodes


def allocation(scheduler: str, script: str, env: Mapping[str, str], cwd: str) -> Allocation:
    """The allocation of the job this script runs in; outside one, DRY_RUN=1's, else how to submit it."""
    # Checked first: a DRY_RUN=true read as 0 inside a job would run it
    dry_run = switch("DRY_RUN", env.get("DRY_RUN") or "0")
    slurm, pbs = read_slurm(env), read_pbs(env)
    job_id = (slurm.job_id if scheduler == "slurm" else pbs.job_id) or ""
    if not job_id and dry_run:
        return dry_run_allocation(env, cwd)
    plan = f"or see what it would run: DRY_RUN=1 DRY_RUN_NODES=node1,node2 bash jobscripts/{script}"
    if scheduler == "slurm":
        if not job_id:
            raise UsageError(f"not inside a Slurm job; submit it: sbatch [site flags] jobscripts/{script} [train "
                             f"[key=value ...] | check | SCRIPT.py ARGS] ({plan})")
        return Allocation(job_id, slurm.submit_dir or cwd, slurm.gpus_on_node or "",
                          slurm_hostnames(slurm.job_nodelist or ""), "")
    if not job_id or not pbs.nodefile:
        raise UsageError(f"not inside a PBS job (PBS_JOBID/PBS_NODEFILE unset); submit it: qsub -A PROJECT -q QUEUE "
                         f"[-v WORKLOAD=check] jobscripts/{script} ({plan})")
    return Allocation(job_id, pbs.submit_dir or cwd, "", list(job_nodes(pbs.nodefile).nodes), "")
