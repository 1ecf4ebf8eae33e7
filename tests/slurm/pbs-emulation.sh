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
nodefile="$SLURM_SUBMIT_DIR/pbs-nodefile-$SLURM_JOB_ID"
scontrol show hostnames "$SLURM_JOB_NODELIST" | awk '{print; print}' >"$nodefile"

export PBS_EMULATION_SLURM_JOB_ID=$SLURM_JOB_ID
export PBS_JOBID="$SLURM_JOB_ID.pbs-emulation"
export PBS_JOBNAME=ddp
export PBS_NODEFILE=$nodefile
export PBS_O_WORKDIR=$SLURM_SUBMIT_DIR
export PBS_EMULATION_STATE=${PBS_EMULATION_STATE:-$SLURM_SUBMIT_DIR/.pbs-state}
PBS_QUEUE=$(sed -n 's/^queue = //p' "$PBS_EMULATION_STATE/$PBS_JOBID" 2>/dev/null || true)
export PBS_QUEUE=${PBS_QUEUE:-workq}
export PATH="$repo/tests/slurm/pbs-bin:$PATH"
export DDP_JOBSCRIPTS="$repo/jobscripts"
while read -r name; do unset "$name"; done < <(compgen -e | grep '^SLURM_')
cd "$HOME"
exec bash "${PBS_EMULATION_SCRIPT:-$repo/jobscripts/gh200-pbs.sh}"
