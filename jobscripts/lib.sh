# shellcheck shell=bash
# shellcheck disable=SC2153  # the knobs (LAUNCH, ...) are assigned by ddp_defaults, from app/launch/knobs.py
# No job script runs this any more: slurm.sh, mn5.sh and gh200-pbs.sh start the job in Python (app/launch/job.py,
# pbs_job.py). What is left are bash wrappers of app.launch's questions (`python3 -m app.launch QUESTION`, asked
# through ddp_plan) that tests/jobscripts/ and a few other tests still drive function by function; they go when
# those tests become tests of the Python records. Every knob: docs/knobs.md.
set -euo pipefail

# This checkout (physical: a jobscripts/ linked into your own project still finds it)
DDP_REPO=$(cd -P "$(dirname "${BASH_SOURCE[0]}")" && cd .. && pwd)

ddp_log() { printf '[%s %s] %s\n' "$(date +%T)" "${DDP_SCRIPT:-job}" "$*"; }
ddp_error() { printf '%s: error: %s\n' "${DDP_SCRIPT:-job}" "$*" >&2; }
# ddp_die MESSAGE: one line (cause and remedy), then exit 2 (USAGE, app/common/exitcodes.py)
ddp_die() {
    ddp_error "$@"
    exit 2
}

for part in launch/run_checkout.py common/node_wrapper.sh common/cuda_compat.sh; do
    [[ -r $DDP_REPO/app/$part ]] || ddp_die "$DDP_REPO/app/$part is missing; run the job scripts from a whole checkout"
done
# What each node runs around its step inside the container, as `sh -c` texts: the CUDA forward-compatibility
# check, then the node wrapper (the fabric policy, and the stop file turned into SIGTERM)
DDP_CUDA_COMPAT=$(<"$DDP_REPO/app/common/cuda_compat.sh")
DDP_NODE_WRAPPER=$(<"$DDP_REPO/app/common/node_wrapper.sh")

# ddp_python MODULE ARGS...: MODULE of this checkout on the host's python3, isolated (-I) and without site-packages
# (-S): only this checkout and the standard library are on the path
ddp_python() { python3 -I -S -c "$(<"$DDP_REPO/app/launch/run_checkout.py")" "$DDP_REPO" "$@"; }

# shellcheck disable=SC2034  # where the answer of a question that only acts goes (it is empty)
DDP_NO_ANSWER=()
# ddp_plan OUT QUESTION ARGS...: app.launch's answer into the array OUT, NUL-separated on descriptor 3, read as data
# and never evaluated; its log lines go to stdout; a failure ends the job with its exit code.
ddp_plan() {
    local -n plan_out=$1
    shift
    { mapfile -d '' -t plan_out < <(ddp_python app.launch --script="${DDP_SCRIPT:-job}" --answer-fd=3 "$@" \
        3>&1 1>&4 && printf '0\0' || printf '%s\0' "$?"); } 4>&1
    local rc=${plan_out[-1]:-1}
    unset 'plan_out[-1]'
    ((rc == 0)) || exit "$rc"
}

# ddp_export NAME=VALUE...: the environment an answer asks for (a default only where you set none: it says which)
ddp_export() { local kv; for kv in "$@"; do export "${kv?}"; done; }

# ddp_allocation: the job's nodes from the scheduler (DRY_RUN=1 outside a job: DRY_RUN_NODES, GPUS_PER_NODE)
ddp_allocation() {
    local -a alloc
    ddp_plan alloc allocation --scheduler="$DDP_SCHEDULER"
    DDP_JOB_ID=${alloc[0]} DDP_SUBMIT_DIR=${alloc[1]} DDP_ALLOC_GPUS_PER_NODE=${alloc[2]}
    DDP_NODES=("${alloc[@]:3}")
    DDP_NNODES=${#DDP_NODES[@]} DDP_HEAD_NODE=${DDP_NODES[0]}
    cd "$DDP_SUBMIT_DIR"
}

# ddp_defaults: every knob's value, checked (app/launch/knobs.py): the ones you set go on stdin (DDP_STORE_SECRET
# among them, so never in argv); the answer is assigned here.
ddp_defaults() {
    : "${DDP_SCRIPT:?} ${DDP_NNODES:?} ${DDP_JOB_ID:?} ${DDP_SUBMIT_DIR:?} ${DDP_SCHEDULER:?}"
    local name i
    local -a names set_by_you=() knobs
    ddp_plan names knob-names
    for name in "${names[@]}"; do [[ -z ${!name+set} ]] || set_by_you+=("$name=${!name}"); done
    ddp_plan knobs knobs --job-id="$DDP_JOB_ID" --submit-dir="$DDP_SUBMIT_DIR" --nnodes="$DDP_NNODES" \
        < <(printf '%s\0' ${set_by_you[@]+"${set_by_you[@]}"})
    for ((i = 1; i <= knobs[0]; i++)); do declare -g "${knobs[i]}"; done
    ddp_export "${knobs[@]:i}"
    DDP_PREEMPTED=
}

# ddp_workload KIND ARGV ARGS...: from the job's arguments, the workload's kind into KIND (train, check,
# nccl-tests, module, script) and what torchrun runs into the array ARGV (app/launch/workload.py); exports where the
# workers import from (app/launch/import_path.py)
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_workload() {
    local -n workload_kind_out=$1 workload_out=$2
    ddp_plan workload_out workload --scheduler="$DDP_SCHEDULER" --config="$CONFIG" --run-dir="$RUN_DIR" \
        --check-site="$CHECK_SITE" --cwd="$PWD" -- "${@:3}"
    local n=${workload_out[1]}
    workload_kind_out=${workload_out[0]}
    ddp_export "${workload_out[@]:2:n}"
    workload_out=("${workload_out[@]:2+n}")
}

# ddp_nproc_per_node OUT: one process per GPU the scheduler gave this job on a node, into OUT (app/launch/gpus.py)
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_nproc_per_node() {
    local -n nproc_out=$1
    local -a nproc_answer
    ddp_plan nproc_answer nproc --gpus-per-node="$GPUS_PER_NODE" --allocation="${DDP_ALLOC_GPUS_PER_NODE:-}" \
        --nnodes="$DDP_NNODES"
    nproc_out=${nproc_answer[0]}
}

# ddp_write_deepspeed_hostfile: RUN_DIR (yours alone: app/common/private_dir.py) and in it the hostfile for
# DeepSpeed's own launcher (app/launch/deepspeed_hostfile.py)
ddp_write_deepspeed_hostfile() {
    local -a dry_run=()
    [[ $DRY_RUN != 1 ]] || dry_run=(--dry-run)
    ddp_plan DDP_NO_ANSWER deepspeed-hostfile --run-dir="$RUN_DIR" --run-dir-mode="$RUN_DIR_MODE" --nproc="$DDP_NPROC" \
        --nnodes="$DDP_NNODES" --port="$RDZV_PORT" --scheduler="$DDP_SCHEDULER" --workload="${DDP_WORKLOAD_KIND:-}" \
        "${dry_run[@]}" -- "${DDP_NODES[@]}"
}

# ddp_fabric_env: the network NCCL must use (FABRIC, or detected on this node), checked, its settings previewed
# from the fabric policy that every node's wrapper applies (app/launch/fabric.py)
ddp_fabric_env() {
    local -a fabric
    ddp_plan fabric fabric --fabric="$FABRIC" --probe-root="$DDP_PROBE_ROOT" --nnodes="$DDP_NNODES" \
        --run-dir="$RUN_DIR"
    FABRIC=${fabric[0]}
    ddp_export "${fabric[@]:1}"
}

# ddp_container_cmd CMD POLICY: the container command of every step into the array CMD (empty with IMAGE=none), the
# fabric policy files the node wrapper tries into POLICY; checks the image, or your python (app/launch/container.py)
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_container_cmd() {
    local -n container_out=$1 policy_out=$2
    local -a dry_run=()
    [[ $DRY_RUN != 1 ]] || dry_run=(--dry-run)
    ddp_plan container_out container --image="$IMAGE" --apptainer="$APPTAINER" --apptainer-args="$APPTAINER_ARGS" \
        --launch="$LAUNCH" --workload="${DDP_WORKLOAD_KIND:-}" --preflight="$PREFLIGHT" "${dry_run[@]}" \
        --fabric="$FABRIC" --run-dir="$RUN_DIR" --run-dir-mode="$RUN_DIR_MODE" --binds="${BINDS:-}" \
        --probe-root="${DDP_PROBE_ROOT:-}" --host-libfabric-dir="${HOST_LIBFABRIC_DIR:-}" --scheduler="$DDP_SCHEDULER"
    APPTAINER=${container_out[0]} policy_out=${container_out[1]} PREFLIGHT=${container_out[2]}
    container_out=("${container_out[@]:3}")
}

# ddp_image: IMAGE=oras://... pulled here, on the head node before any step (once per digest, into the checkout's
# build/images), and its signature verified; IMAGE becomes the file, and every process gets its digest and the
# reference that pulls it again, which the run records (app/launch/image_registry.py)
ddp_image() {
    [[ $IMAGE == oras://* || $IMAGE_VERIFY == 1 ]] || return 0
    local -a image dry_run=()
    [[ $DRY_RUN != 1 ]] || dry_run=(--dry-run)
    ddp_plan image image --image="$IMAGE" --apptainer="$APPTAINER" --verify="$IMAGE_VERIFY" \
        --no-https="$IMAGE_NO_HTTPS" --cache="$IMAGE_CACHE" "${dry_run[@]}"
    IMAGE=${image[0]}
    [[ -z ${image[1]} ]] || ddp_export DDP_IMAGE_DIGEST="${image[1]}" DDP_IMAGE_PULL="${image[2]}"
}

# ddp_plan_job ARGS...: what every node runs (the image, the workload, processes per node, fabric and container)
ddp_plan_job() {
    ddp_image
    ddp_workload DDP_WORKLOAD_KIND DDP_WORKLOAD "$@"
    ddp_nproc_per_node DDP_NPROC
    ddp_write_deepspeed_hostfile
    ddp_fabric_env
    ddp_container_cmd DDP_CONTAINER DDP_NODE_POLICY
}

# ddp_launch QUESTION ARGS...: the step's kind (torchrun, task, mpi) into DDP_STEP, the per-node launcher into
# DDP_PER_NODE, the step's into DDP_LAUNCHER (app/launch/slurm.py, pbs_launch.py), then where torchrun meets
# (app/launch/rendezvous.py; MPI programs meet through PMIx)
ddp_launch() {
    local -a launch dry_run=()
    ddp_plan launch "$@" --workload="$DDP_WORKLOAD_KIND" --nnodes="$DDP_NNODES" --nproc="$DDP_NPROC"
    local n=${launch[1]} m=${launch[2]}
    DDP_STEP=${launch[0]} DDP_PER_NODE=("${launch[@]:3:n}") DDP_LAUNCHER=("${launch[@]:3+n:m}")
    ddp_export "${launch[@]:3+n+m}"
    [[ $DDP_STEP != mpi ]] || return 0
    [[ $DDP_JOB_ID != dry-run ]] || dry_run=(--dry-run)
    ddp_plan launch rendezvous --head-node="$DDP_HEAD_NODE" --port="$RDZV_PORT" --given="$RDZV_HOST" \
        --ifaces="$RDZV_IFACES" --step="$DDP_STEP" "${dry_run[@]}"
    DDP_RDZV_HOST=${launch[0]} DDP_RDZV_OWNER=${launch[1]}
    ddp_export "${launch[@]:2}"
}

# ddp_node_cmd OUT RDZV_ID PROGRAM...: what one launcher task runs in the container for PROGRAM (torchrun with its
# NUMA binding, one srun task's program, or the MPI program), after the node that hosts the store (or ""), into OUT
ddp_node_cmd() {
    ddp_plan "$1" node-command --step="${DDP_STEP:-torchrun}" --nnodes="$DDP_NNODES" --nproc="$DDP_NPROC" \
        --rdzv-host="${DDP_RDZV_HOST:-}" --rdzv-owner="${DDP_RDZV_OWNER:-}" --rdzv-port="$RDZV_PORT" \
        --join-timeout="$RDZV_JOIN_TIMEOUT_S" --numa-binding="${NUMA_BINDING:-auto}" --launch="$LAUNCH" \
        --image="$IMAGE" --probe-root="$DDP_PROBE_ROOT" --workload="${DDP_WORKLOAD_KIND:-}" -- "${@:2}"
}

# ddp_step RDZV_ID PROGRAM...: PROGRAM on every node through DDP_LAUNCHER (the preflight's check, the workload)
ddp_step() {
    local -a node_cmd
    ddp_node_cmd node_cmd "$@"
    ddp_run_step "${node_cmd[@]}"
}

# ddp_check_launcher LAUNCHER...: one process on each node, in seconds, not at torchrun's join timeout; what each
# node calls itself and its scheduler name go into DDP_NODE_NAMES, pairs (app/launch/launch_check.py)
ddp_check_launcher() {
    DDP_NODE_NAMES=()
    [[ $LAUNCH_CHECK == 1 && $DRY_RUN != 1 ]] || return 0
    ddp_plan DDP_NODE_NAMES launch-check --nnodes="$DDP_NNODES" -- "$@" < <(printf '%s\0' "${DDP_NODES[@]}")
}

# ddp_on_signal SIGNAL: USR1 (the time limit's warning) or TERM: ask every node to snapshot and stop (stop file)
ddp_on_signal() {
    DDP_PREEMPTED=$1
    ddp_log "got SIG$1: asking the training processes on every node to snapshot and stop"
    touch "$DDP_STOP_FILE"
}

# ddp_run_step OWNER NODE_CMD...: NODE_CMD in DDP_CONTAINER through DDP_LAUNCHER, under the node wrapper (OWNER:
# the node that hosts torchrun's store, or ""); USR1/TERM become a stop request; returns the step's exit code.
ddp_run_step() {
    local owner=$1
    shift
    ddp_log "step: $(printf '%q ' "${DDP_LAUNCHER[@]}" "${DDP_CONTAINER[@]}" "$@")"
    [[ $DRY_RUN != 1 ]] || { ddp_log "DRY_RUN=1: not running it" && return 0; }
    # A stop request of an earlier run (before a requeue) must not stop this one, nor its nodes' exit codes count
    rm -rf "$DDP_STOP_FILE" "$DDP_STOP_FILE.codes"
    mkdir "$DDP_STOP_FILE.codes"
    trap 'ddp_on_signal USR1' USR1
    trap 'ddp_on_signal TERM' TERM
    # In the background, so that the traps run at once: bash delays them until a foreground command ends
    "${DDP_LAUNCHER[@]}" "${DDP_CONTAINER[@]}" /bin/sh -c "$DDP_CUDA_COMPAT" cuda-compat \
        /bin/sh -c "$DDP_NODE_WRAPPER" ddp-node "$DDP_STOP_FILE" "$owner" "$DDP_NODE_POLICY" "$@" &
    local pid=$! rc=0
    # wait returns > 128 when a trapped signal interrupts it; the step may still be running then
    while wait "$pid" && rc=0 || rc=$?; ((rc > 128)) && kill -0 "$pid" 2>/dev/null; do :; done
    # It may have ended between the interrupted wait and kill -0: bash kept its status
    if ((rc > 128)); then wait "$pid" 2>/dev/null && rc=0 || rc=$?; fi
    trap - USR1 TERM
    ((rc == 0)) || rc=$(ddp_first_failure "$DDP_STOP_FILE.codes" "$rc")
    ddp_log "step finished with exit code $rc${DDP_PREEMPTED:+ after SIG$DDP_PREEMPTED}"
    return "$rc"
}

# ddp_first_failure DIR RC: the first non-zero code the node wrapper recorded in DIR (one file a node, oldest first),
# else RC, the launcher's. Once a node fails, srun --kill-on-bad-exit ends the others with SIGTERM and reports the
# signal over every exit code (src/srun/launch.c, _task_finish: a signalled task wins): 143 would hide the code the
# job branches on (75 requeues, 10 blames no node). A node the launcher killed records nothing, or later.
ddp_first_failure() {
    local name code
    while IFS= read -r name; do
        [[ $name != *.part ]] || continue
        read -r code <"$1/$name" || continue
        if [[ $code =~ ^[0-9]+$ ]] && ((code != 0)); then echo "$code" && return; fi
    done < <(ls -tr -- "$1" 2>/dev/null)
    echo "$2"
}

# ddp_preflight: the trainer's --dry-run for this allocation (`train`), then python -m app.check --preflight
# across the nodes (PREFLIGHT=0 skips it); a node it blames is left out (ddp_heal); app/check/preflight.py.
ddp_preflight() {
    ddp_plan DDP_NO_ANSWER config-check --workload="$DDP_WORKLOAD_KIND" --image="$IMAGE" --apptainer="$APPTAINER" \
        --dry-run="$DRY_RUN" --nnodes="$DDP_NNODES" --nproc="$DDP_NPROC" --container-words="${#DDP_CONTAINER[@]}" \
        -- "${DDP_CONTAINER[@]}" "${DDP_WORKLOAD[@]}"
    [[ $PREFLIGHT == 1 && $DDP_WORKLOAD_KIND != check && $DDP_WORKLOAD_KIND != nccl-tests ]] || return 0
    local -a check=(-m app.check --preflight --exclude-file "$RUN_DIR/nodes-to-exclude.txt" --json
        "$RUN_DIR/preflight.json" ${CHECK_SITE:+--site "$CHECK_SITE"})
    ddp_log "preflight: python -m app.check --preflight across the allocation (PREFLIGHT=0 skips it)"
    # A dry run shows the preflight's step as it shows the workload's, and runs neither
    if [[ $DRY_RUN == 1 ]]; then ddp_step "$DDP_JOB_ID-preflight" "${check[@]}"; return 0; fi
    local rc=0 started=$SECONDS
    rm -f "$RUN_DIR/nodes-to-exclude.txt"
    # Its own rendezvous id: the workload's, on the same port, comes right after
    ddp_step "$DDP_JOB_ID-preflight" "${check[@]}" || rc=$?
    ((rc != 0)) || { ddp_log "preflight passed in $((SECONDS - started))s" && return 0; }
    [[ -z $DDP_PREEMPTED ]] || ddp_finish "$rc"
    [[ ! -s $RUN_DIR/nodes-to-exclude.txt ]] ||
        ddp_heal "$rc" "preflight failed (step exit $rc; app.check's report above and in $RUN_DIR/preflight.json)"
    ddp_error "the preflight failed (step exit $rc) without blaming a node;" \
        "its report above says what and how to fix it; PREFLIGHT=0 starts the workload without it"
    exit "$rc"
}

# ddp_run_job: the launch check, the preflight, the workload (rendezvous id: the job id), then heal or finish
ddp_run_job() {
    ddp_check_launcher "${DDP_PER_NODE[@]}"
    ddp_preflight
    local rc=0
    # A hang the workload names starts a fresh exclude file: an earlier attempt's must not blame a node
    rm -f "$RUN_DIR/nodes-to-exclude.txt"
    ddp_step "$DDP_JOB_ID" "${DDP_WORKLOAD[@]}" || rc=$?
    # The PBS timer may have fired (and exited) already: a failed kill must not end the script under set -e
    [[ -z ${DDP_TIMER:-} ]] || kill "$DDP_TIMER" 2>/dev/null || true
    if ((rc != 0)) && [[ -z $DDP_PREEMPTED && -s $RUN_DIR/nodes-to-exclude.txt ]]; then
        ddp_heal "$rc" "the workload failed (exit $rc) naming the nodes that stopped answering (summary.json)"
    fi
    ddp_finish "$rc"
}

# ddp_heal RC REASON: leave the blamed nodes out and requeue, requeue as before where the scheduler cannot, or give
# up at MAX_REQUEUES (app/launch/heal.py decides, records it in history.jsonl, and requeues); exits 75 or RC.
ddp_heal() {
    # The requeue signals this script: nothing may stop the update that follows it
    trap '' TERM USR1
    ddp_plan DDP_NO_ANSWER heal --rc="$1" --reason="$2" --scheduler="$DDP_SCHEDULER" --run-dir="$RUN_DIR" \
        --max-requeues="$MAX_REQUEUES" --job-id="$DDP_JOB_ID" --image="$IMAGE" --jobscript="$(ddp_jobscript)" \
        -- "${DDP_NODES[@]}" < <(printf '%s\0' ${DDP_NODE_NAMES[@]+"${DDP_NODE_NAMES[@]}"})
}

# ddp_finish RC: the job's end (app/launch/finish.py): a USR1 that stopped an unfinished step requeues the job,
# which resumes from the snapshot in the same RUN_DIR (exit 75); otherwise the step's exit code.
ddp_finish() {
    ddp_plan DDP_NO_ANSWER finish --rc="$1" --preempted="$DDP_PREEMPTED" --requeue="$REQUEUE" --job-id="$DDP_JOB_ID" \
        --run-dir="$RUN_DIR" --scheduler="$DDP_SCHEDULER" --jobscript="$(ddp_jobscript)"
    exit 0
}

# ddp_jobscript: this job script's path, for a PBS resubmission
ddp_jobscript() { echo "${DDP_JOBSCRIPT:-${DDP_JOBSCRIPTS:-${DDP_SUBMIT_DIR:-$PWD}/jobscripts}/$DDP_SCRIPT}"; }
