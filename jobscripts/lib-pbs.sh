# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153  # the job's facts (DDP_*) are lib.sh's, which sources this file
# Part of jobscripts/lib.sh: the whole job for gh200-pbs.sh, and its walltime timer.

# ddp_pbs_main ARGS...: one launcher process per node (Cray PALS mpiexec --ppn 1, or pbsdsh), torchrun inside the
# container; the head node is the node file's first, where PBS runs this script. A timer stands in for Slurm's
# --signal=B:USR1@90; a requeue is a resubmission (qrerun needs operator rights): app/launch/pbs*.py.
ddp_pbs_main() {
    DDP_SCHEDULER=pbs
    ddp_allocation
    # qsub passes no arguments to a batch script: the workload comes in WORKLOAD (qsub -v WORKLOAD=check)
    if ((!$#)) && [[ -n ${WORKLOAD:-} ]]; then
        local -a words
        ddp_plan words pbs-workload -- "$WORKLOAD"
        set -- "${words[@]}"
    fi
    ddp_defaults
    ddp_log "job $DDP_JOB_ID on $DDP_NNODES node(s): ${DDP_NODES[*]:0:4}${DDP_NODES[4]:+ ... ($DDP_NNODES in all)}," \
        "run directory $RUN_DIR"
    ddp_plan_job "$@"
    ddp_launch pbs-launch --launcher="${LAUNCHER:-}" --run-dir="$RUN_DIR" --run-dir-mode="$RUN_DIR_MODE" \
        --job-id="$DDP_JOB_ID" --nodefile="${PBS_NODEFILE:-}"
    ddp_pbs_timer DDP_TIMER
    ddp_run_job
}

# ddp_pbs_timer PID: USR1 to this script PREEMPT_MARGIN_S before the walltime ends (from WALLTIME_S, else
# `qstat -f`: app/launch/pbs.py), which then snapshots and resubmits; the timer's process id into PID (or empty).
ddp_pbs_timer() {
    local -n timer_pid_out=$1
    timer_pid_out=
    [[ ${DRY_RUN:-0} != 1 ]] || { ddp_log "DRY_RUN=1: no walltime timer" && return 0; }
    local -a delay
    ddp_plan delay pbs-timer --job-id="$PBS_JOBID" --walltime-s="${WALLTIME_S:-}" \
        --margin-s="${PREEMPT_MARGIN_S:-90}" --elapsed-s="$SECONDS"
    ((${#delay[@]})) || return 0
    # The subshell kills its own sleep when it is killed (the step ended first): no orphan holding the log.
    # (`jobs -p`, not `$!` saved after the `&`: a TERM between the two would leave the sleep running.)
    (
        trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM
        sleep "${delay[0]}" &
        wait $! && kill -USR1 $$
    ) &
    timer_pid_out=$!
}
