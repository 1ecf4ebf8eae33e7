# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153  # the job's facts (DDP_*) are lib.sh's, which sources this file
# Part of jobscripts/lib.sh (sourced by it): the whole job for mn5.sh and slurm.sh.

# ---------------------------------------------------------------------------------------------- Slurm
# ddp_slurm_main ARGS...: the whole job for mn5.sh and slurm.sh. One srun task per node runs the container
# and torchrun inside; USR1 (sbatch --signal=B:USR1@90) leads to a snapshot and `scontrol requeue`.
ddp_slurm_main() {
    DDP_SCHEDULER=slurm
    if [[ -z ${SLURM_JOB_ID:-} && ${DRY_RUN:-0} == 1 ]]; then
        ddp_dry_run_allocation
    else
        [[ -n ${SLURM_JOB_ID:-} ]] || ddp_die "not inside a Slurm job; submit it: sbatch [site flags]" \
            "jobscripts/${DDP_SCRIPT} [train [key=value ...] | check | SCRIPT.py ARGS] (or see what it would run:" \
            "DRY_RUN=1 DRY_RUN_NODES=node1,node2 bash jobscripts/${DDP_SCRIPT})"
        DDP_JOB_ID=$SLURM_JOB_ID
        DDP_NNODES=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:?}}
        # The whole list is read (not `| head -n 1`, which under pipefail and scontrol's SIGPIPE would end the
        # script without a word on large node lists).
        mapfile -t DDP_NODES < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
        DDP_HEAD_NODE=${DDP_NODES[0]}
        DDP_SUBMIT_DIR=${SLURM_SUBMIT_DIR:-$PWD}
        # Set by Slurm when the job asked for GPUs (--gres=gpu:N, --gpus-per-node=N)
        DDP_ALLOC_GPUS_PER_NODE=${SLURM_GPUS_ON_NODE:-}
    fi
    # A job without GPUs submitted with --cpus-per-gpu (which sbatch accepts before 23.02): srun would read
    # it back from the environment and refuse every step ("Invalid generic resource (gres) specification").
    [[ -n $DDP_ALLOC_GPUS_PER_NODE ]] || unset SLURM_CPUS_PER_GPU
    ddp_defaults
    ddp_log "job $DDP_JOB_ID on ${SLURM_JOB_NODELIST:-$(IFS=,; echo "${DDP_NODES[*]}")}," \
        "run #$((${SLURM_RESTART_COUNT:-0} + 1)), run directory $RUN_DIR"
    ddp_workload DDP_WORKLOAD_KIND DDP_WORKLOAD "$@"
    ddp_nproc_per_node DDP_NPROC
    ddp_write_deepspeed_hostfile
    ddp_fabric_env
    ddp_container_cmd DDP_CONTAINER DDP_NODE_POLICY
    # nccl-tests: one srun task per GPU, each an MPI rank of the image's OpenMPI, which learns its peers from
    # Slurm's PMIx server (Slurm built --with-pmix: srun --mpi=list names pmix).
    if [[ $DDP_WORKLOAD_KIND == nccl-tests ]]; then
        [[ $DRY_RUN == 1 ]] || srun --mpi=list 2>&1 | grep -qw pmix ||
            ddp_die "nccl-tests needs Slurm's PMIx plugin (srun --mpi=pmix) for the image's OpenMPI, and" \
                "srun --mpi=list does not list pmix here; ask your site for it, or run on one node:" \
                "$(ddp_nccl_tests_one_node_cmd "$DDP_NPROC")"
        # --gpus-per-task (sbatch's, which srun reads back from SLURM_*) implies --gpu-bind=per_task (srun(1)):
        # each task sees its own GPUs from index 0. nccl-tests picks GPU localRank * nGpus + i unless
        # NCCL_TESTS_DEVICE names the first (src/common.cu, nccl-tests v2.17.6, the image's): every rank but a
        # node's first would ask for a GPU its task cannot see.
        local -a per_task
        ddp_plan per_task gpus-per-task
        [[ -z ${per_task[0]:-} ]] || ddp_default NCCL_TESTS_DEVICE 0 \
            "--gpus-per-task=$per_task: each task's own GPUs start at index 0, not at its local rank"
        ddp_mpi_rank_env
    fi
    # The srun command lines (app/launch/slurm.py): STEP, N, one task per node (N words), the step's launcher
    local -a launch per_node
    ddp_plan launch slurm-launch --launch="$LAUNCH" --workload="$DDP_WORKLOAD_KIND" --nnodes="$DDP_NNODES" \
        --nproc="$DDP_NPROC"
    local step=ddp_slurm_${launch[0]}_step
    [[ $step != ddp_slurm_torchrun_step ]] || step=ddp_torchrun_step
    per_node=("${launch[@]:2:launch[1]}")
    DDP_LAUNCHER=("${launch[@]:2+launch[1]}")
    # Where torchrun's store (or, under LAUNCH=srun, rank 0's) is; MPI programs meet through PMIx instead
    [[ $step == ddp_slurm_mpi_step ]] || ddp_rdzv_host DDP_RDZV_HOST DDP_RDZV_OWNER
    if [[ $step == ddp_slurm_task_step ]]; then
        ddp_default MASTER_ADDR "$DDP_RDZV_HOST" "rank 0's rendezvous address"
        ddp_default MASTER_PORT "$RDZV_PORT" "rank 0's rendezvous port"
    fi
    ddp_check_launcher DDP_SCHEDULER_NAME_OF "${per_node[@]}"
    DDP_REQUEUE_CMD=(scontrol requeue "$DDP_JOB_ID")
    DDP_HEAL_CMD=ddp_slurm_heal
    ddp_preflight "$step"
    local rc=0
    ddp_run_workload "$step" || rc=$?
    ddp_after_workload "$rc"
    ddp_finish "$rc" "${DDP_REQUEUE_CMD[@]}"
}

# The three ways a step runs python PROGRAM (the preflight's check, then the workload) on the job's GPUs;
# each is called as STEP RDZV_ID PROGRAM...
# LAUNCH=torchrun: ddp_torchrun_step (lib.sh), one torchrun per node, which starts the per-GPU workers.
# ddp_slurm_task_step: LAUNCH=srun, one srun task per GPU running python PROGRAM itself (no torchrun): the
# trainer reads SLURM_PROCID/SLURM_LOCALID/SLURM_STEP_NUM_TASKS, and rank 0 hosts the store at MASTER_ADDR,
# the head node's fabric address (rank 0 runs there: srun places the first task on the first node). Each
# step is a fresh srun step, so the rendezvous id is not needed. Your own script or module gets torchrun's
# variables as well (DDP_SRUN_TASK_ENV): `deepspeed.init_distributed()` wants RANK, WORLD_SIZE and LOCAL_RANK
# beside MASTER_ADDR and MASTER_PORT, and without any of them looks for an MPI world through mpi4py instead
# (deepspeed/comm/comm.py, v0.19.8: init_distributed -> mpi_discovery), which the image lacks. The project's own
# train and check keep reading srun's SLURM_* (app/common/cluster.py), which also say who launched them.
ddp_slurm_task_step() {
    case $DDP_WORKLOAD_KIND in
        script | module) ddp_run_step "" /bin/sh -c "$DDP_SRUN_TASK_ENV" ddp-task "$DDP_NPROC" python "${@:2}" ;;
        *) ddp_run_step "" python "${@:2}" ;;
    esac
}

# In each srun task, before its program: torchrun's names for what srun says ($1 = tasks per node, the same on
# every node: the step's --ntasks-per-node), then the program ($2...).
# shellcheck disable=SC2016  # expanded in each task
DDP_SRUN_TASK_ENV='RANK=${SLURM_PROCID:?srun sets it} WORLD_SIZE=${SLURM_STEP_NUM_TASKS:?srun sets it}
LOCAL_RANK=${SLURM_LOCALID:?srun sets it} LOCAL_WORLD_SIZE=$1
export RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE
shift
exec "$@"'

# ddp_slurm_mpi_step: nccl-tests, an MPI program: srun starts every rank.
ddp_slurm_mpi_step() {
    ddp_run_step "" "${@:2}"
}

# ddp_slurm_heal NODES: requeue this job with NODES (comma-separated Slurm node names) added to its exclude
# list. Slurm refuses to change the exclude list of a running job ("Job
# is no longer pending execution") and accepts it once `scontrol requeue` has made the job pending again
# (PENDING while it is still completing, seen on the test cluster). The requeue also sends this script
# SIGTERM: it is ignored from here on, so the update that follows still runs.
ddp_slurm_heal() {
    local current all
    current=$(scontrol show job -o "$SLURM_JOB_ID" | grep -o 'ExcNodeList=[^ ]*' | cut -d= -f2- || true)
    [[ $current == "(null)" ]] && current=
    all=$({ [[ -n $current ]] && scontrol show hostnames "$current"; tr ',' '\n' <<<"$1"; } |
        awk 'NF && !seen[$0]++' | paste -sd, -)
    trap '' TERM USR1
    scontrol requeue "$SLURM_JOB_ID" || ddp_die "scontrol requeue $SLURM_JOB_ID failed (submitted with --no-requeue?);" \
        "resubmit by hand: sbatch --exclude=$all --export=ALL,RUN_DIR=$RUN_DIR ... to resume without the bad node(s)"
    scontrol update JobId="$SLURM_JOB_ID" ExcNodeList="$all" ||
        ddp_log "warning: could not leave out $all (scontrol update ExcNodeList); the job may land on them again"
    ddp_log "requeued job $SLURM_JOB_ID without $all; it resumes from the newest snapshot in $RUN_DIR"
}
