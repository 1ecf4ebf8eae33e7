#!/usr/bin/env bash
# MareNostrum 5 ACC (x86_64, 4x H100 per node, InfiniBand NDR, Slurm): DDP across every node of the job.
#
#   sbatch -A PROJECT -q acc_debug jobscripts/mn5.sh                     train (python -m app.train, CONFIG)
#   sbatch -A PROJECT -q acc_debug -N 4 jobscripts/mn5.sh check          python -m app.check on all GPUs
#   sbatch -A PROJECT -q acc_bscls jobscripts/mn5.sh my_train.py --epochs 50   your own torchrun script
#   sbatch -A PROJECT -q acc_debug --export=ALL,CONFIG=regression,IMAGE=$PWD/app.sif jobscripts/mn5.sh
#
# Account (-A) and QOS (-q) are yours to give: they differ per project. Node and GPU counts come from the
# allocation (-N, --gres) and are never repeated below. One srun task per node runs
# `apptainer exec --nv app.sif torchrun ...`; torchrun starts one worker per GPU. Logs: ddp-JOBID.out in
# the submit directory (appended to across requeues); results: runs/JOBID/ (see the README).
#
# Overrides (environment or --export), defaults in brackets; docs/knobs.md lists them all:
#   IMAGE [./app.sif; none = host torchrun]   CONFIG [demo]        RUN_DIR [runs/$SLURM_JOB_ID]
#   GPUS_PER_NODE [allocation]                RDZV_PORT [random free] BINDS []   EXTRA_ENV []
#   FABRIC [infiniband]                       REQUEUE [1]          DRY_RUN [0]
#
#SBATCH --job-name=ddp
# Two nodes unless -N says otherwise; everything below scales with it
#SBATCH --nodes=2
# One task per node: torchrun, which starts the per-GPU workers itself
#SBATCH --ntasks-per-node=1
# All four H100 of an ACC node
#SBATCH --gres=gpu:4
# All 80 cores of an ACC node for torchrun's workers and their data loaders (20 per GPU)
#SBATCH --cpus-per-task=80
# Wall time; preemption warning below comes 90 s before it
#SBATCH --time=02:00:00
# USR1 to this batch script (B:) 90 s before the time limit: snapshot, then requeue
#SBATCH --signal=B:USR1@90
# A preempted or requeued job may run again (the default on most sites, explicit here)
#SBATCH --requeue
# One log per job, kept across requeues (append, not truncate)
#SBATCH --output=%x-%j.out
#SBATCH --open-mode=append

# sbatch runs a copy of this file from its spool directory: find the checkout above the file that was submitted.
submitted=
# `scontrol show job` prints Command= on a line of its own (Slurm src/api/job_info.c, slurm_sprint_job_info:
# "Command=%s", then line_end); `-o` joins the lines with spaces, which the path may hold
[[ -n ${SLURM_JOB_ID:-} ]] && submitted=$(scontrol show job "$SLURM_JOB_ID" | sed -n 's/^[[:space:]]*Command=//p')
export DDP_JOBSCRIPTS=${DDP_JOBSCRIPTS:-$(dirname "${submitted:-$0}")}
# Physical: a jobscripts/ linked into your own project still finds its checkout
checkout=$(cd -P "$DDP_JOBSCRIPTS/.." 2>/dev/null && pwd)
[[ -r $checkout/app/host/launch/run_checkout.py ]] || { echo "mn5.sh: error: no checkout of the project above $DDP_JOBSCRIPTS; set DDP_JOBSCRIPTS=/path/to/jobscripts" >&2; exit 2; }

# The job itself (app/host/launch/job.py), on the batch host's python3 with this checkout and the standard library
# only; the site's defaults (InfiniBand, rendezvous on ib0, the check's mn5 profile): app/host/launch/sites.py
exec python3 -I -S -c "$(<"$checkout/app/host/launch/run_checkout.py")" "$checkout" app.host.launch --script=mn5.sh job --site=mn5 -- "$@"
