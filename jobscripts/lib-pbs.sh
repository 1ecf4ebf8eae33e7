# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153  # the job's facts (DDP_*) are lib.sh's, which sources this file
# Part of jobscripts/lib.sh (sourced by it): the whole job for gh200-pbs.sh, its resubmission and its
# walltime timer.

# ------------------------------------------------------------------------------------------------ PBS
# ddp_pbs_main ARGS...: the whole job for gh200-pbs.sh. One launcher process per node (Cray PALS mpiexec
# --ppn 1, or one pbsdsh -n per node); the head node is the first line of $PBS_NODEFILE, where PBS runs
# this script (the mother superior), so it hosts the rendezvous store whatever the node file calls it. The
# nodes, the workload's words, the launchers, the resubmission and the timer's delay: app/launch/pbs*.py.
ddp_pbs_main() {
    DDP_SCHEDULER=pbs
    if [[ -z ${PBS_JOBID:-} && ${DRY_RUN:-0} == 1 ]]; then
        ddp_dry_run_allocation
    else
        [[ -n ${PBS_JOBID:-} && -r ${PBS_NODEFILE:-} ]] || ddp_die "not inside a PBS job (PBS_JOBID/PBS_NODEFILE" \
            "unset); submit it: qsub -A PROJECT -q QUEUE [-v WORKLOAD=check] jobscripts/${DDP_SCRIPT} (or see what" \
            "it would run: DRY_RUN=1 DRY_RUN_NODES=node1,node2 bash jobscripts/${DDP_SCRIPT})"
        DDP_JOB_ID=$PBS_JOBID
        ddp_plan DDP_NODES pbs-nodes --nodefile="$PBS_NODEFILE"
        DDP_NNODES=${#DDP_NODES[@]}
        DDP_HEAD_NODE=${DDP_NODES[0]}
        DDP_SUBMIT_DIR=${PBS_O_WORKDIR:-$PWD}
        DDP_ALLOC_GPUS_PER_NODE=
    fi
    cd "$DDP_SUBMIT_DIR" || ddp_die "cannot enter the submit directory $DDP_SUBMIT_DIR (PBS_O_WORKDIR)"
    # qsub passes no arguments to a batch script: the workload comes in WORKLOAD (qsub -v WORKLOAD=check).
    if ((!$#)) && [[ -n ${WORKLOAD:-} ]]; then
        local -a words
        ddp_plan words pbs-workload -- "$WORKLOAD"
        set -- "${words[@]}"
    fi
    ddp_defaults
    # At 1024 nodes the whole list is one unreadable line: the count and the first few
    ddp_log "job $DDP_JOB_ID on $DDP_NNODES node(s): $(printf '%s\n' "${DDP_NODES[@]}" | ddp_first_lines 4 |
        paste -sd' ' -), run directory $RUN_DIR"
    ddp_workload DDP_WORKLOAD_KIND DDP_WORKLOAD "$@"
    ddp_nproc_per_node DDP_NPROC
    local -a launch per_node
    ddp_plan launch pbs-launch --launcher="${LAUNCHER:-}" --workload="$DDP_WORKLOAD_KIND" --nnodes="$DDP_NNODES" \
        --nproc="$DDP_NPROC"
    per_node=("${launch[@]:2:launch[1]}")
    DDP_LAUNCHER=("${launch[@]:2+launch[1]}")
    ddp_write_deepspeed_hostfile
    ddp_fabric_env
    ddp_container_cmd DDP_CONTAINER DDP_NODE_POLICY
    local step=ddp_torchrun_step
    [[ ${launch[0]} != mpi ]] || { step=ddp_pbs_mpi_step && ddp_mpi_rank_env; }
    # Where torchrun's store is; MPI programs meet through PMIx instead
    [[ $step == ddp_pbs_mpi_step ]] || ddp_rdzv_host DDP_RDZV_HOST DDP_RDZV_OWNER
    ddp_check_launcher DDP_SCHEDULER_NAME_OF "${per_node[@]}"
    local timer
    ddp_pbs_timer timer
    # PBS cannot leave a node out of a resubmission (app/launch/heal.py): healing resubmits the job as it was
    DDP_REQUEUE_CMD=(ddp_pbs_resubmit)
    DDP_HEAL_CMD=ddp_pbs_resubmit
    ddp_preflight "$step"
    local rc=0
    ddp_run_workload "$step" || rc=$?
    # The timer may have fired (and exited) already: a failed kill must not end the script under set -e.
    [[ -z $timer ]] || kill "$timer" 2>/dev/null || true
    ddp_after_workload "$rc"
    ddp_finish "$rc" "${DDP_REQUEUE_CMD[@]}"
}

# ddp_pbs_mpi_step RDZV_ID PROGRAM...: nccl-tests, an MPI program: PALS' mpiexec starts every rank.
ddp_pbs_mpi_step() { ddp_run_step "" "${@:2}"; }

# ddp_pbs_submission_options OUT: qsub's options that submit this job again as it was (`qstat -f`), into OUT.
ddp_pbs_submission_options() { ddp_plan "$1" pbs-resubmit --job-id="$PBS_JOBID"; }

# ddp_pbs_resubmit [NODES]: qrerun needs PBS operator rights, so the job resubmits itself (same RUN_DIR, after
# this one ends), with the account, queue and resources it was submitted with; NODES (a heal's) stay in.
ddp_pbs_resubmit() {
    local -a options
    ddp_pbs_submission_options options
    qsub "${options[@]}" -V -W "depend=afterany:$PBS_JOBID" \
        "${DDP_JOBSCRIPT:-${DDP_JOBSCRIPTS:-$DDP_SUBMIT_DIR/jobscripts}/$DDP_SCRIPT}" ||
        ddp_die "resubmission failed (qsub above); resubmit by hand with qsub and RUN_DIR=$RUN_DIR to resume"
}

# ddp_pbsdsh_launcher OUT: the pbsdsh launcher (app/launch/pbs_launch.py), into the array named OUT.
ddp_pbsdsh_launcher() {
    local -n launcher_out=$1
    launcher_out=(ddp_pbsdsh_on_each_node)
}

# ddp_pbsdsh_on_each_node COMMAND...: COMMAND once on every node through OpenPBS pbsdsh (one `pbsdsh -n LINE` per
# node, the step's environment handed over in a private file of RUN_DIR), and the highest of the tasks' exit codes
# (app/launch/pbsdsh.py says why each part is needed).
ddp_pbsdsh_on_each_node() {
    local -a status
    ddp_private_run_dir
    ddp_plan status pbsdsh-run --run-dir="$RUN_DIR" --job-id="$DDP_JOB_ID" --nodefile="$PBS_NODEFILE" --cwd="$PWD" \
        -- "$@"
    return "${status[0]}"
}

# ddp_pbs_timer PID: PBS has no `--signal=B:USR1@90`; a timer sends USR1 to this script PREEMPT_MARGIN_S
# before the walltime ends (from WALLTIME_S, else `qstat -f`: app/launch/pbs.py computes the delay), which then
# snapshots and resubmits. Its process id goes into PID (empty without a timer), for the main to stop it when the
# workload ends first.
ddp_pbs_timer() {
    local -n timer_pid_out=$1
    timer_pid_out=
    [[ ${DRY_RUN:-0} != 1 ]] || { ddp_log "DRY_RUN=1: no walltime timer" && return 0; }
    local -a delay
    ddp_plan delay pbs-timer --job-id="$PBS_JOBID" --walltime-s="${WALLTIME_S:-}" \
        --margin-s="${PREEMPT_MARGIN_S:-90}" --elapsed-s="$SECONDS"
    ((${#delay[@]})) || return 0
    # The subshell kills its own sleep when it is killed (the step ended first): no orphan holding the log.
    (
        trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
        sleep "${delay[0]}" &
        sleeper=$!
        wait "$sleeper" && kill -USR1 $$
    ) &
    timer_pid_out=$!
}
