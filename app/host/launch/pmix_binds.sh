#!/bin/sh
# An MPI rank started by srun --mpi=pmix (or PALS' --pmi=pmix) talks to its node's PMIx server through files the
# container must see. Slurm's mpi/pmix plugin keeps the server's under SlurmdSpoolDir/pmix.JOB.STEP, which it
# announces to each task as PMIX_SERVER_TMPDIR, and the client's under TmpFS/spmix_appdir_UID_JOB.STEP, which it
# passes inside PMIx, not in the environment (src/plugins/mpi/pmix/pmixp_info.c, pmixp_client.c, slurm-25-11-7-1);
# the client's PMIx library reads PMIX_SERVER_TMPDIR and PMIX_SYSTEM_TMPDIR (openpmix ptl_base). Apptainer binds
# /tmp, not /var/spool. So each task binds what it was given, as NVIDIA enroot's 50-slurm-pmi.sh hook does: known
# only in the task (each step has its own), hence this wrapper in front of `apptainer exec`, run per task. Both
# matter (twin image, Open MPI 4.1, on the test cluster): the server's holds PMIx's shared-memory store, the
# client's Open MPI's session directory (unbound: "ORTE_ERROR_LOG: Error in file .../orte/util/session_dir.c").
# The client's base, in mpi/pmix's order (pmixp_info.c): the step's SLURM_PMIX_TMPDIR, else mpi.conf's
# PMIxCliTmpDirBase, else TmpFS, in which slurmd replaces %h by the node's host name and %n by its Slurm name
# (slurm_conf_expand_slurmd_path, src/common/read_config.c).
# $1 = PMIxCliTmpDirBase or TmpFS as `scontrol show config` gives it ('' = none known; app/host/launch/host_checks.py),
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
# Run per task in front of `apptainer exec`: app/host/launch/container.py puts it there for nccl-tests.
tmpfs=$1 runtime=$2 verb=$3
shift 3
if [ -n "${PMIX_SECURITY_MODE:-}" ] && [ -z "${PMIX_MCA_psec:-}" ]; then export PMIX_MCA_psec="$PMIX_SECURITY_MODE"; fi
if [ -n "${PMIX_PTL_MODULE:-}" ] && [ -z "${PMIX_MCA_ptl:-}" ]; then export PMIX_MCA_ptl="$PMIX_PTL_MODULE"; fi
if [ -n "${PMIX_GDS_MODULE:-}" ] && [ -z "${PMIX_MCA_gds:-}" ]; then export PMIX_MCA_gds="$PMIX_GDS_MODULE"; fi
if [ -n "${SLURM_PMIX_TMPDIR:-}" ]; then
    tmpfs=$SLURM_PMIX_TMPDIR  # used as given, as mpi/pmix does
else
    # Each %n and %h (a few at most: bounded, so a name that holds one cannot loop)
    for _ in 1 2 3 4; do
        case $tmpfs in *%n*) tmpfs=${tmpfs%%%n*}${SLURMD_NODENAME:-}${tmpfs#*%n} ;; esac
        case $tmpfs in *%h*) tmpfs=${tmpfs%%%h*}$(uname -n)${tmpfs#*%h} ;; esac
    done
fi
for dir in "${PMIX_SERVER_TMPDIR:-}" "${PMIX_SYSTEM_TMPDIR:-}" \
    "${tmpfs:+$tmpfs/spmix_appdir_$(id -u)_${SLURM_JOB_ID:-}.${SLURM_STEP_ID:-}}"; do
    dir=${dir%/}
    case $dir in "" | /tmp) continue ;; esac
    if [ -d "$dir" ]; then set -- --bind "$dir" "$@"; fi
done
exec "$runtime" "$verb" "$@"
