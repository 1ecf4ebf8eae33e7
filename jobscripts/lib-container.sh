# shellcheck shell=bash
# shellcheck disable=SC2153  # the job's facts (DDP_*) are lib.sh's, which sources this file
# Part of jobscripts/lib.sh (sourced by it): the fabric choice, the host pieces the container needs,
# and the `apptainer exec` command.

# The fabric policy of this checkout (the image has its own copy at /opt/app/fabric_policy.env)
DDP_POLICY_FILE=$DDP_REPO/app/common/fabric_policy.env

# ddp_fabric_env: which network NCCL must use, so it never falls back to the management Ethernet
# silently. The settings themselves live in one file, the fabric policy (app/common/fabric_policy.env,
# /opt/app/fabric_policy.env in the image): each node's wrapper sources it inside the container, with
# APP_FABRIC and APP_NNODES from here, so the image, IMAGE=none and `apptainer run` all get the same values.
# Here: the fabric is chosen (FABRIC, or detected on the head node), bad input stops the job, and the
# policy is previewed into the job log (what it will set, what it keeps because you set it).
ddp_fabric_env() {
    [[ -r $DDP_POLICY_FILE ]] || ddp_die "the fabric policy $DDP_POLICY_FILE is missing; run the job script from" \
        "a checkout of the project (DDP_JOBSCRIPTS=/path/to/checkout/jobscripts)"
    local detected='' line
    local -a fabric
    # FABRIC=auto: the policy's own detection, on the head node (Slingshot, InfiniBand or RoCE by link layer, none)
    [[ $FABRIC != auto ]] || detected=$(APP_FABRIC=auto APP_PROBE_ROOT=$DDP_PROBE_ROOT APP_FABRIC_LOG=0 \
        sh -c '. "$1" >/dev/null 2>&1; echo "$APP_FABRIC_DETECTED"' policy "$DDP_POLICY_FILE")
    ddp_plan fabric fabric --fabric="$FABRIC" --detected="$detected" --probe-root="$DDP_PROBE_ROOT" \
        --fi-provider="${FI_PROVIDER:-}"
    FABRIC=${fabric[0]}
    # Read by the policy on every node (the scheduler passes the environment on to srun/mpiexec tasks)
    export APP_FABRIC=$FABRIC APP_NNODES=$DDP_NNODES APP_PROBE_ROOT=$DDP_PROBE_ROOT
    # The preview: the same file, in a subshell, with this environment; nothing is exported here.
    while IFS= read -r line; do ddp_log "$line"; done < <(APP_FABRIC_LOG=1 sh -c '. "$1"' policy "$DDP_POLICY_FILE" 2>&1)
    # PyTorch's NCCL flight recorder: the last collectives of every rank, dumped into the run directory
    # when a collective times out, to show which rank and which collective hung (read by ProcessGroupNCCL
    # only; the trainer names a rank that stops answering before that, see dist.hang_timeout_s). Its
    # buffer is on by default (2000 entries since torch 2.6, pytorch#142260; torch 2.13 reads
    # TORCH_FR_BUFFER_SIZE and warns on every rank about the old TORCH_NCCL_TRACE_BUFFER_SIZE), so only
    # the dump is asked for.
    ddp_default TORCH_NCCL_DUMP_ON_TIMEOUT 1 "dump the flight recorder when a collective times out"
    ddp_default TORCH_FR_DUMP_TEMP_FILE "$RUN_DIR/nccl-flight-recorder-rank" "where the dumps go (one per rank)"
}

# ddp_fabric_binds OUT: what the container binds (the run directory, the fabric's devices and host libraries,
# BINDS), as apptainer arguments into the array OUT (app/launch/binds.py).
ddp_fabric_binds() {
    ddp_plan "$1" binds --fabric="$FABRIC" --run-dir="$RUN_DIR" --binds="${BINDS:-}" --probe-root="${DDP_PROBE_ROOT:-}" \
        --host-libfabric-dir="${HOST_LIBFABRIC_DIR:-}"
}

# ddp_container_cmd CMD POLICY: `apptainer exec --nv BINDS IMAGE` into the array CMD (empty with IMAGE=none), and
# into POLICY the fabric policy files the node wrapper tries inside it (app/launch/container.py).
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_container_cmd() {
    local -n container_out=$1 policy_out=$2
    [[ $DRY_RUN == 1 ]] || ddp_private_run_dir
    local -a plan dry_run=()
    [[ $DRY_RUN != 1 ]] || dry_run=(--dry-run)
    ddp_plan plan container --image="$IMAGE" --apptainer="$APPTAINER" --apptainer-args="$APPTAINER_ARGS" \
        --launch="$LAUNCH" --workload="${DDP_WORKLOAD_KIND:-}" --policy-file="$DDP_POLICY_FILE" "${dry_run[@]}" \
        --fabric="$FABRIC" --run-dir="$RUN_DIR" --binds="${BINDS:-}" --probe-root="${DDP_PROBE_ROOT:-}" \
        --host-libfabric-dir="${HOST_LIBFABRIC_DIR:-}"
    APPTAINER=${plan[0]} policy_out=${plan[1]} container_out=("${plan[@]:3}")
    [[ -z ${plan[2]} ]] || ddp_host_app_check "${plan[2]}"
    [[ $IMAGE == none || ! -f $IMAGE ]] || ddp_check_image_arch
    if [[ $IMAGE != none && ${DDP_WORKLOAD_KIND:-} == nccl-tests ]]; then
        local tmpfs
        ddp_slurm_tmpfs tmpfs
        container_out=(/bin/sh -c "$DDP_PMIX_BINDS" ddp-pmix-binds "$tmpfs" "${container_out[@]}")
    fi
}

# An MPI rank started by srun --mpi=pmix (or PALS' --pmi=pmix) talks to its node's PMIx server through files the
# container must see. Slurm's mpi/pmix plugin keeps the server's under SlurmdSpoolDir/pmix.JOB.STEP, which it
# announces to each task as PMIX_SERVER_TMPDIR, and the client's under TmpFS/spmix_appdir_UID_JOB.STEP, which it
# passes inside PMIx, not in the environment (src/plugins/mpi/pmix/pmixp_info.c, pmixp_client.c, slurm-25-11-7-1);
# the client's PMIx library reads PMIX_SERVER_TMPDIR and PMIX_SYSTEM_TMPDIR (openpmix ptl_base). Apptainer binds
# /tmp, not /var/spool. So each task binds what it was given, as NVIDIA enroot's 50-slurm-pmi.sh hook does: known
# only in the task (each step has its own), hence this wrapper in front of `apptainer exec`, run per task. Both
# matter (twin image, Open MPI 4.1, on the test cluster): the server's holds PMIx's shared-memory store, the
# client's Open MPI's session directory (unbound: "ORTE_ERROR_LOG: Error in file .../orte/util/session_dir.c").
# $1 = TmpFS ('' = none known; a %n in it is the node's name, as slurmd expands it: slurm_get_tmp_fs),
# $2... = the container command (RUNTIME exec ARGS...).
# The image's PMIx library is not the server's, and the host's PMIx settings (its pmix-mca-params.conf) are not in
# the container, so each task holds it to the modules its server announces (PMIx_server_setup_fork), each only
# where you have not chosen, as enroot's conf/hooks/extra/50-slurm-pmi.sh does (NVIDIA/enroot; pyxis'
# src/pyxis_slurmstepd.c, pmix_setup: "the 3 essential PMIx variables"):
#   PMIX_MCA_psec <- PMIX_SECURITY_MODE (Slurm 25.11 with PMIx 4.2: munge,native): only the security modules the
#     server accepts; CSCS documents PMIX_MCA_psec=native for srun --mpi=pmix ("the same security domain as Slurm",
#     else warnings at start: docs.cscs.ch, software/communication/openmpi)
#   PMIX_MCA_ptl  <- PMIX_PTL_MODULE (older PMIx servers announce it; 4.2 does not): the transports it listens on
#   PMIX_MCA_gds  <- PMIX_GDS_MODULE (ds21,ds12,hash): only the stores the server fills; its ds21/ds12 store lives
#     in PMIX_SERVER_TMPDIR (unbound: "PMIX ERROR: ERROR in file .../gds_ds12_lock_pthread.c", then MPI_Init fails)
# shellcheck disable=SC2016  # expanded in each task
DDP_PMIX_BINDS='tmpfs=$1 runtime=$2 verb=$3
shift 3
if [ -n "${PMIX_SECURITY_MODE:-}" ] && [ -z "${PMIX_MCA_psec:-}" ]; then export PMIX_MCA_psec="$PMIX_SECURITY_MODE"; fi
if [ -n "${PMIX_PTL_MODULE:-}" ] && [ -z "${PMIX_MCA_ptl:-}" ]; then export PMIX_MCA_ptl="$PMIX_PTL_MODULE"; fi
if [ -n "${PMIX_GDS_MODULE:-}" ] && [ -z "${PMIX_MCA_gds:-}" ]; then export PMIX_MCA_gds="$PMIX_GDS_MODULE"; fi
case $tmpfs in *%n*) tmpfs=${tmpfs%%%n*}${SLURMD_NODENAME:-}${tmpfs#*%n} ;; esac
for dir in "${PMIX_SERVER_TMPDIR:-}" "${PMIX_SYSTEM_TMPDIR:-}" \
    "${tmpfs:+$tmpfs/spmix_appdir_$(id -u)_${SLURM_JOB_ID:-}.${SLURM_STEP_ID:-}}"; do
    dir=${dir%/}
    case $dir in "" | /tmp) continue ;; esac
    if [ -d "$dir" ]; then set -- --bind "$dir" "$@"; fi
done
exec "$runtime" "$verb" "$@"'

# ddp_slurm_tmpfs OUT: Slurm's TmpFS (slurm.conf; /tmp by default), where mpi/pmix makes each step's client
# directory, into OUT; DDP_PMIX_TMPFS if set; empty outside Slurm or without scontrol.
# shellcheck disable=SC2034  # OUT is the caller's variable (a nameref): shellcheck cannot see it read
ddp_slurm_tmpfs() {
    local -n tmpfs_out=$1
    tmpfs_out=${DDP_PMIX_TMPFS-}
    [[ -z ${DDP_PMIX_TMPFS+set} && $DDP_SCHEDULER == slurm ]] && command -v scontrol >/dev/null || return 0
    tmpfs_out=$(scontrol show config 2>/dev/null | awk '$1 == "TmpFS" {print $3; exit}' || true)
}

# ddp_host_app_check PROGRAM: IMAGE=none runs your environment's python (PROGRAM's interpreter), which may
# not have this project: fine for your own script, but `train`, `check` and the preflight (python -m app.check)
# would each die on every rank with "No module named 'app'". Checked here, in the submit directory the
# ranks start in, before any rank starts.
ddp_host_app_check() {
    local python path
    path=$(command -v "$1")
    python=$path
    if [[ $1 == torchrun ]]; then  # torchrun starts its workers with its own interpreter, its #! line's
        python=$(sed -n '1s/^#![[:space:]]*//p' "$path" 2>/dev/null | awk '{print $1}')
        [[ -x $python ]] || python=$(command -v python3 || command -v python || true)
    fi
    [[ -n $python ]] && "$python" -c 'import app.train' 2>/dev/null && return 0
    case ${DDP_WORKLOAD_KIND:-train} in
        train | check)
            ddp_die "IMAGE=none runs ${python:-python} from your environment, which cannot import this project" \
                "(No module named 'app'); install it there (${python:-python} -m pip install -e $DDP_REPO) or run in" \
                "the image (IMAGE=/path/to/app.sif)" ;;
        *)
            if [[ $PREFLIGHT == 1 ]]; then
                PREFLIGHT=0
                ddp_log "no preflight: your environment's ${python:-python} cannot import this project (app.check);" \
                    "your script runs without it (to have it: ${python:-python} -m pip install -e $DDP_REPO)"
            fi ;;
    esac
}

# ddp_check_image_arch: an x86_64 image on an aarch64 node fails with "exec format error" on every rank.
ddp_check_image_arch() {
    local node_arch image_arch
    node_arch=${DDP_NODE_ARCH:-$(uname -m)}
    image_arch=$("$APPTAINER" inspect --labels "$IMAGE" 2>/dev/null | awk '$1 == "app.arch:" {print $2; exit}' || true)
    if [[ -n $image_arch && $image_arch != "$node_arch" ]]; then
        ddp_die "image $IMAGE is built for $image_arch but this node is $node_arch;" \
            "build it with 'make image ARCH=$node_arch' and set IMAGE to it"
    fi
}
