# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153  # the DDP_* variables are shared with lib.sh, which sources this file
# Part of jobscripts/lib.sh (sourced by it): the preflight before training, and leaving a bad node out.
#
# A job on a bad node (a flaky link, a GPU returning wrong data, a node that freezes) should not burn its
# allocation and then land on the same node when it runs again. So:
#   1. before the workload, `python -m app.check --preflight` runs across the allocation (PREFLIGHT=0
#      skips it); a node it blames goes to $RUN_DIR/nodes-to-exclude.txt;
#   2. a training run that hangs names the nodes of the ranks that stopped answering in the same file
#      (app/train/hangs.py);
#   3. either way the job is requeued without those nodes (Slurm: requeue plus the job's exclude list;
#      PBS: a resubmission, see ddp_pbs_heal) and resumes from its newest snapshot;
#   4. after MAX_REQUEUES such requeues in a row (none of them got training past its snapshot) the job
#      gives up with one last line that says what was tried.
# Each of these requeues is a line of $RUN_DIR/history.jsonl ("event": "requeue" or "gave-up") beside
# the trainer's own lines (one per attempt), so the run's history tells the whole campaign.

# ddp_exclude_file: where app.check --exclude-file and the trainer's hang report write (one hostname a line).
ddp_exclude_file() { printf '%s/nodes-to-exclude.txt' "$RUN_DIR"; }

# ddp_preflight STEP_FUNCTION: run the short check through STEP_FUNCTION (the scheduler's way of running
# DDP_WORKLOAD on every node) before the real workload. Returns 0 when it passed or is off; heals or stops
# the job otherwise.
ddp_preflight() {
    [[ $PREFLIGHT == 1 && $DDP_WORKLOAD_KIND != check ]] || return 0
    [[ $DRY_RUN == 1 ]] && return 0
    local -a workload=("${DDP_WORKLOAD[@]}")
    DDP_WORKLOAD=(-m app.check --preflight --exclude-file "$(ddp_exclude_file)" --json "$RUN_DIR/preflight.json")
    [[ -n $CHECK_SITE ]] && DDP_WORKLOAD+=(--site "$CHECK_SITE")
    ddp_log "preflight: python -m app.check --preflight across the allocation before the workload (PREFLIGHT=0 skips it)"
    local rc=0 started=$SECONDS
    mkdir -p "$RUN_DIR"
    rm -f "$(ddp_exclude_file)"
    # Its own rendezvous id: the workload's rendezvous, on the same port, comes right after.
    DDP_RDZV_ID=$DDP_JOB_ID-preflight "$1" || rc=$?
    DDP_WORKLOAD=("${workload[@]}")
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

# ddp_run_workload STEP_FUNCTION: the workload itself; a hang it names starts a fresh exclude file (an
# earlier attempt's must not blame a node for an unrelated failure of this one).
ddp_run_workload() {
    rm -f "$(ddp_exclude_file)"
    "$1"
}

# ddp_after_workload RC: a workload that failed after naming nodes (a training hang) heals the job; any
# other result goes on to ddp_finish.
ddp_after_workload() {
    local rc=$1
    if ((rc != 0)) && [[ -z $DDP_PREEMPTED && -s $(ddp_exclude_file) ]]; then
        ddp_heal "$rc" "the workload failed (exit $rc) naming the nodes that stopped answering (summary.json)"
    fi
}

# ddp_requeues_in_a_row: bad-node requeues since training last got past the step it started from
# (a trainer attempt line whose start_step is beyond every earlier one resets the count).
ddp_requeues_in_a_row() {
    local history=$RUN_DIR/history.jsonl
    [[ -r $history ]] || { echo 0; return; }
    awk 'match($0, /"start_step": [0-9]+/) {
             step = substr($0, RSTART + 14, RLENGTH - 14) + 0
             if (!seen || step > furthest) { n = 0; furthest = step; seen = 1 }
             next
         }
         /"event": "requeue"/ { n++ }
         END { print n + 0 }' "$history"
}

# ddp_history_event EVENT REASON NODES: one JSON line in history.jsonl (hostnames and our own texts only).
ddp_history_event() {
    local reason=${2//\\/\\\\} hosts excluded
    reason=${reason//\"/\\\"}
    hosts=$(printf '"%s",' "${DDP_NODES[@]}")
    excluded=$(tr ',' '\n' <<<"$3" | awk 'NF {printf "%s\"%s\"", (n++ ? "," : ""), $0}')
    printf '{"event": "%s", "time": "%s", "job_id": "%s", "hosts": [%s], "image": "%s", "excluded": [%s], "reason": "%s"}\n' \
        "$1" "$(date +%Y-%m-%dT%H:%M:%S%z)" "$DDP_JOB_ID" "${hosts%,}" "$IMAGE" "$excluded" "$reason" \
        >>"$RUN_DIR/history.jsonl"
}

# ddp_heal RC REASON: leave the nodes in the exclude file out and requeue, or give up at MAX_REQUEUES.
ddp_heal() {
    local rc=$1 reason=$2 nodes done_already
    nodes=$(sort -u "$(ddp_exclude_file)" | awk 'NF' | paste -sd, -)
    done_already=$(ddp_requeues_in_a_row)
    if ((done_already >= MAX_REQUEUES)); then
        ddp_history_event gave-up "$reason; blamed $nodes; $done_already requeue(s) in a row already" "$nodes"
        ddp_error "giving up after $done_already requeue(s) in a row for bad nodes" \
            "(MAX_REQUEUES=$MAX_REQUEUES): $reason, blaming $nodes; see $RUN_DIR/history.jsonl, check the nodes" \
            "(sbatch ${DDP_SCRIPT} check) and resubmit with RUN_DIR=$RUN_DIR to resume"
        exit "$rc"
    fi
    ddp_log "$reason: leaving out $nodes and requeueing ($((done_already + 1)) of at most $MAX_REQUEUES in a row)"
    ddp_history_event requeue "$reason; left out $nodes" "$nodes"
    "$DDP_HEAL_CMD" "$nodes"
    exit 75
}
