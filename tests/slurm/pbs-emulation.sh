#!/usr/bin/env bash
# Run a PBS job script (jobscripts/gh200-pbs.sh, or PBS_EMULATION_SCRIPT) as PBS Pro would, inside a job
# of the Slurm test cluster: no PBS can be installed here (none is packaged for Debian or PyPI). The script
# sees what a PBS job sees: PBS_JOBID, PBS_NODEFILE (one line per MPI slot), PBS_O_WORKDIR, PBS_QUEUE, start
# in $HOME, no SLURM_* variables, and `mpiexec`/`pbsdsh`/`qsub`/`qstat` from tests/slurm/pbs-bin.
#   sbatch [--export=ALL,K=V] tests/slurm/pbs-emulation.sh        (as qsub -V -k oed -v K=V: the whole environment,
#                                                                   the output file written as the job runs)
#   tests/slurm/pbs-bin/qsub [PBS options] jobscripts/gh200-pbs.sh  (records what `qstat -f` shows; it sets
#       PBS_EMULATION_COPY_ENV (-V), PBS_EMULATION_VARIABLES (the names of -v) and PBS_EMULATION_STAGE_OUT
#       (no -k: copy the output file to the submit directory at the end), which this script acts on)
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
job=(bash "${PBS_EMULATION_SCRIPT:-$repo/jobscripts/gh200-pbs.sh}")

# Without qsub -V the job gets PBS's own variables, the -v ones and the execution host's environment, not the
# submitter's (qsub.1B, -v, -V and ENVIRONMENT VARIABLES): the host's PATH is PBS_EMULATION_MOM_PATH, the
# PATH pbs_mom's pbs_environment file gives jobs at this site (the test cluster's: Slurm, the job venv).
if [[ ${PBS_EMULATION_COPY_ENV:-1} == 0 ]]; then
    declare -A passed=()
    IFS=, read -ra names <<<"${PBS_EMULATION_VARIABLES:-}"
    for name in "${names[@]}"; do passed[$name]=1; done
    job_env=(HOME="$HOME" LOGNAME="$(id -un)" USER="$(id -un)" SHELL=/bin/bash
             PATH="$repo/tests/slurm/pbs-bin:${PBS_EMULATION_MOM_PATH:-/usr/local/bin:/usr/bin:/bin}")
    while read -r name; do
        [[ $name == PBS_* || -n ${passed[$name]:-} ]] && job_env+=("$name=${!name}")
    done < <(compgen -e)
    job=(env -i "${job_env[@]}" "${job[@]}")
fi
# Without qsub -k d PBS writes the output in the execution host's spool and copies it to the submit directory
# when the job ends (qsub.1B, "Where PBS puts job files"): the job runs as a child, its end is waited for
# whatever signal comes (a handler, not an ignore, so the child keeps the default), then the copy.
if [[ -n ${PBS_EMULATION_STAGE_OUT:-} ]]; then
    spool=$(scontrol show job "$PBS_EMULATION_SLURM_JOB_ID" -o | grep -o ' StdOut=[^ ]*' | cut -d= -f2-)
    trap : TERM INT HUP USR1 USR2
    rc=0
    "${job[@]}" || rc=$?
    cp "$spool" "$PBS_O_WORKDIR/${spool##*/}"
    exit "$rc"
fi
exec "${job[@]}"
