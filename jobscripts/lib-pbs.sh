# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153  # the job's facts (DDP_*) are lib.sh's, which sources this file
# Part of jobscripts/lib.sh (sourced by it): the whole job for gh200-pbs.sh, its resubmission and its
# walltime timer.

# ------------------------------------------------------------------------------------------------ PBS
# ddp_pbs_main ARGS...: the whole job for gh200-pbs.sh. One launcher process per node (Cray PALS mpiexec
# --ppn 1, or one pbsdsh -n per node); the head node is the first line of $PBS_NODEFILE, where PBS runs
# this script (the mother superior), so it hosts the rendezvous store whatever the node file calls it.
ddp_pbs_main() {
    DDP_SCHEDULER=pbs
    if [[ -z ${PBS_JOBID:-} && ${DRY_RUN:-0} == 1 ]]; then
        ddp_dry_run_allocation
    else
        [[ -n ${PBS_JOBID:-} && -r ${PBS_NODEFILE:-} ]] || ddp_die "not inside a PBS job (PBS_JOBID/PBS_NODEFILE" \
            "unset); submit it: qsub -A PROJECT -q QUEUE [-v WORKLOAD=check] jobscripts/${DDP_SCRIPT} (or see what" \
            "it would run: DRY_RUN=1 DRY_RUN_NODES=node1,node2 bash jobscripts/${DDP_SCRIPT})"
        DDP_JOB_ID=$PBS_JOBID
        local -a nodes
        # One line per MPI slot: keep the first of each node, in order; the first is where this script runs.
        mapfile -t nodes < <(awk 'NF && !seen[$1]++ {print $1}' "$PBS_NODEFILE")
        DDP_NODES=("${nodes[@]}")
        ((${#nodes[@]})) || ddp_die "PBS_NODEFILE=$PBS_NODEFILE is empty; is this a PBS job?"
        ddp_pbs_check_node_names "${nodes[@]}"
        DDP_NNODES=${#nodes[@]}
        DDP_HEAD_NODE=${nodes[0]}
        DDP_SUBMIT_DIR=${PBS_O_WORKDIR:-$PWD}
        DDP_ALLOC_GPUS_PER_NODE=
    fi
    cd "$DDP_SUBMIT_DIR" || ddp_die "cannot enter the submit directory $DDP_SUBMIT_DIR (PBS_O_WORKDIR)"
    # qsub passes no arguments to a batch script: the workload comes in WORKLOAD (qsub -v WORKLOAD=check).
    if ((!$#)) && [[ -n ${WORKLOAD:-} ]]; then
        local -a words
        ddp_split_words words "$WORKLOAD"
        set -- "${words[@]}"
    fi
    ddp_defaults
    # At 1024 nodes the whole list is one unreadable line: the count and the first few
    ddp_log "job $DDP_JOB_ID on $DDP_NNODES node(s): $(printf '%s\n' "${DDP_NODES[@]}" | ddp_first_lines 4 |
        paste -sd' ' -), run directory $RUN_DIR"
    ddp_workload DDP_WORKLOAD_KIND DDP_WORKLOAD "$@"
    ddp_nproc_per_node DDP_NPROC
    # nccl-tests: one rank per GPU, each an MPI rank of the image's Open MPI, which wires up through the PMIx
    # server Cray PALS runs for `mpiexec --pmi=pmix` ("It supports a PMIx server", docs.open-mpi.org,
    # "Launching with HPE PALS"). pbsdsh's TM tasks get no PMIx server: no way to wire the ranks up there.
    [[ $DDP_WORKLOAD_KIND != nccl-tests || ${LAUNCHER:=mpiexec} == mpiexec ]] || ddp_die "nccl-tests needs a" \
        "launcher that serves PMIx to the image's Open MPI, and LAUNCHER=$LAUNCHER (TM tasks) serves none; use" \
        "LAUNCHER=mpiexec (Cray PALS: mpiexec --pmi=pmix), or run it on one node: $(ddp_nccl_tests_one_node_cmd \
        "$DDP_NPROC") (README: Images)"
    ddp_write_deepspeed_hostfile
    ddp_fabric_env
    ddp_container_cmd DDP_CONTAINER DDP_NODE_POLICY
    local -a per_node
    case ${LAUNCHER:=mpiexec} in
        # Cray PALS: one process per node; --cpu-bind none leaves every core to torchrun's workers.
        mpiexec) per_node=(mpiexec -n "$DDP_NNODES" --ppn 1 --cpu-bind none) ;;
        pbsdsh) ddp_pbsdsh_launcher per_node ;;
        *) ddp_die "LAUNCHER=$LAUNCHER is not mpiexec or pbsdsh; example: LAUNCHER=mpiexec" ;;
    esac
    local step=ddp_torchrun_step
    DDP_LAUNCHER=("${per_node[@]}")
    if [[ $DDP_WORKLOAD_KIND == nccl-tests ]]; then
        step=ddp_pbs_mpi_step
        DDP_LAUNCHER=(mpiexec -n $((DDP_NNODES * DDP_NPROC)) --ppn "$DDP_NPROC" --pmi=pmix --cpu-bind none)
        ddp_mpi_rank_env
    fi
    # Where torchrun's store is; MPI programs meet through PMIx instead
    [[ $step == ddp_pbs_mpi_step ]] || ddp_rdzv_host DDP_RDZV_HOST DDP_RDZV_OWNER
    ddp_check_launcher DDP_SCHEDULER_NAME_OF "${per_node[@]}"
    local timer
    ddp_pbs_timer timer
    DDP_REQUEUE_CMD=(ddp_pbs_resubmit)
    DDP_HEAL_CMD=ddp_pbs_heal
    ddp_freeze_job_facts
    ddp_preflight "$step"
    local rc=0
    ddp_run_workload "$step" || rc=$?
    # The timer may have fired (and exited) already: a failed kill must not end the script under set -e.
    [[ -z $timer ]] || kill "$timer" 2>/dev/null || true
    ddp_after_workload "$rc"
    ddp_finish "$rc" "${DDP_REQUEUE_CMD[@]}"
}

# ddp_pbs_mpi_step RDZV_ID PROGRAM...: nccl-tests, an MPI program: PALS' mpiexec starts every rank.
ddp_pbs_mpi_step() {
    ddp_run_step "" "${@:2}"
}

# ddp_pbs_check_node_names NODES...: every name of $PBS_NODEFILE must resolve, or stop (exit 2) before any
# rank starts. The launchers reach the nodes by these names (PALS' host list, the moms of TM) and the
# rendezvous falls back to the head's name; a node file copied from another job or system, or hand-written
# with the wrong domain, would start ranks on some nodes and leave them waiting until the join timeout.
# Cost: the head's name alone first (a file of names that all fail stops there, after one look-up, not one
# DNS timeout per node), then one `getent hosts` for all (exit 2 when "one or more supplied key could not be
# found", getent(1)): one process, N look-ups (milliseconds each in /etc/hosts or a site resolver); only
# when that fails, one look-up per name, up to the first 4 unknown, to say which.
ddp_pbs_check_node_names() {
    local name
    local -a unknown=()
    if getent hosts "$1" >/dev/null 2>&1; then
        getent hosts "$@" >/dev/null 2>&1 && return 0
        for name in "${@:2}"; do
            getent hosts "$name" >/dev/null 2>&1 || unknown+=("$name")
            ((${#unknown[@]} < 4)) || break
        done
        ((${#unknown[@]})) || return 0
    else
        unknown=("$1")
    fi
    ddp_die "PBS_NODEFILE=$PBS_NODEFILE lists names no host answers to (getent hosts finds none):" \
        "$(printf '%s\n' "${unknown[@]}" | paste -sd' ' -); PBS writes the job's own nodes there: submit with" \
        "qsub and leave PBS_NODEFILE as PBS sets it, or give a file of names that resolve on the nodes (check" \
        "one: getent hosts ${unknown[0]})"
}

# ddp_pbs_resubmit: qrerun needs PBS operator rights, so the job resubmits itself (same RUN_DIR, after
# this one ends), with the account, queue and resources it was submitted with.
ddp_pbs_resubmit() {
    local -a options
    ddp_pbs_submission_options options
    qsub "${options[@]}" -V -W "depend=afterany:$PBS_JOBID" \
        "${DDP_JOBSCRIPT:-${DDP_JOBSCRIPTS:-$DDP_SUBMIT_DIR/jobscripts}/$DDP_SCRIPT}"
}

# ddp_pbs_heal NODES: the resubmission as it was: PBS cannot leave NODES out of it (app/launch/heal.py says why
# and decides "requeue" there), the next attempt's preflight checks whatever nodes it gets.
ddp_pbs_heal() {
    ddp_pbs_resubmit || ddp_die "resubmission failed; resubmit by hand with RUN_DIR=$RUN_DIR to resume"
}

# ddp_pbs_submission_options OUT: this job's own submission, as `qstat -f` shows it, into the array named OUT.
# A bare `qsub SCRIPT` would take the script's #PBS defaults and the server's default queue: the account
# (-A), the queue (-q), a `-l select=4:...` given on the command line, site resources inside the chunks
# (Olivia's sales_op=...) and the placement would all be lost. app/launch/pbs.py reads qstat -f and picks them.
ddp_pbs_submission_options() {
    local -n options_out=$1
    options_out=()
    local answer qsub_options=() note=''
    if ! answer=$({ qstat -f "$PBS_JOBID" 2>/dev/null || true; } |
        ddp_launch_python app.launch.pbs options --job-id "$PBS_JOBID"); then
        ddp_log "warning: this job's qstat -f could not be read (above): resubmitting with the script's #PBS defaults only"
        return 0
    fi
    eval "$answer"  # qsub_options=(...) and note=..., every value quoted (app/launch/answer.py)
    options_out=("${qsub_options[@]}")
    ddp_log "$note"
}

# ddp_split_words OUT TEXT: TEXT's words into the array OUT as a command line groups them ('a b' and "a b" are
# one word, \ escapes), with no expansion of any kind (no globbing, no $, no command substitution): xargs parses
# quotes that way (POSIX xargs). Unbalanced quotes stop the job with the fix.
ddp_split_words() {
    local -n words_out=$1
    local parsed
    parsed=$(xargs -r printf '%s\0' <<<"$2" 2>&1 >/dev/null) ||
        ddp_die "WORKLOAD=$2: ${parsed#xargs: }; quote each argument once, example: WORKLOAD=\"train.py --name 'a b'\""
    mapfile -d '' -t words_out < <(xargs -r printf '%s\0' <<<"$2")
}

# ddp_pbsdsh_launcher OUT: the pbsdsh launcher, into the array named OUT: ddp_pbsdsh_on_each_node, which hands
# this script's environment (fabric settings, RUN_DIR) to the tasks.
ddp_pbsdsh_launcher() {
    local -n launcher_out=$1  # the caller's array, named explicitly (bash >= 4.3)
    ddp_private_run_dir
    launcher_out=(ddp_pbsdsh_on_each_node)
}

# ddp_pbsdsh_on_each_node COMMAND...: COMMAND once on every node of the job, through OpenPBS pbsdsh,
# and the highest of their exit codes. pbsdsh (OpenPBS src/cmds/pbsdsh.c, getopt "c:n:svo"; "c:n:h:svo" on
# master) has no "once per node": TORQUE's -u is an invalid option there, and without -n it "runs one task
# for each line in the $PBS_NODEFILE" (pbsdsh(1B)), i.e. one per MPI slot. So one `pbsdsh -n INDEX` per
# node, INDEX the node's first line in the node file, all at once. What a TM task sees is not the caller's
# (start_process(), src/resmom/start_exec.c): the job's initial environment, started in $HOME, its stdout
# and stderr to the job's output files (or nowhere with nodemux), and pbsdsh exits 0 whatever the task
# returned. Hence DDP_PBSDSH_TASK: it loads the step's environment from a file (every exported variable,
# secrets included: 0600 in a mktemp -d directory, deleted with it when the step ends), enters this
# directory, writes COMMAND's stdout and exit code to files in RUN_DIR (shared by every node; one per node: appends from several nodes to one
# file may interleave on NFS), which `tail --pid` copies to this stdout as they grow (what the launcher
# check reads) and which give the exit code. Cost: N pbsdsh processes here, N open files in tail (the
# soft descriptor limit is raised to the hard one: 1024 is a common default), polled every 0.5 s.
ddp_pbsdsh_on_each_node() {
    local dir env_file index rc=0 status spawner
    local -a indexes outs missing=()
    dir=$(mktemp -d "$RUN_DIR/.pbsdsh-$DDP_JOB_ID.XXXXXX")
    env_file=$dir/environment
    (umask 077 && export -p >"$env_file")
    mapfile -t indexes < <(awk 'NF {if (!seen[$1]++) print n + 0; n++}' "$PBS_NODEFILE")
    for index in "${indexes[@]}"; do
        : >"$dir/$index.out"
        outs+=("$dir/$index.out")
    done
    ddp_log "pbsdsh: one task per node, pbsdsh -n LINE for the first node-file line of each:" \
        "$(printf '%s\n' "${indexes[@]}" | ddp_first_lines 8 | paste -sd' ' -)"
    (
        for index in "${indexes[@]}"; do
            pbsdsh -n "$index" -- /bin/bash -c "$DDP_PBSDSH_TASK" ddp-pbsdsh-task "$env_file" "$PWD" \
                "$dir/$index" "$@" &
        done
        wait
    ) &
    spawner=$!
    (
        ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
        exec tail -q -n +1 -s 0.5 --pid="$spawner" -f "${outs[@]}"
    )
    wait "$spawner" || true
    for index in "${indexes[@]}"; do
        if [[ -r $dir/$index.rc ]]; then
            status=$(<"$dir/$index.rc")
            # A number, checked before (( )) sees it: bash would run a command in `x[$(cmd)]` there
            if [[ $status =~ ^[0-9]{1,3}$ ]]; then
                ((10#$status > rc)) && rc=$((10#$status))
            else
                missing+=("$index")
            fi
        else
            missing+=("$index")
        fi
    done
    rm -rf "$dir"
    if ((${#missing[@]})); then
        ddp_error "pbsdsh: no exit code from the task on node-file line(s) $(printf '%s\n' "${missing[@]}" |
            ddp_first_lines 8 | paste -sd' ' -) (it did not start, or was killed: see the job's output file)"
        ((rc > 0)) || rc=1
    fi
    return "$rc"
}

# The task pbsdsh starts on each node: $1 = ENV_FILE, $2 = directory, $3 = the files' prefix, the rest =
# the command. PBS_NODENUM and PBS_TASKNUM are the task's own (its mom's index in the node file's order,
# which the launcher check reads), not the batch script's that ENV_FILE holds.
# shellcheck disable=SC2016  # expanded by the task's shell, not here
DDP_PBSDSH_TASK='node=${PBS_NODENUM:-} task=${PBS_TASKNUM:-}
. "$1" && export PBS_NODENUM="$node" PBS_TASKNUM="$task" && cd "$2" || exit
prefix=$3
shift 3
status=0
"$@" >>"$prefix.out" || status=$?
echo "$status" >"$prefix.rc.tmp" && mv "$prefix.rc.tmp" "$prefix.rc"
exit "$status"'

# ddp_pbs_timer PID: PBS has no `--signal=B:USR1@90`; a timer sends USR1 to this script PREEMPT_MARGIN_S
# before the walltime ends (from WALLTIME_S, else `qstat -f`: app/launch/pbs.py computes the delay), which then
# snapshots and resubmits. Its process id goes into PID (empty without a timer), for the main to stop it when the
# workload ends first.
ddp_pbs_timer() {
    local -n timer_pid_out=$1
    timer_pid_out=
    if [[ $DRY_RUN == 1 ]]; then
        ddp_log "DRY_RUN=1: no walltime timer"
        return 0
    fi
    local qstat_text='' answer delay_s='' note=''
    if [[ -z ${WALLTIME_S:-} ]] && command -v qstat >/dev/null; then
        qstat_text=$(qstat -f "$PBS_JOBID" 2>/dev/null || true)
    fi
    answer=$(ddp_launch_python app.launch.pbs timer --walltime-s "${WALLTIME_S:-}" \
        --margin-s "${PREEMPT_MARGIN_S:-90}" --elapsed-s "$SECONDS" <<<"$qstat_text") || exit 2
    eval "$answer"  # delay_s=... and note=..., every value quoted (app/launch/answer.py)
    ddp_log "$note"
    [[ -n $delay_s ]] || return 0
    # The subshell kills its own sleep when it is killed (the step ended first): no orphan holding the log.
    (
        trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
        sleep "$delay_s" &
        sleeper=$!
        wait "$sleeper" && kill -USR1 $$
    ) &
    timer_pid_out=$!
}
