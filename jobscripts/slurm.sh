#!/usr/bin/env bash
# Any Slurm cluster (e.g. two nodes with one H200 each, or N nodes with G GPUs): DDP across the job's nodes.
#
#   sbatch -N 2 --gres=gpu:1 --cpus-per-gpu=8 jobscripts/slurm.sh       train (python -m app.train, CONFIG)
#   sbatch -N 2 --gres=gpu:8 --cpus-per-gpu=8 jobscripts/slurm.sh check  python -m app.check on all GPUs
#   sbatch -N 2 --gres=gpu:1 jobscripts/slurm.sh train_distributed_example.py --epochs 20   your own script
#   sbatch -N 2 --gres=gpu:4 --export=ALL,LAUNCH=srun jobscripts/slurm.sh       one srun task per GPU, no torchrun
#   sbatch -N 2 --exclusive --export=ALL,IMAGE=none,GPUS_PER_NODE=2 jobscripts/slurm.sh   CPU only, 2 ranks/node
#
# Add your site's -p/-A/-q on the command line. Node and GPU counts come from the allocation (-N, --gres)
# and are never repeated below. One srun task per node runs `apptainer exec --nv app.sif torchrun ...`.
# The network is detected on the head node (FABRIC=auto: InfiniBand, Slingshot, or plain sockets).
# Logs: ddp-JOBID.out in the submit directory (appended to across requeues); results: runs/JOBID/.
#
# Overrides (environment or --export), defaults in brackets; docs/knobs.md lists them all:
#   IMAGE [./app.sif; none = host torchrun]   CONFIG [demo]        RUN_DIR [runs/$SLURM_JOB_ID]
#   GPUS_PER_NODE [allocation]                RDZV_PORT [random free] BINDS []   EXTRA_ENV []
#   FABRIC [auto]                             REQUEUE [1]          DRY_RUN [0]
#   LAUNCH [torchrun: one per node | srun: one task per GPU]
#
#SBATCH --job-name=ddp
# Two nodes unless -N says otherwise; everything below scales with it
#SBATCH --nodes=2
# One task per node: torchrun, which starts the per-GPU workers itself
#SBATCH --ntasks-per-node=1
# CPUs are yours to ask for, on the command line: without a request, sites without a DefCpuPerGPU give
# the job one core per node, shared by every worker (the job log warns). With GPUs: --cpus-per-gpu=8;
# without: --exclusive or --cpus-per-task=N. Not here: from Slurm 23.02 sbatch refuses --cpus-per-gpu in a
# job that asks for no GPU ("Requested cpus_per_tres=gres/gpu:8 but did not request any GPU"), which would
# reject every CPU-only job and every job on sites where GPUs come with the node.
# Wall time; preemption warning below comes 90 s before it
#SBATCH --time=01:00:00
# USR1 to this batch script (B:) 90 s before the time limit: snapshot, then requeue
#SBATCH --signal=B:USR1@90
# A preempted or requeued job may run again
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
[[ -r $checkout/app/host/launch/run_checkout.py ]] || { echo "slurm.sh: error: no checkout of the project above $DDP_JOBSCRIPTS; set DDP_JOBSCRIPTS=/path/to/jobscripts" >&2; exit 2; }

# The job itself (app/host/launch/job.py), on the batch host's python3 with this checkout and the standard library
# only; no site's defaults: any cluster (FABRIC=auto detects the network on the head node)
exec python3 -I -S -c "$(<"$checkout/app/host/launch/run_checkout.py")" "$checkout" app.host.launch --script=slurm.sh job -- "$@"
