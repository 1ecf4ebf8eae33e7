# shellcheck shell=bash
# shellcheck disable=SC2153  # the knobs (LAUNCH, ...) are assigned by ddp_defaults, from app/launch/knobs.py
# Common logic of the job scripts (mn5.sh, slurm.sh, gh200-pbs.sh), sourced by them, never run; it sources its
# parts (lib-container.sh, lib-heal.sh, lib-slurm.sh, lib-pbs.sh). What the job runs is computed by the job's plan,
# app/launch (`python3 -m app.launch QUESTION`, standard library only, the batch host's python3), which bash asks
# through ddp_plan; bash keeps the scheduler's headers, traps, the wait loop, the PBS timer and the node wrapper.
# Every override, with its default, and the exit codes: docs/knobs.md; the order a main calls these functions in:
# docs/job-scripts.md ("Inside the library"). A function returns what it computes through the variable its caller
# names (`local -n`, names ending in _out), never a global of its own choosing.

set -euo pipefail

# The project checkout these scripts belong to (the fabric policy lives in its app/common/); physical (-P),
# so that a jobscripts/ linked into your own project still finds it
DDP_REPO=$(cd -P "$(dirname "${BASH_SOURCE[0]}")" && cd .. && pwd)

ddp_log() { printf '[%s %s] %s\n' "$(date +%T)" "${DDP_SCRIPT:-job}" "$*"; }

# ddp_error MESSAGE: one line on stderr (cause and remedy).
ddp_error() { printf '%s: error: %s\n' "${DDP_SCRIPT:-job}" "$*" >&2; }

# ddp_die MESSAGE: ddp_error, then exit 2 (USAGE, as app/common/exitcodes.py).
ddp_die() {
    ddp_error "$@"
    exit 2
}

# ddp_python MODULE ARGS...: python3 -m MODULE of this checkout on the batch host's python3 (standard library only,
# 3.6 on), isolated (-I: no PYTHON* settings, no working directory, where -m would look first, no user site) and
# without site-packages (-S): only this checkout's app and the standard library are on the path.
[[ -r $DDP_REPO/app/launch/cli.py ]] ||
    ddp_die "$DDP_REPO/app/launch/cli.py is missing; run the job scripts from a whole checkout"
DDP_PYTHON_MAIN='import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)'
ddp_python() { python3 -I -S -c "$DDP_PYTHON_MAIN" "$DDP_REPO" "$@"; }

# ddp_plan OUT QUESTION ARGS...: the job's plan (`python3 -m app.launch QUESTION ARGS...`, through ddp_python) into
# the array OUT: its answer comes NUL-separated on descriptor 3 and is read as data, never evaluated; its log lines
# go to this script's stdout, and bad input stops the job with its one-line error and exit code (2).
ddp_plan() {
    local -n plan_out=$1
    shift
    { mapfile -d '' -t plan_out < <(ddp_python app.launch --script="${DDP_SCRIPT:-job}" --answer-fd=3 "$@" \
        3>&1 1>&4 && printf '0\0' || printf '%s\0' "$?"); } 4>&1
    local rc=${plan_out[-1]:-1}
    unset 'plan_out[-1]'
    ((rc == 0)) || exit "$rc"
}

# ddp_dry_run_allocation: DRY_RUN=1 outside a job (a login node, a laptop): an allocation to plan for,
# DRY_RUN_NODES (comma- or space-separated, default node1,node2) with GPUS_PER_NODE GPUs each (default 4).
ddp_dry_run_allocation() {
    read -ra DDP_NODES <<<"${DRY_RUN_NODES:-node1,node2}"
    IFS=', ' read -ra DDP_NODES <<<"${DDP_NODES[*]}"
    ((${#DDP_NODES[@]})) || ddp_die "DRY_RUN_NODES is empty; example: DRY_RUN_NODES=gpu01,gpu02"
    DDP_JOB_ID=dry-run
    DDP_NNODES=${#DDP_NODES[@]}
    DDP_HEAD_NODE=${DDP_NODES[0]}
    DDP_SUBMIT_DIR=$PWD
    DDP_ALLOC_GPUS_PER_NODE=${GPUS_PER_NODE:-4}
    ddp_log "DRY_RUN=1 outside a job: planning for ${DDP_NNODES} node(s) (${DDP_NODES[*]}; DRY_RUN_NODES)" \
        "with $DDP_ALLOC_GPUS_PER_NODE GPU(s) each (GPUS_PER_NODE); nothing runs"
}

# ddp_default NAME VALUE WHY: export NAME=VALUE unless the user set NAME (even to empty), and log it.
ddp_default() {
    if [[ -n ${!1+set} ]]; then
        ddp_log "keeping $1=${!1} (set by you)"
    else
        export "$1=$2"
        ddp_log "setting $1=$2 ($3)"
    fi
}

# ddp_defaults: every knob gets its default and is checked (app/launch/knobs.py, their one owner); the knobs the
# user set go to it on stdin (DDP_STORE_SECRET among them, so never in argv), the answer is assigned here.
ddp_defaults() {
    : "${DDP_SCRIPT:?} ${DDP_NNODES:?} ${DDP_JOB_ID:?} ${DDP_HEAD_NODE:?} ${DDP_SUBMIT_DIR:?} ${DDP_SCHEDULER:?}"
    local name i
    local -a names set_by_you=() knobs
    ddp_plan names knob-names
    for name in "${names[@]}"; do [[ -z ${!name+set} ]] || set_by_you+=("$name=${!name}"); done
    ddp_plan knobs knobs --job-id="$DDP_JOB_ID" --submit-dir="$DDP_SUBMIT_DIR" --nnodes="$DDP_NNODES" \
        < <(printf '%s\0' ${set_by_you[@]+"${set_by_you[@]}"})
    for ((i = 1; i <= knobs[0]; i++)); do declare -g "${knobs[i]}"; done
    for ((; i < ${#knobs[@]}; i++)); do export "${knobs[i]?}"; done
    DDP_PREEMPTED=
}

# ddp_private_run_dir: create RUN_DIR with RUN_DIR_MODE whatever the umask, and stop (exit 2) when it is not a
# directory of this user's that neither group nor others can write (a symbolic link only if this user made it):
# what a resume trusts lies there (snapshots, the stop file, history.jsonl), at a predictable name often under
# a group-writable project directory. The trainer checks the same (app/common/private_dir.py).
ddp_private_run_dir() {
    local me owner mode job_id_variable=SLURM_JOB_ID remedy
    [[ ${DDP_SCHEDULER:-} != pbs ]] || job_id_variable=PBS_JOBID
    remedy="give a directory of your own, example: RUN_DIR=\$SCRATCH/runs/\$$job_id_variable"
    me=$(id -u)
    if [[ ! -e $RUN_DIR && ! -L $RUN_DIR ]]; then
        mkdir -p -- "$(dirname -- "$RUN_DIR")" && (umask 077 && mkdir -- "$RUN_DIR") && chmod "$RUN_DIR_MODE" -- "$RUN_DIR" ||
            [[ -d $RUN_DIR ]] || ddp_die "RUN_DIR=$RUN_DIR cannot be created; $remedy"
    fi
    if [[ -L $RUN_DIR ]]; then
        owner=$(stat -c %u -- "$RUN_DIR")
        [[ $owner == "$me" ]] || ddp_die "RUN_DIR=$RUN_DIR is a symbolic link made by another user (uid $owner); $remedy"
    fi
    [[ -d $RUN_DIR ]] || ddp_die "RUN_DIR=$RUN_DIR is not a directory; $remedy"
    read -r owner mode < <(stat -L -c '%u %a' -- "$RUN_DIR")
    [[ $owner == "$me" ]] || ddp_die "RUN_DIR=$RUN_DIR belongs to another user (uid $owner), who could have" \
        "planted snapshots or a stop file in it; $remedy"
    ((!(8#$mode & 8#022))) || ddp_die "RUN_DIR=$RUN_DIR is writable by other users (mode $mode), who could plant" \
        "snapshots or a stop file in it (if it holds only your files: chmod go-w $RUN_DIR); $remedy"
}

# ddp_submit_command WORKLOAD...: how to submit this job script with WORKLOAD, for messages (app/launch/workload.py).
ddp_submit_command() {
    local -a submit_answer
    ddp_plan submit_answer submit-command --scheduler="${DDP_SCHEDULER:-slurm}" -- "$@"
    echo "${submit_answer[0]}"
}

# ddp_workload KIND ARGV ARGS...: what runs on every node, from the job's arguments ARGS: its kind into KIND (train,
# check, nccl-tests, module, script) and torchrun's trailing arguments into the array ARGV (app/launch/workload.py).
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_workload() {
    local -n workload_kind_out=$1 workload_out=$2
    local -a workload_answer
    ddp_plan workload_answer workload --scheduler="${DDP_SCHEDULER:-slurm}" --config="$CONFIG" --run-dir="$RUN_DIR" \
        --check-site="$CHECK_SITE" --cwd="$PWD" -- "${@:3}"
    workload_kind_out=${workload_answer[0]}
    workload_out=("${workload_answer[@]:1}")
}

# ddp_mpi_rank_env: for nccl-tests' MPI ranks, each started in its own container by the scheduler's launcher.
# Each rank's `apptainer exec` has a user namespace of its own, so a single-copy transfer between ranks of a
# node (CMA, process_vm_readv) is refused. Open MPI's own shared-memory transport (pml ob1 with btl vader, named
# sm in Open MPI 5, which still reads the vader_ names: docs.open-mpi.org v5.0, "Shared Memory") then warns on
# every rank ("CMA is not available", seen with the twin's Open MPI 4.1); copy in/out instead. HPC-X's Open
# MPI in the NGC images carries point-to-point over UCX (pml ucx), which does not read this; UCX's own posix
# and cma transports check the user namespace themselves (openucx/ucx PR #9213). Only MPI's bootstrap traffic
# goes this way either way: NCCL carries the measured data.
ddp_mpi_rank_env() {
    ddp_default OMPI_MCA_btl_vader_single_copy_mechanism none \
        "no CMA across the containers' user namespaces, for Open MPI's own shared memory (ob1); UCX does not read it"
}

# ddp_nccl_tests_one_node_cmd NPROC: the nccl-tests command for one node (app/launch/workload.py), for messages.
ddp_nccl_tests_one_node_cmd() {
    local -a one_node_answer
    ddp_plan one_node_answer nccl-tests-one-node --nproc="$1"
    echo "${one_node_answer[0]}"
}

# ddp_nproc_per_node OUT: one process per GPU the scheduler gave this job on a node, into OUT (app/launch/gpus.py).
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_nproc_per_node() {
    local -n nproc_out=$1
    local -a nproc_answer
    ddp_plan nproc_answer nproc --gpus-per-node="$GPUS_PER_NODE" --allocation="${DDP_ALLOC_GPUS_PER_NODE:-}" \
        --nnodes="$DDP_NNODES"
    nproc_out=${nproc_answer[0]}
}

# ddp_rdzv_host HOST OWNER: where every torchrun meets, into HOST, and the node that hosts the store, into OWNER
# (empty: torchrun decides); app/launch/rendezvous.py says why.
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_rdzv_host() {
    local -n rdzv_host_out=$1 rdzv_owner_out=$2
    local -a rdzv_answer dry_run=()
    [[ $DDP_JOB_ID != dry-run ]] || dry_run=(--dry-run)
    ddp_plan rdzv_answer rendezvous --head-node="$DDP_HEAD_NODE" --port="$RDZV_PORT" --given="$RDZV_HOST" \
        --ifaces="$RDZV_IFACES" "${dry_run[@]}"
    rdzv_host_out=${rdzv_answer[0]}
    rdzv_owner_out=${rdzv_answer[1]:-}
}

# ddp_torchrun_cmd OUT RDZV_ID PROGRAM...: one torchrun per node, into the array OUT: the command and its NUMA
# binding are built in app/launch/plan.py and app/launch/numa.py.
ddp_torchrun_cmd() {
    ddp_plan "$1" torchrun --nnodes="$DDP_NNODES" --nproc="$DDP_NPROC" --rdzv-host="$DDP_RDZV_HOST" \
        --rdzv-port="$RDZV_PORT" --join-timeout="$RDZV_JOIN_TIMEOUT_S" --numa-binding="${NUMA_BINDING:-auto}" \
        --launch="$LAUNCH" --image="$IMAGE" --probe-root="$DDP_PROBE_ROOT" -- "${@:2}"
}

# ddp_torchrun_step RDZV_ID PROGRAM...: torchrun with PROGRAM on every node through DDP_LAUNCHER (the
# preflight's check, then the workload); the step both mains use unless Slurm's LAUNCH=srun says otherwise.
ddp_torchrun_step() {
    local -a torchrun
    ddp_torchrun_cmd torchrun "$@"
    ddp_run_step "$DDP_RDZV_OWNER" "${torchrun[@]}"
}

# ddp_print_cmd LABEL ARGS...: the command, shell-quoted, so it can be pasted into a terminal.
ddp_print_cmd() {
    local label=$1
    shift
    ddp_log "$label: $(printf '%q ' "$@")"
}

# ddp_check_launcher NAMES LAUNCHER...: run a one-line report through the launcher and require one process on
# each of the DDP_NNODES nodes, in seconds, not at torchrun's join timeout (the tutorial's mistake: torchrun on
# the head node only); each node's hostname -> scheduler name into NAMES (an associative array). The verdict and
# its messages: app/launch/launch_check.py.
declare -A DDP_SCHEDULER_NAME_OF=()
ddp_check_launcher() {
    local -n names_out=$1
    shift
    [[ $(declare -p "${!names_out}" 2>/dev/null) == "declare -A"* ]] ||
        ddp_die "ddp_check_launcher: ${!names_out} is not an associative array (declare -A ${!names_out})"
    [[ $LAUNCH_CHECK == 1 && $DRY_RUN != 1 ]] || return 0
    local out errors rc=0 errors_file i
    local -a pairs
    errors_file=$(mktemp)
    # shellcheck disable=SC2016  # expanded on each node
    out=$("$@" /bin/sh -c 'echo "$0 $(uname -n) ${SLURMD_NODENAME:--} ${PALS_NODEID:-${PBS_NODENUM:--}}"' \
        ddp-launch-check 2>"$errors_file") || rc=$?
    errors=$(ddp_first_lines 10 <"$errors_file" | tr '\n' ' ')
    rm -f "$errors_file"
    ((rc == 0)) || ddp_die "the launcher failed to start a process on the nodes (exit $rc): $(printf '%q ' "$@")" \
        "said: ${errors:-nothing} $(ddp_first_lines 10 <<<"$out" | tr '\n' ' ')"
    ddp_plan pairs launch-check --nnodes="$DDP_NNODES" --launcher="$(printf '%q ' "$@")" --said="$errors" \
        -- ${DDP_NODES[@]+"${DDP_NODES[@]}"} <<<"$out"
    names_out=()
    for ((i = 0; i + 1 < ${#pairs[@]}; i += 2)); do names_out["${pairs[i]}"]=${pairs[i + 1]}; done
}

# ddp_first_lines N: the first N lines of stdin, then how many there were in all when there were more.
ddp_first_lines() { awk -v n="$1" 'NR <= n {print} END {if (NR > n) print "... (" NR " in all)"}'; }

# ddp_scheduler_node_names HOSTS: HOSTS (comma-separated hostnames) as the scheduler names the nodes, through the
# launcher check's pairs (DDP_SCHEDULER_NAME_OF); app/launch/launch_check.py says why they differ.
ddp_scheduler_node_names() {
    local host
    local -a names
    ddp_plan names scheduler-names < <(printf '%s\0' "$1"
        for host in "${!DDP_SCHEDULER_NAME_OF[@]}"; do printf '%s\0' "$host" "${DDP_SCHEDULER_NAME_OF[$host]}"; done)
    echo "${names[0]}"
}

# ddp_on_signal SIGNAL: preemption warning (USR1, from --signal=B:USR1@90 or the PBS timer) or termination
# (TERM): ask every node to stop through the stop file (see DDP_NODE_WRAPPER); the trainer then finishes
# its step, writes a snapshot and exits 75.
ddp_on_signal() {
    DDP_PREEMPTED=$1
    ddp_log "got SIG$1: asking the training processes on every node to snapshot and stop"
    touch "$DDP_STOP_FILE"
}

# The node wrapper (app/common/node_wrapper.sh, beside the fabric policy): around torchrun on every node,
# it sources the fabric policy and turns the stop file into a SIGTERM to the workers, then to torchrun
# after SHUTDOWN_TIMEOUT_S; its text goes to `sh -c`.
[[ -r $DDP_REPO/app/common/node_wrapper.sh ]] ||
    ddp_die "$DDP_REPO/app/common/node_wrapper.sh is missing; run the job scripts from a whole checkout"
DDP_NODE_WRAPPER=$(<"$DDP_REPO/app/common/node_wrapper.sh")
# CUDA forward compatibility (app/common/cuda_compat.sh, the file the image's runscript runs): on a driver older
# than the image's CUDA it puts the image's compat libraries first, as NGC's entrypoint would where Apptainer
# skips it, or stops the step in one line (exit 7) before NCCL starts; its text goes to `sh -c` before the wrapper.
[[ -r $DDP_REPO/app/common/cuda_compat.sh ]] ||
    ddp_die "$DDP_REPO/app/common/cuda_compat.sh is missing; run the job scripts from a whole checkout"
DDP_CUDA_COMPAT=$(<"$DDP_REPO/app/common/cuda_compat.sh")

# ddp_run_step OWNER NODE_CMD...: start NODE_CMD (torchrun ..., or one task's program) in DDP_CONTAINER
# through DDP_LAUNCHER, under the node wrapper (OWNER: the node that hosts torchrun's store, or empty), turn
# USR1/TERM into a stop request, wait for the step and return its exit code. DDP_PREEMPTED is set if signalled.
ddp_run_step() {
    local owner=$1
    shift
    local -a step=("${DDP_LAUNCHER[@]}" "${DDP_CONTAINER[@]}" /bin/sh -c "$DDP_CUDA_COMPAT" cuda-compat
        /bin/sh -c "$DDP_NODE_WRAPPER" ddp-node "$DDP_STOP_FILE" "$owner" "$DDP_NODE_POLICY" "$@")
    ddp_print_cmd "step" "${DDP_LAUNCHER[@]}" "${DDP_CONTAINER[@]}" "$@"
    if [[ $DRY_RUN == 1 ]]; then
        ddp_log "DRY_RUN=1: not running it"
        return 0
    fi
    # A stop request of an earlier run (before a requeue) must not stop this one
    rm -f "$DDP_STOP_FILE"
    trap 'ddp_on_signal USR1' USR1
    trap 'ddp_on_signal TERM' TERM
    # In the background so that the traps run at once: bash delays traps until a foreground command ends.
    "${step[@]}" &
    local pid=$! rc=0
    while true; do
        wait "$pid" && rc=0 || rc=$?
        # wait returns > 128 when a trapped signal interrupts it; the step is still running then.
        ((rc > 128)) && kill -0 "$pid" 2>/dev/null && continue
        break
    done
    # The step may have ended between an interrupted wait and kill -0: bash kept its status, fetch it.
    if ((rc > 128)); then wait "$pid" 2>/dev/null && rc=0 || rc=$?; fi
    trap - USR1 TERM
    ddp_log "step finished with exit code $rc${DDP_PREEMPTED:+ after SIG$DDP_PREEMPTED}"
    return "$rc"
}

# ddp_finish RC REQUEUE_CMD...: the job's end (app/launch/finish.py): after a USR1 that stopped an unfinished step,
# REQUEUE_CMD, and the new run resumes from the snapshot in the same RUN_DIR; otherwise the step's exit code.
ddp_finish() {
    local -a end
    ddp_plan end finish --rc="$1" --preempted="$DDP_PREEMPTED" --requeue="$REQUEUE" --job-id="$DDP_JOB_ID" \
        --run-dir="$RUN_DIR" -- "${@:2}"
    [[ -z ${end[1]} ]] || ddp_log "${end[1]}"
    [[ ${end[2]} != 1 ]] || "${@:2}" || ddp_die "${end[3]}"
    exit "${end[0]}"
}

# The rest of the library, one file per job: the fabric and the container, the preflight and leaving bad
# nodes out, then each scheduler's main.
# shellcheck source=jobscripts/lib-container.sh
source "$DDP_REPO/jobscripts/lib-container.sh"
# shellcheck source=jobscripts/lib-heal.sh
source "$DDP_REPO/jobscripts/lib-heal.sh"
# shellcheck source=jobscripts/lib-slurm.sh
source "$DDP_REPO/jobscripts/lib-slurm.sh"
# shellcheck source=jobscripts/lib-pbs.sh
source "$DDP_REPO/jobscripts/lib-pbs.sh"

# ddp_write_deepspeed_hostfile: RUN_DIR/hostfile for users of DeepSpeed's own launcher, and how to start it
# without SSH (app/launch/deepspeed_hostfile.py).
# shellcheck disable=SC2034  # the question writes the file and answers nothing
ddp_write_deepspeed_hostfile() {
    local -a dry_run=() hostfile_answer
    if [[ $DRY_RUN == 1 ]]; then dry_run=(--dry-run); else ddp_private_run_dir; fi
    ddp_plan hostfile_answer deepspeed-hostfile --run-dir="$RUN_DIR" --run-dir-mode="$RUN_DIR_MODE" \
        --nproc="$DDP_NPROC" --nnodes="$DDP_NNODES" --port="$RDZV_PORT" --scheduler="$DDP_SCHEDULER" \
        "${dry_run[@]}" -- "${DDP_NODES[@]}"
}
