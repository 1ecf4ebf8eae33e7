# shellcheck shell=bash
# shellcheck disable=SC2153  # the job's facts (DDP_*) are lib.sh's, which sources this file
# Part of jobscripts/lib.sh (sourced by it): the preflight before training, and leaving a bad node out.
#
# A job on a bad node (a flaky link, a GPU returning wrong data, a node that freezes) should not burn its
# allocation and then land on the same node when it runs again. So:
#   1. before the workload, `python -m app.check --preflight` runs across the allocation (PREFLIGHT=0
#      skips it); a node it blames goes to $RUN_DIR/nodes-to-exclude.txt;
#   2. a training run that hangs names the nodes of the ranks that stopped answering in the same file
#      (app/train/hangs.py);
#   3. either way the job is requeued without those nodes (Slurm: requeue plus the job's exclude list; PBS,
#      which cannot leave a node out: a resubmission as it was) and resumes from its newest snapshot;
#   4. after MAX_REQUEUES such requeues in a row (none of them got training past its snapshot) the job
#      gives up with one last line that says what was tried.
# Each of these requeues is a line of $RUN_DIR/history.jsonl ("event": "requeue" or "gave-up") beside
# the trainer's own lines (one per attempt), so the run's history tells the whole campaign.

# ddp_exclude_file: where app.check --exclude-file and the trainer's hang report write (one hostname a line).
ddp_exclude_file() { printf '%s/nodes-to-exclude.txt' "$RUN_DIR"; }

# ddp_check_config: `train` only: the trainer's --dry-run for this allocation, once, on this node, before any
# step. A bad key, or a dashboard whose package the image lacks (run.tensorboard, run.wandb_project), stops the
# job here with the trainer's one line (exit 2) instead of on every rank after the preflight; the log shows the
# plan (batch, steps, memory per rank). Under DRY_RUN=1 it runs where the image is (a login node), with
# Apptainer's default binds: the run directory, which the job binds, does not exist yet.
ddp_check_config() {
    [[ $DDP_WORKLOAD_KIND == train ]] || return 0
    local -a python=("${DDP_CONTAINER[@]}" python)
    if [[ $DRY_RUN == 1 && $IMAGE != none ]]; then
        if [[ ! -f $IMAGE ]] || ! command -v "$APPTAINER" >/dev/null; then
            ddp_log "DRY_RUN=1: no config check here (no image $IMAGE or no $APPTAINER)"
            return 0
        fi
        python=("$APPTAINER" exec "$IMAGE" python)
    fi
    if [[ $IMAGE == none ]] && ! python -c 'import app.train' 2>/dev/null; then
        ddp_log "no config check: the python in PATH cannot import this project"
        return 0
    fi
    local rc=0
    ddp_log "config check: python ${DDP_WORKLOAD[*]} --dry-run for $((DDP_NNODES * DDP_NPROC)) ranks"
    "${python[@]}" "${DDP_WORKLOAD[@]}" --dry-run --world-size $((DDP_NNODES * DDP_NPROC)) --nodes "$DDP_NNODES" ||
        rc=$?
    ((rc == 0)) && return 0
    ddp_log "the config check failed (exit $rc; its line above says how to fix it): nothing was started"
    exit "$rc"
}

# ddp_preflight STEP_FUNCTION: the config check (ddp_check_config), then the short check through STEP_FUNCTION
# (the scheduler's way of running a python program on every node: STEP_FUNCTION RDZV_ID PROGRAM...) before the
# real workload. Returns 0 when it passed or is off; heals or stops the job otherwise.
ddp_preflight() {
    ddp_check_config
    [[ $PREFLIGHT == 1 && $DDP_WORKLOAD_KIND != check && $DDP_WORKLOAD_KIND != nccl-tests ]] || return 0
    [[ $DRY_RUN == 1 ]] && return 0
    local -a check=(-m app.check --preflight --exclude-file "$(ddp_exclude_file)" --json "$RUN_DIR/preflight.json")
    [[ -n $CHECK_SITE ]] && check+=(--site "$CHECK_SITE")
    ddp_log "preflight: python -m app.check --preflight across the allocation before the workload (PREFLIGHT=0 skips it)"
    local rc=0 started=$SECONDS
    ddp_private_run_dir
    rm -f "$(ddp_exclude_file)"
    # Its own rendezvous id: the workload's rendezvous, on the same port, comes right after.
    "$1" "$DDP_JOB_ID-preflight" "${check[@]}" || rc=$?
    if ((rc == 0)); then
        ddp_log "preflight passed in $((SECONDS - started))s"
        return 0
    fi
    [[ -n $DDP_PREEMPTED ]] && ddp_finish "$rc" "${DDP_REQUEUE_CMD[@]}"
    if [[ -s $(ddp_exclude_file) ]]; then
        ddp_heal "$rc" "preflight failed (step exit $rc; app.check's report above and in $RUN_DIR/preflight.json)"
    fi
    ddp_error "the preflight failed (step exit $rc) without blaming a node;" \
        "its report above says what and how to fix it; PREFLIGHT=0 starts the workload without it"
    exit "$rc"
}

# ddp_run_workload STEP_FUNCTION: the workload itself (DDP_WORKLOAD, rendezvous id: the job id); a hang it
# names starts a fresh exclude file (an earlier attempt's must not blame a node for an unrelated failure of
# this one).
ddp_run_workload() {
    rm -f "$(ddp_exclude_file)"
    "$1" "$DDP_JOB_ID" "${DDP_WORKLOAD[@]}"
}

# ddp_after_workload RC: a workload that failed after naming nodes (a training hang) heals the job; any
# other result goes on to ddp_finish.
ddp_after_workload() {
    local rc=$1
    if ((rc != 0)) && [[ -z $DDP_PREEMPTED && -s $(ddp_exclude_file) ]]; then
        ddp_heal "$rc" "the workload failed (exit $rc) naming the nodes that stopped answering (summary.json)"
    fi
}

# ddp_history CMD ARGS...: history.jsonl's one writer and reader (app/common/history.py: standard library
# only, so the host's python3 runs it outside the image, before any venv; where the host has none from
# 3.8 on, such as SLES 15's 3.6, the image's python, which has the app installed).
ddp_history() {
    if python3 -I -S -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null; then
        ddp_python app.common.history "$@"
    elif [[ -n ${DDP_CONTAINER[*]:-} ]]; then
        "${DDP_CONTAINER[@]}" python3 -m app.common.history "$@"
    else
        ddp_error "cannot write $RUN_DIR/history.jsonl: no python3 >= 3.8 on $(hostname -s) and no image" \
            "(IMAGE=none); load a python module (module load python) or run with IMAGE=app.sif"
        return 1
    fi
}

# ddp_requeues_in_a_row: bad-node requeues since training last got past the step it started from.
ddp_requeues_in_a_row() {
    ddp_history requeues-in-a-row "$RUN_DIR"
}

# ddp_history_event EVENT REASON NODES: one line in history.jsonl (NODES: the ones left out, comma-separated).
# The nodes go on stdin: one argument holds 128 KiB at most (MAX_ARG_STRLEN), and 4096 FQDNs are more.
ddp_history_event() {
    printf '%s\n' "${DDP_NODES[@]}" |
        ddp_history event "$RUN_DIR" "$1" "$2" --hosts-from - --excluded "$3" --job-id "$DDP_JOB_ID" \
            --image "$IMAGE"
}

# ddp_heal RC REASON: leave the nodes in the exclude file out and requeue, requeue as before where the scheduler
# cannot leave a node out, or give up at MAX_REQUEUES: app/launch/heal.py decides from these facts, this runs it.
ddp_heal() {
    local rc=$1 reason=$2 hosts nodes done_already
    local -a heal
    hosts=$(sort -u "$(ddp_exclude_file)" | awk 'NF' | paste -sd, -)
    nodes=$(ddp_scheduler_node_names "$hosts")
    [[ $nodes == "$hosts" ]] || ddp_log "the blamed hosts $hosts are $DDP_SCHEDULER node(s) $nodes"
    done_already=$(ddp_requeues_in_a_row)
    # ACTION NODES MESSAGE HISTORY_REASON
    ddp_plan heal heal --scheduler="$DDP_SCHEDULER" --reason="$reason" --requeues-in-a-row="$done_already" \
        --max-requeues="$MAX_REQUEUES" --check-command="$(ddp_submit_command check)" --run-dir="$RUN_DIR" \
        <<<"$nodes"
    if [[ ${heal[0]} == give-up ]]; then
        ddp_history_event gave-up "${heal[3]}" "${heal[1]}"
        ddp_error "${heal[2]}"
        exit "$rc"
    fi
    # exclude or requeue; DDP_HEAL_CMD: the scheduler's requeue, without the nodes where it can leave them out
    ddp_log "${heal[2]}"
    ddp_history_event requeue "${heal[3]}" "${heal[1]}"
    "$DDP_HEAL_CMD" "${heal[1]}"
    exit 75
}
