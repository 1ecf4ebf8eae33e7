# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153  # the job's facts (DDP_*) are lib.sh's, which sources this file
# Part of jobscripts/lib.sh: the whole job for mn5.sh and slurm.sh.

# ddp_slurm_main ARGS...: one srun task per node runs the container and torchrun inside (LAUNCH=srun: one task per
# GPU runs python itself); USR1 (sbatch --signal=B:USR1@90) leads to a snapshot and `scontrol requeue`.
ddp_slurm_main() {
    DDP_SCHEDULER=slurm
    ddp_allocation
    # A job without GPUs submitted with --cpus-per-gpu (which sbatch accepts before 23.02): srun would read it back
    # from the environment and refuse every step ("Invalid generic resource (gres) specification")
    [[ -n $DDP_ALLOC_GPUS_PER_NODE ]] || unset SLURM_CPUS_PER_GPU
    ddp_defaults
    ddp_log "job $DDP_JOB_ID on ${SLURM_JOB_NODELIST:-$(IFS=,; echo "${DDP_NODES[*]}")}," \
        "run #$((${SLURM_RESTART_COUNT:-0} + 1)), run directory $RUN_DIR"
    ddp_plan_job "$@"
    ddp_launch slurm-launch --launch="$LAUNCH" --dry-run="$DRY_RUN"
    ddp_run_job
}
