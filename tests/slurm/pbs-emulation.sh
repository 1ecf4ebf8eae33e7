#!/usr/bin/env bash
# Run a PBS job script (jobscripts/gh200-pbs.sh, or PBS_EMULATION_SCRIPT) as PBS Pro would, inside a job
# of the Slurm test cluster: no PBS can be installed here (none is packaged for Debian or PyPI). The script
# sees what a PBS job sees: PBS_JOBID, PBS_NODEFILE (one line per MPI slot), PBS_O_WORKDIR, PBS_QUEUE, start
# in $HOME, no SLURM_* variables, and `mpiexec`/`pbsdsh`/`qsub`/`qstat` from tests/slurm/pbs-bin.
#   sbatch [--export=ALL,K=V] tests/slurm/pbs-emulation.sh        (K=V: the script's overrides, as qsub -v)
#   tests/slurm/pbs-bin/qsub [PBS options] jobscripts/gh200-pbs.sh  (records what `qstat -f` shows)
#SBATCH --job-name=ddp
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --output=%x-%j.out
set -euo pipefail
here=$(dirname "$(scontrol show job "$SLURM_JOB_ID" -o | grep -o ' Command=[^ ]*' | cut -d= -f2-)")
repo=$(cd "$here/../.." && pwd)

# PBS Pro writes each node once per MPI slot (mpiprocs=2 here); the job script must count nodes, not lines.
# The names are FQDNs, neither the Slurm node names nor what the nodes call themselves (node2's hostname is
# an xname, tests/slurm/up.sh): OpenPBS generate_pbs_nodefile() (src/resmom/start_exec.c) writes a vnode's
# host name as the server gave it (vn_hname) and only shortens the mom's own name, and HPE's PBS Pro names
# its moms by FQDN on the Slingshot network (ALCF user guides, docs/running-jobs/index.md: `pbsnodes`
# shows "Mom = x3002c0s7b1n0.hsn.cm.polaris.alcf.anl.gov" for the host x3002c0s7b1n0). nodeN.ddptest.local
# resolves in the test cluster (up.sh's /etc/hosts block). PBS_EMULATION_NODE_DOMAIN=invalid writes names
# no host answers to (RFC 6761 reserves .invalid), as a node file copied from another system would be.
nodefile="$SLURM_SUBMIT_DIR/pbs-nodefile-$SLURM_JOB_ID"
domain=${PBS_EMULATION_NODE_DOMAIN:-ddptest.local}
scontrol show hostnames "$SLURM_JOB_NODELIST" | awk -v domain="$domain" '{print $1 "." domain; print $1 "." domain}' >"$nodefile"

export PBS_EMULATION_SLURM_JOB_ID=$SLURM_JOB_ID
export PBS_JOBID="$SLURM_JOB_ID.pbs-emulation"
export PBS_JOBNAME=ddp
export PBS_NODEFILE=$nodefile
export PBS_O_WORKDIR=$SLURM_SUBMIT_DIR
# The mom's own variables for a batch job (finish_exec(), src/resmom/start_exec.c): pbsdsh refuses to run
# without PBS_ENVIRONMENT ("not executing under PBS"); the batch script is task 1 (written "%u") of node 0
export PBS_ENVIRONMENT=PBS_BATCH PBS_NODENUM=0 PBS_TASKNUM=1
export PBS_EMULATION_STATE=${PBS_EMULATION_STATE:-$SLURM_SUBMIT_DIR/.pbs-state}
PBS_QUEUE=$(sed -n 's/^queue = //p' "$PBS_EMULATION_STATE/$PBS_JOBID" 2>/dev/null || true)
export PBS_QUEUE=${PBS_QUEUE:-workq}
export PATH="$repo/tests/slurm/pbs-bin:$PATH"
export DDP_JOBSCRIPTS="$repo/jobscripts"
while read -r name; do unset "$name"; done < <(compgen -e | grep '^SLURM_')
# The batch script starts in $HOME with umask 077 unless the job asked for another (qsub -W umask=...):
# finish_exec(), src/resmom/start_exec.c
umask 077
cd "$HOME"
exec bash "${PBS_EMULATION_SCRIPT:-$repo/jobscripts/gh200-pbs.sh}"
