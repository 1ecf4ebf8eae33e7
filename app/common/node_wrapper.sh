#!/bin/sh
# The node wrapper: runs on every node around torchrun (inside the container). The job passes this file's
# text to `sh -c` (app/host/launch/job.py JobRun.step, app/host/launch/step.py node_command), so it needs no path inside
# the image.
#
# When the stop file appears on the shared filesystem, SIGTERM goes to torchrun's workers (its direct
# children), and to torchrun itself only if they have not ended within TORCH_ELASTIC_SHUTDOWN_TIMEOUT
# (the job's grace, SHUTDOWN_TIMEOUT_S). Why not to torchrun first: torchrun SIGKILLs its workers a fixed
# time after its own SIGTERM, 30 s before torch 2.12 whatever the environment says (the variable came with
# pytorch PR #172596), and a snapshot of a large model takes longer. The workers stop together (the trainer
# agrees on the step and leaves through a barrier), so torchrun's own stop of a failed group (30 s in every
# version: LocalElasticAgent._stop_workers) finds them gone. A command that is not torchrun (LAUNCH=srun:
# the worker itself) gets the SIGTERM directly.
# Why not a signal through the scheduler: `scancel --signal` and srun's forwarding reach every process of
# the step, including Apptainer's squashfuse_ll, whose exit unmounts the image under the running
# trainer (Bus error, failed imports; seen on the test cluster). And SIGTERM, not USR1, for torchrun:
# its agent handles SIGTERM/SIGINT/SIGHUP/SIGQUIT by forwarding and waiting; an unhandled USR1 kills it.
# torchrun meets through the static rendezvous (app/host/launch/plan.py says why): the wrapper gives it the node's rank
# from the scheduler (PET_NODE_RANK) and refuses a node rank that disagrees with who owns the rendezvous address
# (the owner, node rank 0, serves the store there). Before torchrun starts, it
# sources the fabric policy: the first readable file of a colon-separated list (the image's copy, then
# the checkout's, for an image built before the policy moved there).
# Its exit code is the command's, also written to <stop file>.codes/ when the job script made that directory.
# POSIX sh, one check per second: $1 = stop file, $2 = rendezvous owner ('' = let torchrun decide),
# $3 = fabric policy candidates, the rest = the command.
stop=$1 owner=$2 policies=$3; shift 3
first=$1
policy=
old_ifs=$IFS; IFS=:
set -f  # split on colons only: no file name globbing of the candidates
for candidate in $policies; do
    if [ -r "$candidate" ]; then policy=$candidate; break; fi
done
IFS=$old_ifs
set +f  # children() below globs /proc
# shellcheck disable=SC1090  # the image's copy of app/host/common/fabric_policy.env, or the checkout's
if [ -n "$policy" ]; then . "$policy"
elif [ -n "$policies" ]; then echo "warning: no fabric policy readable at $policies: NCCL/libfabric defaults not set" >&2
fi
# torchrun only: the node's index in the job, head node 0: srun's SLURM_NODEID, Cray PALS' PALS_NODEID, a PBS TM
# task's PBS_NODENUM (the launch check reads the same), else the rank an MPI launcher gives its one task a node
# (OpenMPI's OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK). torchrun reads --node-rank from PET_NODE_RANK when argv lacks
# it (torch/distributed/argparse_util.py, class env).
# torchrun_python PATH: the python of torchrun's #! line (#!/path/python or #!/usr/bin/env python3), or nothing
torchrun_python() {
    script=$(command -v "$1") || return 0
    IFS= read -r line <"$script" 2>/dev/null || return 0
    case $line in '#!'*) ;; *) return 0 ;; esac
    set -f
    # shellcheck disable=SC2086  # the #! line's words
    set -- ${line#??}
    set +f
    if [ "${1##*/}" = env ] && [ -n "${2:-}" ]; then set -- "$(command -v "$2")"; fi
    case ${1##*/} in python*) if [ -x "$1" ]; then echo "$1"; fi ;; esac
}
if [ "${1##*/}" = torchrun ]; then
    node_rank=${SLURM_NODEID:-${PALS_NODEID:-${PBS_NODENUM:-${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}}}}
    nnodes=1
    for arg do
        case $arg in --nnodes=*) nnodes=${arg#--nnodes=} ;; esac
    done
    if [ "$nnodes" != 1 ] && [ -z "$node_rank" ]; then
        echo "error: this launcher gives no node index (SLURM_NODEID, PALS_NODEID, PBS_NODENUM, OMPI_COMM_WORLD_RANK" \
            "or PMI_RANK) for torchrun's --node-rank; start one task per node with srun, an mpiexec or pbsdsh" >&2
        exit 2
    fi
    if [ -n "$owner" ] && [ -n "$node_rank" ]; then
        here_owns=0 here_first=0
        if [ "$(uname -n)" = "$owner" ]; then here_owns=1; fi
        if [ "$node_rank" = 0 ]; then here_first=1; fi
        if [ "$here_owns" != "$here_first" ]; then
            echo "error: node $(uname -n) is node $node_rank of the job but $owner owns the rendezvous address:" \
                "node 0 serves torchrun's store there; run the job script on the job's first node (the scheduler's" \
                "batch host), or give RDZV_HOST an address of node 0" >&2
            exit 2
        fi
    fi
    if [ -n "$node_rank" ]; then PET_NODE_RANK=$node_rank; export PET_NODE_RANK; fi
    # Every node runs the same number of workers, so torchrun computes each worker's rank from the node rank instead
    # of exchanging the ranks through its store, where another user could rewrite them (_assign_worker_ranks,
    # torch/distributed/elastic/agent/server/api.py); kept when you set it.
    if [ -z "${TORCH_ELASTIC_WORKER_IDENTICAL:-}" ]; then TORCH_ELASTIC_WORKER_IDENTICAL=1; export TORCH_ELASTIC_WORKER_IDENTICAL; fi
    # torchrun ends 1 whenever a worker fails, whatever the worker's code: its main (torch/distributed/run.py, under
    # @record) lets ChildFailedError escape. The job scripts branch on the workers' own codes (app/host/common/exitcodes.py:
    # 75 requeues, 10 blames no node), so torchrun's main runs here under its own interpreter and the node ends with
    # the code of the first worker that failed (ChildFailedError.get_first_failure(), the "Root Cause" torchrun
    # prints; a worker's code, or 128+N for a signal N as the shell reports one; torch 2.13
    # torch/distributed/elastic/multiprocessing/errors/__init__.py). `-c` puts the working directory first on the
    # path: taken off before anything is imported. A #! line this cannot read leaves torchrun as it is (exit 1).
    python=$(torchrun_python "$1")
    if [ -n "$python" ]; then
        shift
        set -- "$python" -c 'import sys
if sys.path and sys.path[0] == "":
    del sys.path[0]
from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
from torch.distributed.run import main
sys.argv[0] = "torchrun"
try:
    main()
except ChildFailedError as failed:
    print(f"{type(failed).__name__}: {failed}", file=sys.stderr, flush=True)
    code = failed.get_first_failure()[1].exitcode
    sys.exit(code if code > 0 else 128 - code)' "$@"
    fi
fi
# children PID: the PIDs whose parent is PID (from /proc: procps may not be in the image).
children() {
    for status in /proc/[0-9]*/status; do
        while read -r key value; do
            if [ "$key" = PPid: ]; then
                if [ "$value" = "$1" ]; then pid=${status#/proc/}; echo "${pid%/status}"; fi
                break
            fi
        done <"$status" 2>/dev/null
    done
}
# stop_gracefully PID: SIGTERM to torchrun's workers, then to torchrun after the grace.
stop_gracefully() {
    case ${first##*/} in
        torchrun) workers=$(children "$1") ;;
        *) workers= ;;
    esac
    # shellcheck disable=SC2086  # one PID per word
    kill -TERM ${workers:-$1} 2>/dev/null
    waited=0
    while kill -0 "$1" 2>/dev/null && [ "$waited" -lt "${TORCH_ELASTIC_SHUTDOWN_TIMEOUT:-30}" ]; do
        sleep 1
        waited=$((waited + 1))
    done
    kill -TERM "$1" 2>/dev/null
}
# torch.compile's caches: torch keeps them in $TMPDIR/torchinductor_<user> (its default_cache_dir(), the user as
# Python's getpass.getuser() reads it), made without an owner check and loaded with pickle (see
# app/common/compile_cache.py). A missing one is made here, 0700, as the trainer makes it (private_compile_caches):
# left for torch to make later, another user could make it first in between and have your own script load their
# pickles. When that place is a link, someone else's (one made first, too), or writable by others, the command and
# everything it starts (your own script too) get a fresh private TMPDIR instead. A TORCHINDUCTOR_CACHE_DIR you set
# is left to you (the trainer and the check refuse one that is not yours alone).
if [ -z "${TORCHINDUCTOR_CACHE_DIR:-}" ]; then
    cache="${TMPDIR:-/tmp}/torchinductor_${LOGNAME:-${USER:-${LNAME:-${USERNAME:-$(id -un)}}}}"
    if ! mode=$(ls -ld "$cache" 2>/dev/null); then
        # -m: that mode whatever the umask; a mkdir that fails (someone made it first) leaves it to the check below
        mkdir -m 700 "$cache" 2>/dev/null
        mode=$(ls -ld "$cache" 2>/dev/null)
    fi
    case $mode in
        '') echo "warning: could not make the compile cache's usual place $cache: is ${TMPDIR:-/tmp} writable?" \
                "torch.compile needs it; set TMPDIR to a directory of yours" >&2 ;;
        d????w*|d???????w*|l*) shared=1 ;;  # group- or other-writable, or a link
        *) if [ -O "$cache" ]; then shared=; else shared=1; fi ;;
    esac
    if [ -n "${shared:-}" ] && private_tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddp-tmp-XXXXXXXX"); then
        echo "warning: the compile cache's usual place $cache is not yours alone: not used; TMPDIR=$private_tmp" >&2
        TMPDIR=$private_tmp
        export TMPDIR
    fi
fi
"$@" &
child=$!
while kill -0 "$child" 2>/dev/null; do
    if [ -e "$stop" ]; then stop_gracefully "$child"; break; fi
    sleep 1
done
wait "$child"
code=$?
# The node's own exit code, for the job (app/host/launch/step.py first_failure): srun reports a task it killed after
# another node failed over any exit code, which would hide this one. Written whole, then renamed (rename keeps
# the time it was written, which orders the nodes); only where the job made the directory.
codes=$stop.codes
if [ -d "$codes" ]; then
    record="$codes/$(uname -n).$$"
    printf '%s\n' "$code" >"$record.part" && mv -f "$record.part" "$record"
fi
exit "$code"
