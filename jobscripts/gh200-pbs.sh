#!/usr/bin/env bash
# GH200 on HPE Slingshot-11 with PBS Pro and Cray PALS (aarch64, 4x GH200 per node): DDP across the nodes.
#
#   qsub -A PROJECT -q QUEUE jobscripts/gh200-pbs.sh                      train (python -m app.train, CONFIG)
#   qsub -A PROJECT -q QUEUE -v WORKLOAD=check jobscripts/gh200-pbs.sh    python -m app.check on all GPUs
#   qsub -A PROJECT -q QUEUE -v WORKLOAD="multinode.py 50 10" jobscripts/gh200-pbs.sh   your own script
#   qsub -A PROJECT -q QUEUE -l select=4:ncpus=288:ngpus=4 jobscripts/gh200-pbs.sh      4 nodes
#
# qsub gives a batch script no arguments, hence WORKLOAD. Submit from the project directory (its app/host/launch,
# ./app.sif) or set DDP_JOBSCRIPTS and IMAGE. One `mpiexec --ppn 1` process per node of $PBS_NODEFILE runs
# torchrun in the image with the host's Slingshot stack bound; they meet on the head node's hsn0 address.
# Log: the PBS output file; results: runs/$PBS_JOBID/.
#
# Overrides (qsub -v K=V or the environment), defaults in brackets; docs/knobs.md lists them all:
#   IMAGE [./app.sif, built with make image ARCH=aarch64]   CONFIG [demo]   WORKLOAD [train]
#   GPUS_PER_NODE [CUDA_VISIBLE_DEVICES or nvidia-smi]       LAUNCHER [mpiexec | pbsdsh]
#   HOST_LIBFABRIC_DIR [the site's default libfabric]        FABRIC [slingshot]
#   WALLTIME_S [from qstat]  PREEMPT_MARGIN_S [90]           REQUEUE [1: resubmit after a snapshot]
#   NUMA_BINDING [auto: each worker on its GH200's Grace CPUs (torchrun --numa-binding=node) | none]
#
#PBS -N ddp
# Two whole nodes, each with its 4 GH200 (72 Grace cores each); scatter = one chunk per node
#PBS -l select=2:ncpus=288:ngpus=4
#PBS -l place=scatter:excl
# Wall time; the job's timer (app/host/launch/pbs_job.py) sends USR1 PREEMPT_MARGIN_S before it, for a snapshot
#PBS -l walltime=02:00:00
# Rerunnable after a node failure or a preemption (PBS' counterpart of sbatch --requeue)
#PBS -r y
# stdout and stderr in one log
#PBS -j oe
# The log written where it ends up as the job runs (tail -f works): qsub.1B (openpbs doc/man1/qsub.1B), "-k
# keep": d, "Output and/or error are written directly to their final destination"; o and e name the streams
#PBS -k oed
# The submitter's environment (`module load`, WORKLOAD, CONFIG, IMAGE) reaches the job: qsub.1B, "-V": "All
# environment variables ... in the user's login environment where qsub is run are exported to the job"
#PBS -V

# qsub runs a copy of this file: the checkout is found above the submit directory's jobscripts/ (or DDP_JOBSCRIPTS)
export DDP_JOBSCRIPTS=${DDP_JOBSCRIPTS:-${PBS_O_WORKDIR:+$PBS_O_WORKDIR/jobscripts}}
DDP_JOBSCRIPTS=${DDP_JOBSCRIPTS:-$(dirname "$0")}  # run directly (bash jobscripts/gh200-pbs.sh, DRY_RUN=1)
# Physical: a jobscripts/ linked into your own project still finds its checkout
checkout=$(cd -P "$DDP_JOBSCRIPTS/.." 2>/dev/null && pwd)
[[ -r $checkout/app/host/launch/run_checkout.py ]] || { echo "gh200-pbs.sh: error: no checkout of the project above $DDP_JOBSCRIPTS; submit from the project directory or set DDP_JOBSCRIPTS=/path/to/jobscripts" >&2; exit 2; }

# The job itself (app/host/launch/job.py, pbs_job.py), on the batch host's python3 with this checkout and the standard
# library only; the site's defaults (Slingshot, rendezvous on hsn0, the check's slingshot-gh200 profile):
# app/host/launch/sites.py. qsub passes no arguments (WORKLOAD carries them), a direct run may
exec python3 -I -S -c "$(<"$checkout/app/host/launch/run_checkout.py")" "$checkout" app.host.launch --script=gh200-pbs.sh job --scheduler=pbs --site=slingshot-gh200 -- "$@"
